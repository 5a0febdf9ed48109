"""alpaca-py's streams against papertrade: trade_updates (JSON) and market data (MessagePack, fragmented frames)."""
import threading
import time

from alpaca.data.live import StockDataStream
from alpaca.trading.client import TradingClient
from alpaca.trading.enums import OrderSide, TimeInForce
from alpaca.trading.requests import MarketOrderRequest
from alpaca.trading.stream import TradingStream


def wait_for(condition, timeout=60):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return False


def test_trade_updates_stream_delivers_fills(server):
    events = []
    stream = TradingStream(server.key_id, server.secret, paper=True, url_override=f"ws://127.0.0.1:{server.port}/stream")

    async def on_update(update):
        events.append(update)

    stream.subscribe_trade_updates(on_update)
    threading.Thread(target=stream.run, daemon=True).start()
    client = TradingClient(server.key_id, server.secret, paper=True, url_override=server.url)
    # Orders placed before the stream is listening are not replayed: keep placing until one arrives.
    order_ids = []

    def placed_and_seen():
        order_ids.append(str(client.submit_order(MarketOrderRequest(symbol="KO", qty=1, side=OrderSide.BUY,
                                                                     time_in_force=TimeInForce.DAY)).id))
        return any(e.event == "fill" and str(e.order.id) in order_ids for e in events)

    try:
        assert wait_for(placed_and_seen)
        fill = next(e for e in events if e.event == "fill")
        assert float(fill.qty) == 1 and float(fill.price) > 0
        assert fill.order.symbol == "KO" and float(fill.position_qty) >= 1
    finally:
        stream.stop()


def test_market_data_stream_quotes_trades_and_bars(server):
    quotes, trades = [], []
    stream = StockDataStream(server.key_id, server.secret, url_override=f"ws://127.0.0.1:{server.port}/v2/iex")

    async def on_quote(q):
        quotes.append(q)

    async def on_trade(t):
        trades.append(t)

    stream.subscribe_quotes(on_quote, "AAPL", "MSFT")
    stream.subscribe_trades(on_trade, "AAPL")
    threading.Thread(target=stream.run, daemon=True).start()
    try:
        assert wait_for(lambda: len({q.symbol for q in quotes}) == 2 and trades)
        q = quotes[0]
        assert q.ask_price > q.bid_price > 0
        assert q.timestamp.year >= 2026  # a msgpack Timestamp extension, decoded to a datetime
        assert trades[0].price > 0
    finally:
        stream.stop()
