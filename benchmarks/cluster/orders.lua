-- wrk script: durable order placements through HAProxy, spread over several accounts' keys (PT_KEYS is
-- "id:secret,id:secret,…"), so HAProxy's key hashing sends them to every node and most land on a node that does
-- not serve the account (one forward). Resting limit buys far below the market: each one journals, none fills.
local keys = {}
for pair in string.gmatch(os.getenv("PT_KEYS"), "[^,]+") do
    local id, secret = string.match(pair, "([^:]+):(.+)")
    table.insert(keys, { id, secret })
end
local n = 0
local body = '{"symbol":"KO","qty":1,"side":"buy","type":"limit","limit_price":"1.00","time_in_force":"gtc"}'
request = function()
    n = n + 1
    local key = keys[(n % #keys) + 1]
    return wrk.format("POST", "/v2/orders", {
        ["Content-Type"] = "application/json", ["APCA-API-KEY-ID"] = key[1], ["APCA-API-SECRET-KEY"] = key[2],
    }, body)
end
