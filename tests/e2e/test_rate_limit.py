"""Alpaca's request limit with the real alpaca-py client: headers on every answer, 429 past the limit."""
import requests

from conftest import Server


def test_rate_limit_headers_and_429_past_the_limit():
    server = Server(rate_limit=5).start()
    try:
        headers = {"APCA-API-KEY-ID": server.key_id, "APCA-API-SECRET-KEY": server.secret}
        answers = [requests.get(server.url + "/v2/account", headers=headers) for _ in range(5)]
        assert [a.status_code for a in answers] == [200] * 5
        assert [a.headers["X-Ratelimit-Remaining"] for a in answers] == ["4", "3", "2", "1", "0"]
        assert all(a.headers["X-Ratelimit-Limit"] == "5" for a in answers)
        reset = int(answers[0].headers["X-Ratelimit-Reset"])
        assert reset % 60 == 0
        over = requests.get(server.url + "/v2/orders", headers=headers)
        if over.status_code == 200:  # the minute turned over between the calls: use up the new window
            for _ in range(5):
                over = requests.get(server.url + "/v2/orders", headers=headers)
        assert over.status_code == 429
        assert over.json() == {"code": 42910000, "message": "too many requests"}
        assert int(over.headers["Retry-After"]) >= 1
        # Errors count and carry the headers too; /healthz is not limited.
        missing = requests.get(server.url + "/v2/orders/not-an-order", headers=headers)
        assert missing.status_code == 429 and "X-Ratelimit-Reset" in missing.headers
        assert requests.get(server.url + "/healthz").status_code == 200
    finally:
        server.stop()
