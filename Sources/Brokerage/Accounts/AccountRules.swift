import TradingCore

/// Who may sign up and what a new account starts with: domain rules, here so that every surface (the native API,
/// the CLI's admin commands, the demo bootstrap) applies the same ones.
public enum AccountRules {
    /// The first thing wrong with a username, or nil: 3–32 letters, digits, '_', '.' or '-'.
    public static func usernameProblem(_ username: String) -> String? {
        guard (3...32).contains(username.count),
            username.allSatisfy({ $0.isLetter || $0.isNumber || "_.-".contains($0) })
        else {
            return "username must be 3–32 letters, digits, '_', '.' or '-'"
        }
        return nil
    }

    /// The first thing wrong with a password, or nil: 8 to 72 characters (72: what bcrypt reads).
    public static func passwordProblem(_ password: String) -> String? {
        password.count >= 8 && password.count <= 72 ? nil : "password must be 8 to 72 characters"
    }

    /// What a new account starts with unless its owner says otherwise: 100,000 USD, or 1,000,000 CNY.
    public static func defaultCash(_ market: Market) -> FixedDecimal {
        market == .us ? FixedDecimal(100_000) : FixedDecimal(1_000_000)
    }

    /// US accounts are margin accounts unless their owner asks for cash (as Alpaca's paper accounts are); A-share
    /// accounts are cash accounts.
    public static func defaultType(_ market: Market) -> AccountType { market == .us ? .margin : .cash }

    /// Whether accounts of the market may borrow (A-share accounts may not: margin trading is not offered).
    public static func allowsMargin(_ market: Market) -> Bool { market == .us }
}

extension Brokerage {
    /// Opens an account with the market's defaults for what is not given (cash, a name in the owner's language, the
    /// account type); refuses margin where the market does not allow it.
    public func openAccount(
        userID: UserID, market: Market, cash: FixedDecimal?, name: String?, type: AccountType? = nil
    ) async throws(BrokerageError) -> AccountRecord {
        let accountType = type ?? AccountRules.defaultType(market)
        guard accountType == .cash || AccountRules.allowsMargin(market) else {
            throw .invalid("A-share accounts are cash accounts: margin trading is not offered")
        }
        let text = Catalogue(languages.language(of: userID))
        return try await openAccount(
            userID: userID, market: market, cash: cash ?? AccountRules.defaultCash(market),
            name: name ?? text(market == .us ? "account.default_name.us" : "account.default_name.cn"),
            terms: accountType == .margin ? .margin : .cash)
    }

    /// The name an account is shown by: one still called by its default name reads in its owner's language now (a
    /// user who switched from English to Chinese sees 美股模拟账户, not "US paper account"); a name the user gave is
    /// theirs, unchanged.
    public func displayName(of record: AccountRecord) -> String {
        let key = record.market == .us ? "account.default_name.us" : "account.default_name.cn"
        guard Language.allCases.contains(where: { Catalogue($0)(key) == record.name }) else { return record.name }
        return Catalogue(languages.language(of: record.userID))(key)
    }
}
