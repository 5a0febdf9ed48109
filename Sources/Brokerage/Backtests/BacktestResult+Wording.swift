import Backtest

extension BacktestResult {
    /// The report's warnings in `language`, as the web app shows them: the look-ahead note and each kind of refused
    /// order with how many there were, the refusal worded by `RejectionWording` (the CLI prints `warnings`, in
    /// English).
    public func warnings(in language: Language) -> [String] {
        let words = Catalogue(language)
        var out: [String] = []
        if fill == .close { out.append(words("backtest.look_ahead")) }
        if hasUnexpectedWeekends { out.append(words("backtest.weekends")) }
        for refusal in refusals.prefix(5) {
            out.append(
                words.count(
                    "backtest.refused", refusal.count,
                    ["reason": RejectionWording.message(refusal.rejection, in: language)]))
        }
        return out
    }
}
