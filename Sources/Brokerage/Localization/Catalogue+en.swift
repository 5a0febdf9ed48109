import TradingCore

extension Catalogue {
    /// English (the fallback for every other language). The performance figures' definitions are TradingCore's own
    /// (`PerformanceMetrics.definitions`), keyed here as `performance.<field>`.
    static let english: [String: String] = texts.merging(
        PerformanceMetrics.definitions.map { ("performance.\($0.key)", $0.value) }, uniquingKeysWith: { a, _ in a })

    private static let texts: [String: String] = [
        // Fills and cancellations
        "fill.title.buy": "Bought {symbol}",
        "fill.title.sell": "Sold {symbol}",
        "fill.body.buy": "You have successfully bought {qty} {unit} of {symbol}{at}",
        "fill.body.sell": "You have successfully sold {qty} {unit} of {symbol}{at}",
        "fill.at": " at {price}",
        "shares.one": "share",
        "shares.other": "shares",
        "contracts.one": "contract",
        "contracts.other": "contracts",
        "canceled.title": "Order for {symbol} canceled",
        // Queue purchase
        "side.buy": "buy",
        "side.sell": "sell",
        "queue.what.qty": "{side} {qty} {unit} of {symbol}",
        "queue.what.notional": "{side} {amount} of {symbol}",
        "queue.placed.title": "Order placed automatically",
        "queue.placed.body": "Your queued order to {what} was placed{pricing} when the price reached {price}.",
        "queue.pricing.limit_up": " at limit-up {price}",
        "queue.pricing.limit": " with a limit of {price}",
        "queue.pricing.market": " at market",
        "queue.failed.title": "Automatic order failed",
        "queue.failed.title.cash": "Automatic order failed",
        "queue.failed.body": "Your queued order to {what} could not be placed: {reason}.",
        "queue.failed.cash": "not enough cash",
        "backtest.weekends":
            "This server's market trades every day (its always-open clock), so these bars include weekends, which no exchange trades; a server on the real calendar has none.",
        "backtest.look_ahead":
            "Orders filled at the close of the bar that produced them: the strategy saw that close before trading at it (look-ahead). Next open is the realistic setting.",
        "backtest.refused.one": "{n} order was refused: {reason}",
        "backtest.refused.other": "{n} orders were refused: {reason}",
        "halt.title": "{symbol} halted",
        "halt.body":
            "Trading in {symbol} is halted ({reason}) until about {time} New York time. Your open orders wait for the reopening.",
        "halt.reason.news_pending": "news pending",
        "halt.reason.volatility_pause": "a volatility pause",
        "queue.empty.title": "Queue is empty",
        "queue.empty.body": "Every queued order of this account has been handled; nothing is waiting any more.",
        // Margin
        "transfer.arrived.title": "Transfer received",
        "transfer.arrived.body": "{amount} arrived from your account {from}.",
        "margin.call.title": "Margin call",
        "margin.call.body":
            "Your equity is {amount} USD below the maintenance margin your positions need. Deposit cash or sell by the close of {due}, or positions will be sold to cover it.",
        "margin.met.title": "Margin call met",
        "margin.met.body": "Your equity is back above maintenance margin.",
        "margin.liquidation.title": "Positions sold for a margin call",
        "margin.liquidation.body":
            "Your equity stayed {amount} USD below maintenance margin, so papertrade is selling {sold} at market.",
        // Corporate actions
        "action.dividend.title": "{symbol} dividend",
        "action.dividend.body": "{symbol} paid {cash} a share on your {qty} shares: {amount} credited.",
        "action.dividend.short.body":
            "{symbol} paid {cash} a share; you are short {qty} shares, so {amount} was charged to your account.",
        "action.split.title": "{symbol} {ratio} split",
        "action.split.body": "Your {before} shares of {symbol} are now {after}; the cost basis is unchanged.{lieu}",
        "action.bonus.title": "{symbol} bonus shares (10 for {ratio})",
        "action.bonus.body": "Your {before} shares of {symbol} are now {after}; the cost basis is unchanged.{lieu}",
        "action.lieu": " {fraction} of a share was paid in cash: {amount}.",
        // Options
        "option.exercise.title": "{symbol} exercised",
        "option.exercise.call.body":
            "Your {contracts} contracts of {symbol} were exercised: you bought {shares} shares of {underlying} at {strike}.",
        "option.exercise.put.body":
            "Your {contracts} contracts of {symbol} were exercised: you sold {shares} shares of {underlying} at {strike}.",
        "option.expiry.title": "{symbol} expired",
        "option.expiry.body":
            "Your {contracts} contracts of {symbol} expired worthless: {underlying} closed at {close}, strike {strike}.",
        "option.expiry.unexercised.body":
            "Your {contracts} contracts of {symbol} expired without being exercised: {reason}.",
        "option.assignment.title": "{symbol} assigned",
        "option.assignment.call.body":
            "The {contracts} contracts of {symbol} you wrote were assigned: you sold {shares} shares of {underlying} at {strike}.",
        "option.assignment.put.body":
            "The {contracts} contracts of {symbol} you wrote were assigned: you bought {shares} shares of {underlying} at {strike}.",
        "option.assignment.early.call.body":
            "The {contracts} contracts of {symbol} you wrote were assigned before their expiration ({expiration}): at {underlying}'s close of {close} they were worth no more than exercising them, so their holder exercised. You sold {shares} shares of {underlying} at {strike}.",
        "option.assignment.early.put.body":
            "The {contracts} contracts of {symbol} you wrote were assigned before their expiration ({expiration}): at {underlying}'s close of {close} they were worth no more than exercising them, so their holder exercised. You bought {shares} shares of {underlying} at {strike}.",
        "option.expiry.written.body":
            "The {contracts} contracts of {symbol} you wrote expired worthless and the premium is yours: {underlying} closed at {close}, strike {strike}.",
        "option.adjusted.title": "{old} adjusted for the {underlying} split",
        "option.adjusted.body":
            "{underlying} split {ratio}: your {before} contracts of {old} are now {after} contracts of {new} (strike {strike}), each for {shares} shares; the cost basis is unchanged and open orders on {old} were canceled.",
        "option.adjusted.written.body":
            "{underlying} split {ratio}: the {before} contracts of {old} you wrote are now {after} contracts of {new} (strike {strike}), each for {shares} shares; the premium taken is unchanged and open orders on {old} were canceled.",
        "option.cash_deliverable.title": "{symbol} settled in cash after the {underlying} split",
        "option.cash_deliverable.body":
            "{underlying} split {ratio}, which left each contract of {symbol} {shares} of a share to deliver. That fraction is paid as cash ({cash} a contract), so the contracts expired today and settled at their value: your {contracts} contracts were paid {amount}.",
        "option.cash_deliverable.written.body":
            "{underlying} split {ratio}, which left each contract of {symbol} {shares} of a share to deliver. That fraction is paid as cash ({cash} a contract), so the contracts expired today and settled at their value: the {contracts} contracts you wrote cost {amount}.",
        "option.cash_deliverable.worthless.body":
            "{underlying} split {ratio}, which left each contract of {symbol} {shares} of a share to deliver. That fraction is paid as cash ({cash} a contract), so the contracts expired today and settled at their value: your {contracts} contracts were worth nothing.",
        "option.sell_out.title": "{symbol} sold before expiry",
        "option.sell_out.body":
            "Your {contracts} contracts of {symbol} expire today in the money, but they could not be exercised ({reason}), so papertrade is selling them at market before the close.",
        // Price alerts
        "alert.title": "{symbol} alert",
        "alert.body": "{symbol} {what} and is at {price}.",
        "alert.crossing": "crossed {level}",
        "alert.crossing_up": "crossed up through {level}",
        "alert.crossing_down": "crossed down through {level}",
        "alert.greater_than": "is above {level}",
        "alert.less_than": "is below {level}",
        "alert.entering_channel": "entered the channel {lower}–{upper}",
        "alert.exiting_channel": "left the channel {lower}–{upper}",
        "alert.inside_channel": "is inside the channel {lower}–{upper}",
        "alert.outside_channel": "is outside the channel {lower}–{upper}",
        "alert.moving_up": "rose {amount} or more within {window}{from}",
        "alert.moving_down": "fell {amount} or more within {window}{from}",
        "alert.moving_up_percent": "rose {amount}% or more within {window}{from}",
        "alert.moving_down_percent": "fell {amount}% or more within {window}{from}",
        "alert.from_low": " (from a low of {price})",
        "alert.from_high": " (from a high of {price})",
        "alert.moving_average": "its {n}-day moving average",
        "alert.moving_average.value": "its {n}-day moving average ({price})",
        "window.seconds.one": "1 second",
        "window.seconds.other": "{n} seconds",
        "window.minutes.one": "1 minute",
        "window.minutes.other": "{n} minutes",
        "window.hours.one": "1 hour",
        "window.hours.other": "{n} hours",
        "window.days.one": "1 day",
        "window.days.other": "{n} days",
        "window.trading_days.one": "1 trading day",
        "window.trading_days.other": "{n} trading days",
        "window.bars.one": "1 bar of {length}",
        "window.bars.other": "{n} bars of {length}",
        // Web Push
        "push.test.title": "papertrade",
        "push.test.body": "Notifications reach this device.",
        // Default account names
        "account.default_name.us": "US paper account",
        "account.default_name.cn": "A-share paper account",
        // Benchmark indices
        "index.sh000001": "SSE Composite",
        "index.sz399001": "SZSE Component",
        "index.^IXIC": "NASDAQ Composite",
        "index.^NDX": "Nasdaq-100",
        "index.sh000300": "CSI 300",
        "index.^DJI": "Dow Jones Industrial Average",
        "index.^GSPC": "S&P 500",
        // Games
        "game.ended.title": "{game} has ended",
        "game.ended.body": "You finished #{rank} of {players} with a return of {return}.",
        "game.account": "Game: {game}",
    ]
}
