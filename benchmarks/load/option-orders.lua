-- wrk script: durable option order placements through the Alpaca API, as orders.lua places stock orders. Resting
-- limit buys of one contract (PT_OPTION, an in-the-money call: its bid is far above $0.01) at $0.01, so each request
-- validates the option rules and the account's level, reserves the premium, journals (commits) and answers.
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["APCA-API-KEY-ID"] = os.getenv("PT_KEY")
wrk.headers["APCA-API-SECRET-KEY"] = os.getenv("PT_SECRET")
wrk.body = '{"symbol":"' .. os.getenv("PT_OPTION") .. '","qty":1,"side":"buy","type":"limit","limit_price":"0.01",'
    .. '"time_in_force":"day","position_intent":"buy_to_open"}'
