/// Bracket, OCO and OTO orders: a parent and its exit legs.
///
/// - bracket: an entry (a buy, or a short sale) with a take-profit limit and a stop-loss on the other side, both
///   `held` until the entry has filled completely, then working for the filled quantity; when one exit fills the
///   other is canceled.
/// - oto: an entry with one exit.
/// - oco: the parent is the take-profit limit exit (a sell for a long, a buy for a short), its one leg the
///   stop-loss; both work at once, the parent holds the shares for both, and whichever finishes first cancels the
///   other.
/// A partial fill of one exit shrinks its twin to the same remaining quantity.
extension TradingEngine {
    mutating func createLegs(for parentID: OrderID, request r: OrderRequest, at time: Timestamp) {
        guard r.orderClass != .simple, let parent = orders[parentID] else { return }
        var legs: [(type: OrderType, limit: Price?, stop: Price?)] = []
        if r.orderClass != .oco, let tp = r.takeProfit { legs.append((.limit, tp.limitPrice, nil)) }
        if let sl = r.stopLoss { legs.append((sl.limitPrice == nil ? .stop : .stopLimit, sl.limitPrice, sl.stopPrice)) }
        let instrument = instruments[Int(parent.instrument.index)]
        var ids: [OrderID] = []
        for leg in legs {
            var order = parent
            order.id = OrderID(newIdentifier(at: time))
            order.clientOrderID = ClientOrderID(newIdentifier(at: time))
            // Exits close what the entry opens; an oco's leg exits alongside its parent.
            order.side = r.orderClass == .oco ? parent.side : parent.side.opposite
            order.positionIntent = order.side == .sell ? .sellToClose : .buyToClose
            order.type = leg.type
            order.limitPrice = leg.limit
            order.stopPrice = leg.stop
            order.trailPrice = nil
            order.trailPercent = nil
            order.legs = []
            order.parentID = parentID
            order.status = r.orderClass == .oco ? .new : .held
            order.reservedCash = .zero
            order.reservedShares = .zero
            order.expiresAt = expiry(order.timeInForce, extendedHours: false, instrument: instrument, at: time)
            ids.append(order.id)
            orders[parentID]?.legs.append(order.id)
            accept(order, at: time)
        }
        _ = ids
    }

    /// The other working order of an exit pair.
    func twin(of order: Order) -> OrderID? {
        if let parentID = order.parentID, let parent = orders[parentID] {
            if parent.orderClass == .oco { return parentID }
            return parent.legs.first { $0 != order.id }
        }
        if order.orderClass == .oco { return order.legs.first }
        return nil
    }

    /// Keeps an exit pair at the same remaining quantity after one of them fills partly.
    mutating func resizeTwin(of id: OrderID) {
        // Simple orders (most) have no twin: decided without copying the order.
        guard orders.read(id, { ($0.parentID != nil && $0.orderClass != .mleg) || $0.orderClass == .oco }) == true
        else { return }
        guard let order = orders[id], let twinID = twin(of: order),
            let twin = orders[twinID], twin.status.isOpen, twin.status != .held,
            let leaves = order.leavesQty
        else { return }
        let newQty = twin.filledQty + leaves
        guard newQty != twin.qty else { return }
        releaseReservations(twinID)
        orders[twinID]?.qty = newQty
        reserve(twinID)
    }

    /// After an order ends: activate exits of a filled entry, cancel the exits of a failed one, cancel the twin
    /// of a finished exit.
    mutating func resolveGroup(after id: OrderID, at time: Timestamp) {
        guard orders.read(id, { $0.parentID != nil || !$0.legs.isEmpty || $0.orderClass == .oco }) == true,
            let order = orders[id]
        else { return }
        if order.orderClass == .mleg {
            resolvePackage(after: order, at: time)
            return
        }
        let isEntry = order.parentID == nil && !order.legs.isEmpty && order.orderClass != .oco
        if isEntry {
            for leg in order.legs {
                guard let legOrder = orders[leg], legOrder.status == .held else { continue }
                if order.status == .filled, let activated = legOrder.status.after(.new) {
                    orders[leg]?.qty = order.filledQty
                    orders[leg]?.status = activated
                    orders[leg]?.updatedAt = time
                    reserve(leg)
                    addToBook(leg)
                    publish(.new, leg, at: time)
                } else {
                    finish(leg, .canceled, reason: "entry order \(order.status.rawValue)", at: time)
                }
            }
            return
        }
        // An exit (or oco parent) ended: its twin goes too.
        guard let twinID = twin(of: order), orders[twinID]?.status.isOpen == true else { return }
        if order.parentID == nil && order.orderClass == .oco && order.status == .replaced { return }
        finish(
            twinID, .canceled, reason: "other side of the \(order.orderClass.rawValue) \(order.status.rawValue)",
            at: time)
    }
}
