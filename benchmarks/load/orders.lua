-- wrk script: durable order placements through the Alpaca API. Resting limit buys far below the market, so each
-- request validates, reserves buying power, journals (commits) and answers — nothing fills.
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["APCA-API-KEY-ID"] = os.getenv("PT_KEY")
wrk.headers["APCA-API-SECRET-KEY"] = os.getenv("PT_SECRET")
wrk.body = '{"symbol":"KO","qty":1,"side":"buy","type":"limit","limit_price":"1.00","time_in_force":"gtc"}'

local non200 = 0
response = function(status, headers, body)
  if status ~= 200 then non200 = non200 + 1 end
end

done = function(summary, latency, requests)
  io.write(string.format("non-200 responses: %d\n", summary.errors.status))
end
