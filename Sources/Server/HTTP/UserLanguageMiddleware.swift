import Brokerage
import Hummingbird

/// The native API's refusals in the signed-in user's language (`PUT /api/v1/me`): an order or transfer rejection is
/// reworded by `RejectionWording`, keeping its status and code. Calls with an API key, and the Alpaca and IB
/// surfaces, keep TradingCore's English, as the clients written against those APIs expect.
struct UserLanguageMiddleware: RouterMiddleware {
    let languages: LanguagePreferences

    func handle(
        _ request: Request, context: AppContext,
        next: (Request, AppContext) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as BrokerageError {
            guard case .rejected(let rejection) = error, case .user(let user, _) = context.caller else { throw error }
            let language = languages.language(of: user)
            guard language != .en else { throw error }
            throw APIError(error.status, code: error.alpacaCode, RejectionWording.message(rejection, in: language))
        }
    }
}
