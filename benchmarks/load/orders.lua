-- wrk script: durable order placements through the Alpaca API. Resting limit buys far below the market, so each
-- request validates, reserves buying power, journals (commits) and answers — nothing fills. No response callback:
-- wrk counts non-2xx answers itself, and a Lua call per response would take CPU from the server on shared cores.
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["APCA-API-KEY-ID"] = os.getenv("PT_KEY")
wrk.headers["APCA-API-SECRET-KEY"] = os.getenv("PT_SECRET")
wrk.body = '{"symbol":"KO","qty":1,"side":"buy","type":"limit","limit_price":"1.00","time_in_force":"gtc"}'
