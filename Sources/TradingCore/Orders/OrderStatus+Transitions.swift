/// The one table of order status changes (after nautilus_trader's `OrderStatus::transition`): every status the
/// engine gives an order after creating it comes from `after(_:)`. An order is created `new` (or `held`, an exit
/// leg waiting for its entry to fill); from then on only the events below move it, and a terminal status never
/// moves again.
///
///     held ──new──▶ new ──partial_fill──▶ partially_filled ──fill──▶ filled
///       │            │                         │
///       └─ canceled / expired / replaced / rejected / done_for_day (from any open status the event can reach)
///
/// The statuses Alpaca documents and papertrade never produces itself (pending_new, accepted, pending_cancel,
/// pending_replace, stopped, suspended, calculated, accepted_for_bidding) follow Alpaca's meaning, so orders
/// imported or written by a future venue adapter obey the same table.
extension OrderStatus {
    /// The status an order in this status takes on `event`, or nil when the event cannot happen to it.
    public func after(_ event: OrderUpdate.Event) -> OrderStatus? {
        guard !isTerminal else { return nil }
        switch event {
        case .pendingNew:
            return nil // an order is created pending_new; nothing returns to it
        case .new:
            // Activation: a held exit leg (its entry filled), or an order the venue acknowledged.
            return [.held, .pendingNew, .accepted, .acceptedForBidding].contains(self) ? .new : nil
        case .held:
            return self == .pendingNew ? .held : nil
        case .partialFill:
            return self.canFill ? .partiallyFilled : nil
        case .fill:
            return self.canFill ? .filled : nil
        case .canceled:
            return .canceled // every open order can be canceled (a held leg with its entry, a pending cancel…)
        case .expired:
            return self == .pendingNew ? nil : .expired
        case .replaced:
            return [.new, .partiallyFilled, .accepted, .pendingReplace, .held].contains(self) ? .replaced : nil
        case .rejected:
            return [.pendingNew, .new, .accepted, .held, .pendingReplace, .pendingCancel].contains(self)
                ? .rejected : nil
        case .doneForDay:
            return [.new, .partiallyFilled, .accepted].contains(self) ? .doneForDay : nil
        }
    }

    /// Whether an order in this status may execute: it is working at the venue (not held, not yet acknowledged,
    /// not suspended).
    var canFill: Bool {
        switch self {
        case .new, .partiallyFilled, .accepted, .pendingCancel, .pendingReplace, .stopped, .calculated: return true
        default: return false
        }
    }
}
