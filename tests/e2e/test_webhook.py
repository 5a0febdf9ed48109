"""Per-user webhooks against a real server and a real HTTP receiver: signed JSON bodies, retries, visible failures."""
import hashlib
import hmac
import http.server
import json
import socket
import threading
import time

import pytest
import requests

from conftest import Server, free_port
from receiver import Receiver


def verify(headers, body, secret):
    """What a receiver does: recompute the HMAC over "<t>.<body>" and compare in constant time."""
    parts = dict(p.split("=", 1) for p in headers["Papertrade-Signature"].split(","))
    expected = hmac.new(secret.encode(), parts["t"].encode() + b"." + body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, parts["v1"]) and abs(time.time() - int(parts["t"])) < 300


@pytest.fixture
def session(server):
    s = requests.Session()
    s.base = server.url + "/api/v1"
    r = s.post(s.base + "/auth/login", json={"username": "demo", "password": server.password})
    assert r.status_code == 200, r.text
    s.accounts = r.json()["accounts"]
    yield s
    s.delete(s.base + "/webhook")


def test_automatic_order_is_posted_signed_and_a_failed_attempt_is_retried(session):
    receiver = Receiver(statuses=[500])  # the first delivery fails once
    try:
        r = session.put(session.base + "/webhook", json={"url": receiver.url})
        assert r.status_code == 201, r.text
        secret = r.json()["secret"]
        assert secret.startswith("whsec_")
        assert "secret" not in session.get(session.base + "/webhook").json()["webhook"], "the secret is shown once"

        cn = next(a for a in session.accounts if a["market"] == "cn")
        r = session.post(f"{session.base}/accounts/{cn['id']}/queue", json={
            "symbol": "600519", "side": "buy", "qty": "100", "condition": {"type": "price_at_least", "value": "1"},
            "order_type": "market"})
        assert r.status_code == 201 and r.json()["status"] == "fired", r.text

        # fill, order placed automatically, queue empty: three notifications; the first POST gets a 500 and is retried ~5 s later.
        started = time.time()
        requests_seen = receiver.wait(4)
        kinds = [json.loads(body)["type"] for _, body in requests_seen]
        assert sorted(set(kinds)) == ["fill", "order_placed_automatically", "queue_empty"]
        for headers, body in requests_seen:
            assert headers["Content-Type"] == "application/json"
            assert verify(headers, body, secret), "signature must verify with the secret"
            event = json.loads(body)
            assert headers["Papertrade-Event"] == event["type"]
            assert headers["Papertrade-Delivery"] == event["id"]
        retried = [h["Papertrade-Delivery"] for h, _ in requests_seen]
        assert len(retried) - len(set(retried)) == 1, "one delivery was sent twice (same id)"
        assert time.time() - started >= 4.5, "the retry waits for its backoff"
        auto = next(json.loads(b) for _, b in requests_seen if json.loads(b)["type"] == "order_placed_automatically")
        assert "600519" in auto["data"]["body"] and auto["data"]["account_id"] == cn["id"]

        # The receiver has the request before papertrade has its answer: wait for the records to catch up.
        deadline = time.time() + 60
        while True:
            deliveries = session.get(session.base + "/webhook/deliveries").json()
            if all(d["status"] == "delivered" for d in deliveries) or time.time() > deadline:
                break
            time.sleep(0.1)
        by_id = {d["id"]: d for d in deliveries}
        twice = by_id[next(i for i in retried if retried.count(i) == 2)]
        assert twice["status"] == "delivered" and twice["attempts"] == 2 and twice["last_status"] == 200
        assert all(d["status"] == "delivered" for d in deliveries)
    finally:
        receiver.close()


def test_an_unreachable_webhook_shows_its_failure_and_keeps_retrying(session):
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{s.getsockname()[1]}/nothing"
    r = session.put(session.base + "/webhook", json={"url": dead})
    assert r.status_code == 201
    r = session.post(session.base + "/webhook/ping")
    assert r.status_code == 202
    ping = r.json()["id"]
    deadline = time.time() + 60
    while time.time() < deadline:
        d = next(d for d in session.get(session.base + "/webhook/deliveries").json() if d["id"] == ping)
        if d["attempts"] >= 1:
            break
        time.sleep(0.2)
    assert d["type"] == "ping" and d["status"] == "pending" and d["attempts"] == 1
    assert d["last_error"].startswith("no answer") and d["last_status"] is None
    assert d["next_attempt_at"] is not None

    # Fixing the URL lets the pending retry through; the receiver sees the ping.
    receiver = Receiver()
    try:
        assert session.put(session.base + "/webhook", json={"url": receiver.url}).status_code == 200
        headers, body = receiver.wait(1)[0]
        assert json.loads(body)["type"] == "ping" and headers["Papertrade-Delivery"] == ping
    finally:
        receiver.close()


def test_bad_webhook_input_is_a_clear_error(session):
    for url in ["ftp://example.com/x", "not a url", "", "http://"]:
        r = session.put(session.base + "/webhook", json={"url": url})
        assert r.status_code == 422 and r.json()["message"] == "url must be an http or https URL"
    assert session.post(session.base + "/webhook/ping").status_code == 404
    assert requests.get(session.base + "/webhook").status_code == 401


def test_a_server_refuses_webhooks_to_plain_http_and_private_addresses_unless_allowed():
    s = Server(allow_local_endpoints=False).start()
    try:
        session = requests.Session()
        base = s.url + "/api/v1"
        assert session.post(base + "/auth/login", json={"username": "demo", "password": s.password}).status_code == 200
        for url in ["https://127.0.0.1:8080/hook", "https://localhost/hook", "https://169.254.169.254/latest/meta-data",
                    "https://10.0.0.7/hook", "https://[::1]/hook"]:
            r = session.put(base + "/webhook", json={"url": url})
            assert r.status_code == 422, (url, r.text)
            assert "private or reserved address" in r.json()["message"]
            assert "--allow-local-endpoints" in r.json()["message"]
        r = session.put(base + "/webhook", json={"url": "http://8.8.8.8/hook"})
        assert r.status_code == 422 and r.json()["message"].startswith("url must be an https URL")
        assert session.get(base + "/webhook").json().get("webhook") is None, "nothing was saved"
    finally:
        s.stop()


def test_a_redirect_is_not_followed(session):
    target = Receiver()

    class Redirecting(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            self.rfile.read(int(self.headers["Content-Length"]))
            self.send_response(307)
            self.send_header("Location", target.url)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args):
            pass

    redirector = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Redirecting)
    threading.Thread(target=redirector.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{redirector.server_address[1]}/hook"
        assert session.put(session.base + "/webhook", json={"url": url}).status_code in (200, 201)
        ping = session.post(session.base + "/webhook/ping").json()["id"]
        deadline = time.time() + 60
        delivery = None
        while time.time() < deadline:
            delivery = next(d for d in session.get(session.base + "/webhook/deliveries").json() if d["id"] == ping)
            if delivery["attempts"] >= 1:
                break
            time.sleep(0.1)
        assert delivery["attempts"] >= 1 and delivery["last_status"] == 307 and delivery["status"] == "pending"
        assert target.requests == [], "the redirect's target was never called"
    finally:
        redirector.shutdown()
        target.close()
