/// Counter-based random numbers: every draw is a pure function of its coordinates (seed, stream, index…),
/// never of a generator's history. That is what makes the simulated market random-access and identical in
/// every process.
///
/// The model works in Double: it is a stochastic model of log-prices, not a money path. Every price leaves
/// the model through `Quantize`, rounded onto the instrument's tick grid as an exact `FixedDecimal`.
enum CounterRandom {
    /// SplitMix64 finalizer over a combination of keys.
    @inline(__always)
    static func hash(_ a: UInt64, _ b: UInt64, _ c: UInt64 = 0, _ d: UInt64 = 0) -> UInt64 {
        var z = a &+ 0x9E37_79B9_7F4A_7C15 &* (b &+ 1)
        z ^= c &* 0xC2B2_AE3D_27D4_EB4F
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z ^= d &* 0x1656_67B1_9E37_79F9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in the open interval (0, 1).
    @inline(__always)
    static func uniform(_ h: UInt64) -> Double {
        (Double(h >> 11) + 0.5) * (1.0 / 9_007_199_254_740_992.0)
    }

    /// Standard normal by inverse CDF (Acklam's rational approximation, relative error < 1.2e-9).
    @inline(__always)
    static func normal(_ h: UInt64) -> Double {
        inverseNormal(uniform(h))
    }

    static func inverseNormal(_ p: Double) -> Double {
        let a0 = -3.969683028665376e+01, a1 = 2.209460984245205e+02, a2 = -2.759285104469687e+02
        let a3 = 1.383577518672690e+02, a4 = -3.066479806614716e+01, a5 = 2.506628277459239e+00
        let b0 = -5.447609879822406e+01, b1 = 1.615858368580409e+02, b2 = -1.556989798598866e+02
        let b3 = 6.680131188771972e+01, b4 = -1.328068155288572e+01
        let c0 = -7.784894002430293e-03, c1 = -3.223964580411365e-01, c2 = -2.400758277161838e+00
        let c3 = -2.549732539343734e+00, c4 = 4.374664141464968e+00, c5 = 2.938163982698783e+00
        let d0 = 7.784695709041462e-03, d1 = 3.224671290700398e-01, d2 = 2.445134137142996e+00
        let d3 = 3.754408661907416e+00
        if p < 0.02425 {
            let q = (-2 * log(p)).squareRoot()
            return (((((c0 * q + c1) * q + c2) * q + c3) * q + c4) * q + c5)
                / ((((d0 * q + d1) * q + d2) * q + d3) * q + 1)
        }
        if p > 1 - 0.02425 {
            let q = (-2 * log(1 - p)).squareRoot()
            return -(((((c0 * q + c1) * q + c2) * q + c3) * q + c4) * q + c5)
                / ((((d0 * q + d1) * q + d2) * q + d3) * q + 1)
        }
        let q = p - 0.5
        let r = q * q
        return (((((a0 * r + a1) * r + a2) * r + a3) * r + a4) * r + a5) * q
            / (((((b0 * r + b1) * r + b2) * r + b3) * r + b4) * r + 1)
    }

    /// A stable 64-bit key for a string (FNV-1a): symbol names become stream ids.
    static func key(_ text: String) -> UInt64 {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in text.utf8 {
            h ^= UInt64(byte)
            h = h &* 0x0000_0100_0000_01B3
        }
        return h
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
