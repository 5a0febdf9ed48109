-- wrk script: durable crypto order placements through the Alpaca API, as orders.lua places stock orders. Resting limit
-- buys of 0.001 BTC/USD at $1,000 (far below the market, good until canceled as a pair's orders are), so each request
-- validates the pair's steps, reserves the cash, journals (commits) and answers — nothing fills.
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["APCA-API-KEY-ID"] = os.getenv("PT_KEY")
wrk.headers["APCA-API-SECRET-KEY"] = os.getenv("PT_SECRET")
wrk.body = '{"symbol":"BTC/USD","qty":"0.001","side":"buy","type":"limit","limit_price":"1000","time_in_force":"gtc"}'
