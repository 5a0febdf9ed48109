import TradingCore

/// An order or transfer refusal in the user's language. English is TradingCore's own message (what the Alpaca and
/// IB surfaces show verbatim); Chinese words the rejection's named facts (`OrderRejection.Facts`) with the templates
/// below, and otherwise says the reason in Chinese followed by the English detail.
public enum RejectionWording {
    public static func message(_ rejection: OrderRejection, in language: Language) -> String {
        guard language == .zhHans else { return rejection.message }
        if let facts = rejection.facts, let template = chinese[facts.sentence] {
            var text = template
            for (name, value) in facts.values {
                let shown = name == "phase" ? (phases[value] ?? value) : value
                text = text.replacingOccurrences(of: "{\(name)}", with: shown)
            }
            return text
        }
        return "\(reasons[rejection.reason] ?? "委托被拒绝")：\(rejection.message)"
    }

    /// Templates by `Facts.sentence`; each names only values its sentence carries (`RejectionWordingTests`).
    static let chinese: [String: String] = [
        "lot_size.whole": "{symbol} 的委托数量 {qty} 必须是整数股",
        "lot_size.board_lot": "{symbol} 的委托数量 {qty} 必须是每手 {lot} 股的整数倍",
        "lot_size.board_lot_sell": "{symbol} 的委托数量 {qty} 必须是每手 {lot} 股的整数倍；不足一手的零股只能与剩余持仓（{held} 股）一次全部卖出",
        "lot_size.minimum": "{symbol} 的委托数量 {qty} 低于单笔最低 {minimum} 股",
        "lot_size.minimum_sell": "{symbol} 的委托数量 {qty} 低于最低 {minimum} 股；更少的股数只能作为剩余持仓（{held} 股）一次全部卖出",
        "lot_size.maximum": "委托数量 {qty} 超过 {symbol} 单笔委托上限 {maximum} 股",
        "outside_price_limits": "委托价 {price} 超出 {symbol} 今日的涨跌停价格范围：{down} – {up}",
        "insufficient_buying_power": "可用资金不足（需要 {required}，可用 {available}）",
        "insufficient_buying_power.withdraw": "无法出金 {amount} {currency}：可用资金仅 {available}",
        "insufficient_buying_power.transfer": "无法转出 {amount} {currency}：可用资金仅 {available}",
        "market_closed.forex": "外汇市场（纽约时间周日 17:00 至周五 17:00）现已休市，{symbol} 暂不能兑换货币；同币种账户间转账随时可用",
        "insufficient_qty": "可卖股数不足（委托 {requested}，可卖 {available}）",
        "insufficient_qty.covering_calls":
            "您的 {symbol} 中有 {covering} 股是已卖出看涨期权的备兑，期权了结前不能卖出（请先买回期权）；可卖 {available} 股",
        "insufficient_qty.no_position": "您没有 {symbol} 的持仓，无法卖出（此账户不能卖空）",
        "shorting_not_allowed.no_shorting": "此账户设置了禁止卖空（no_shorting），不能卖空 {symbol}",
        "shorting_not_allowed.equity": "账户净值低于 $2,000，不能卖空 {symbol}",
        "shorting_not_allowed.fractional": "{symbol} 的卖空委托必须是整数股（不能使用碎股或金额委托）",
        "not_shortable": "{symbol} 无券可借，不能卖空",
        "pattern_day_trading": "日内交易保护（PDT）：近 5 个交易日已有 {count} 笔日内交易，且账户净值低于 $25,000，此委托被拒绝",
        "cover_exceeds_short": "买入 {qty} 股会在回补 {short} 股 {symbol} 空头后转为多头；请先买入最多 {short} 股平仓",
        "not_sellable_today": "T+1：您持有的 {held} 股 {symbol} 中有 {bought} 股为今日买入，下一个交易日才能卖出；当前可卖 {sellable} 股",
        "market_closed.cn_market_order": "{exchange} 的市价委托只在连续竞价时段（9:30–11:30、13:00–14:57 北京时间）接受；当前为{phase}",
        "sub_penny": "{name} {price} 无效：美股价格的最小变动单位为 0.01",
        "off_tick": "{name} {price} 无效：{exchange} 的价格最小变动单位为 {step}",
        "currency_mismatch": "{symbol} 以 {currency} 交易；此账户持有 {account_currency}",
        "forex.account_currency": "{symbol} 是美元货币对，此账户持有 {account_currency}：请在美元账户中交易货币对，账户间用转账换汇",
        "forex.order_type": "货币对不支持 {type} 委托：请使用市价或限价委托",
        "forex.time_in_force": "货币对不支持 {tif} 有效期：请使用 day、gtc 或 ioc",
        "forex.order_class": "货币对不支持 {class} 委托：请下普通委托",
        "forex.qty_places": "数量 {qty} 的小数位过多：{currency} 只能精确到最小货币单位",
        "forex.insufficient_balance":
            "{currency} 余额不足，无法交易 {symbol}（需要 {required} {currency}，可用 {available} {currency}）",
        "unknown_symbol": "找不到股票 {symbol}",
        "no_quote": "{symbol} 暂无市场价格；请改用限价委托",
        "game.ended": "比赛已于 {end} UTC 结束：不能再下单，排名已定",
        "game.orders_per_day": "本比赛每天最多下单 {most} 笔；您今天已达上限",
        "game.minimum_buy_price": "本比赛只允许买入价格不低于 {minimum} 的股票；{symbol} 低于此价格",
        "game.no_short_selling": "本比赛不允许卖空：您没有 {symbol} 的持仓可卖",
        "game.no_options": "本比赛不允许交易期权，只能交易股票和 ETF（{symbol}）",
        "game.no_crypto": "本比赛不允许交易加密货币，只能交易股票和 ETF（{symbol}）",
        "game.no_forex": "本比赛不允许交易货币对，只能交易股票和 ETF（{symbol}）",
        "game.minimum_short_price": "本比赛只允许卖空价格不低于 {minimum} 的股票；{symbol} 低于此价格",
        "game.volume_share": "本比赛单笔委托不得超过 {symbol} 当日成交量的 {percent}%：目前最多 {most} 股",
        "game.day_trading": "本比赛不允许日内交易：{symbol} 有 {qty} 股为今日开仓，下一个交易日才能平仓",
        "game.quick_sell": "本比赛规定买入后 {minutes} 分钟内不得卖出：{symbol} 还需等待 {wait} 分钟",
        "game.position_share": "本比赛单只股票最多占组合的 {percent}%；此委托会使 {symbol} 占到 {share}%",
        "game.journal_required": "本班级要求每笔委托都写交易日志：请写明下单的理由",
        "game.removed": "比赛组织者已将您移出本比赛：此账户不能再下单",
        "game.transfer": "此账户参加比赛：不允许入金或出金（所有选手起始资金相同）",
        "lot_size.crypto_minimum": "{symbol} 的委托数量 {qty} 低于最小下单量 {minimum}",
        "lot_size.crypto_increment": "{symbol} 的委托数量 {qty} 必须是最小交易单位 {increment} 的整数倍",
        "crypto.order_type": "加密货币不支持 {type} 委托：请使用市价、限价或止损限价委托",
        "crypto.time_in_force": "加密货币委托的有效期只能是 gtc 或 ioc（不能是 {tif}）",
        "crypto.order_class": "加密货币不支持 {class} 委托：请下普通委托",
        "crypto.extended_hours": "加密货币全天候交易，不适用盘前盘后（extended_hours）",
        "crypto.notional_type": "按金额买卖加密货币只能用市价委托；限价委托请填写数量",
        "crypto.no_balance": "{coin} 余额不足（委托 {requested}，可用 0）：加密货币不能卖空",
        "crypto.coin_balance": "{coin} 余额不足（需要 {requested}，可用 {available}）",
        "crypto.coin_pair_notional": "{symbol} 以 {quote} 计价，不以美元计价：请填写 {base} 的数量，而不是金额",
        "crypto.coin_pair_precision": "{symbol} 的数量乘以价格最多只能有九位小数",
        "option.notional": "期权不能按金额委托：请以整数张合约填写数量（{symbol}）",
        "option.whole_contracts": "{symbol} 的委托数量 {qty} 必须是整数张合约",
        "option.order_type": "期权不接受 {type} 委托：请使用市价、限价、止损或止损限价委托",
        "option.time_in_force": "期权委托的有效期只能是当日（day）或撤销前有效（gtc），不能是 {tif}",
        "option.extended_hours": "期权只在常规交易时段交易：不能提交盘前盘后委托",
        "option.order_class": "期权不接受 {class} 组合委托：请提交普通委托",
        "option.expired": "{symbol} 已于 {date} 到期，不能再交易",
        "option.intent_mismatch": "开平仓方向 {stated} 与持仓不符：您持有 {held} 张 {symbol}，此委托实为 {intent}",
        "option.level": "买入期权需要期权交易级别 {needed}；此账户的级别为 {level}",
        "option.level.write": "卖出备兑看涨期权和现金担保看跌期权需要期权交易级别 {needed}；此账户的级别为 {level}",
        "option.write.uncovered":
            "卖出 {qty} 张 {symbol} 需要 {shares} 股 {underlying} 作备兑；可用 {free} 股（持有、且未用于卖出委托或已卖出的看涨期权）：不提供无备兑看涨期权",
        "option.write.unsecured":
            "卖出 {qty} 张 {symbol} 需留存 {required}（行权价 × {shares} 股）作担保；期权购买力为 {available}：不提供无担保看跌期权",
        "option.write.spread":
            "卖出 {qty} 张 {symbol} 需留存 {required}（加上它后您的 {underlying} 期权到期时最多可能亏损的金额）作担保；期权购买力为 {available}",
        "option.close.covers_calls":
            "{qty} 张 {symbol} 为您卖出的看涨期权作备兑：卖出它们需要 {shares} 股 {underlying} 代替备兑，可用 {free} 股；请先买回卖出的看涨期权",
        "option.close.covers":
            "{qty} 张 {symbol} 为您卖出的期权作担保：卖出它们需另留存 {required}，期权购买力为 {available}；请先买回卖出的期权",
        "option.level.spreads": "组合（多腿）期权委托需要期权交易级别 {needed}；此账户的级别为 {level}",
        "mleg.leg_count": "多腿委托需有 2 至 4 条腿；此委托有 {count} 条",
        "mleg.stock_leg": "多腿委托的每条腿都必须是期权合约；{symbol} 不是",
        "mleg.duplicate_leg": "每条腿必须是不同的合约；{symbol} 出现了两次",
        "mleg.underlyings": "所有腿必须是同一标的的期权：{first} 与 {other} 不同",
        "mleg.leg_exceeds_position": "{symbol} 这条腿需平仓 {qty} 张，可平仓的只有 {available} 张（一条腿只能开仓或平仓，不能两者兼有）",
        "mleg.ratio_terms": "各腿比例 {ratios} 须为最简整数比：请发送最小整数比，其余放在数量中",
        "mleg.uncovered": "此委托会留下没有买入看涨期权备兑的卖出看涨期权：需要 {shares} 股 {underlying}，可用 {free} 股——每条卖出腿都必须有备兑",
        "mleg.buying_power": "此委托需要 {required} 的期权购买力（净支出加上卖出腿到期时可能的最大亏损）；期权购买力为 {available}",
        "option.no_position": "您没有可行权的 {symbol} 持仓",
        "option.exercise_short": "不能对 {symbol} 的空头持仓行权",
        "option.exercise_after_close": "收盘后至美东时间午夜不接受行权申请",
        "option.dne_short": "不能对 {symbol} 的空头持仓提交放弃行权指令",
        "option.dne_late": "{symbol} 于 {date} 到期：放弃行权指令只在当天美东时间下午 4:30 前受理",
        "option.exercise_buying_power":
            "行权 {contracts} 张 {symbol} 需以 {required} 买入 {underlying} {shares} 股；可用购买力为 {available}",
        "option.exercise_shares": "行权 {contracts} 张 {symbol} 需卖出 {underlying} {shares} 股；可卖 {available} 股",
    ]

    static let phases: [String: String] = [
        "closed": "休市", "pre_market": "盘前", "opening_auction": "开盘集合竞价", "pre_open": "开盘前",
        "continuous": "连续竞价", "lunch_break": "午间休市", "closing_auction": "收盘集合竞价", "post_market": "盘后",
    ]

    static let reasons: [OrderRejection.Reason: String] = [
        .invalidInput: "委托无效", .subPenny: "价格无效", .offTick: "价格无效", .lotSize: "委托数量无效",
        .outsidePriceLimits: "超出涨跌停价格", .insufficientBuyingPower: "可用资金不足", .insufficientQty: "可卖股数不足",
        .notSellableToday: "今日买入的股份不可卖出", .marketClosed: "当前不接受此委托", .duplicateClientOrderID: "委托编号重复",
        .unknownSymbol: "找不到股票", .unknownAccount: "找不到账户", .orderNotFound: "找不到委托", .notCancelable: "委托无法撤销",
        .notReplaceable: "委托无法修改", .currencyMismatch: "币种不符", .noQuote: "暂无市场价格", .unsupported: "不支持",
        .shortingNotAllowed: "不能卖空", .notShortable: "无券可借", .patternDayTrading: "日内交易保护",
        .gameRule: "比赛规则不允许", .optionsLevel: "期权交易级别不允许",
    ]
}
