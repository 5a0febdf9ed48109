import BrokerageModel
import Synchronization

/// A language papertrade writes in. The web app follows the browser unless the user chose one in Settings; the
/// server writes each user's notifications, alerts and pushes in the user's choice (English when none).
public enum Language: String, Sendable, CaseIterable {
    case en
    case zhHans = "zh-Hans"

    /// The language for a BCP 47 tag: "zh", "zh-CN", "zh-Hans-CN", "zh-SG" are Simplified Chinese; "en-US" is English.
    /// Nil for a language papertrade does not have (the caller falls back to English).
    public init?(tag: String) {
        let lower = tag.lowercased()
        if lower == "en" || lower.hasPrefix("en-") {
            self = .en
        } else if lower == "zh" || lower.hasPrefix("zh-hans") || ["zh-cn", "zh-sg", "zh-my"].contains(lower) {
            self = .zhHans
        } else {
            return nil
        }
    }
}

/// Users' chosen languages, readable from any task without a hop to the brokerage actor (the push dispatcher and the
/// API read them); loaded at start and updated when a user chooses.
public final class LanguagePreferences: Sendable {
    private let chosen = Mutex<[UserID: Language]>([:])

    init() {}

    /// The user's language (English when they chose none).
    public func language(of user: UserID) -> Language { chosen.withLock { $0[user] } ?? .en }

    /// The language the user chose, or nil when the app follows the browser.
    public func choice(of user: UserID) -> Language? { chosen.withLock { $0[user] } }

    func set(_ language: Language?, for user: UserID) { chosen.withLock { $0[user] = language } }

    func replaceAll(_ languages: [UserID: Language]) { chosen.withLock { $0 = languages } }
}
