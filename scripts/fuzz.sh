#!/usr/bin/env bash
# Coverage-guided fuzzing of the parsers that read raw text from requests and files (decimals, dates, RFC 3339
# times, JSON bodies, CSV bars, and the arithmetic request numbers meet), with libFuzzer, which Swift ships on Linux.
#   bash scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET…]   (default: 20 s each, every target; scripts/test.sh runs it)
# Each target starts from its committed corpus (fuzz/corpus/TARGET) and fails on the first trap or broken round trip,
# printing the input; libFuzzer writes it as crash-* in the current folder. New coverage goes to a scratch folder:
# `bash benchmarks/fuzz/run.sh` runs longer and merges what it found into fuzz/corpus for committing.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-20}
shift || true
targets=("$@")
[ "${#targets[@]}" -gt 0 ] || targets=(decimal arithmetic date time json csv)

# Its own build folder: every module of the target is compiled with coverage instrumentation. Release: libFuzzer
# runs several times more inputs a second, and Swift's release builds trap on overflow and bounds just the same.
swift build -c release --scratch-path .build-fuzz --product ParserFuzz \
    -Xswiftc -sanitize=fuzzer -Xswiftc -DLIBFUZZER -Xswiftc -parse-as-library >&2
binary=.build-fuzz/release/ParserFuzz
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
for target in "${targets[@]}"; do
    mkdir -p "fuzz/corpus/$target" "$scratch/$target"
    log="$scratch/$target.log"
    # (Swift's own backtracer off: it takes the trap's signal first, and libFuzzer then never writes the input.)
    if ! PAPERTRADE_FUZZ_TARGET=$target SWIFT_BACKTRACE=enable=no "$binary" -max_total_time="$seconds" -print_final_stats=1 -timeout=10 \
        -rss_limit_mb=4096 -artifact_prefix="$scratch/" "$scratch/$target" "fuzz/corpus/$target" >"$log" 2>&1; then
        tail -40 "$log"
        for crash in "$scratch"/crash-* "$scratch"/timeout-* "$scratch"/oom-*; do
            [ -e "$crash" ] || continue
            cp "$crash" .
            echo "fuzz: $target: input kept as ./$(basename "$crash"): $(head -c 300 "$crash" | od -c | head -5)"
        done
        echo "fuzz: $target FAILED"
        exit 1
    fi
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
    found=$(find "$scratch/$target" -type f | wc -l)
    echo "fuzz: $target: $runs inputs in ${seconds}s from $(find "fuzz/corpus/$target" -type f | wc -l) corpus files, no trap ($found new inputs with new coverage)"
    if [ -n "${PAPERTRADE_FUZZ_MERGE:-}" ] && [ "$found" -gt 0 ]; then
        PAPERTRADE_FUZZ_TARGET=$target "$binary" -merge=1 "fuzz/corpus/$target" "$scratch/$target" >/dev/null 2>&1
        echo "fuzz: $target: corpus now $(find "fuzz/corpus/$target" -type f | wc -l) files"
    fi
done
