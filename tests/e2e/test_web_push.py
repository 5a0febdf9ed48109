"""Web Push against a real server: a local HTTP receiver plays the push service, decrypts each message with the
subscription's private key (http-ece, RFC 8291 aes128gcm) and checks the VAPID JWT (RFC 8292) like a push service."""
import base64
import json
import os
import time

import http_ece
import pytest
import requests
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

from conftest import Server
from receiver import Receiver


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class Browser:
    """What a browser keeps for one push subscription: its P-256 key pair and 16-byte auth secret."""

    def __init__(self, endpoint):
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.auth = os.urandom(16)
        self.endpoint = endpoint

    def subscription(self):
        public = self.key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
        return {"endpoint": self.endpoint, "expirationTime": None,
                "keys": {"p256dh": b64url(public), "auth": b64url(self.auth)}}

    def decrypt(self, body):
        return json.loads(http_ece.decrypt(body, private_key=self.key, auth_secret=self.auth, version="aes128gcm"))


def check_vapid(headers, server_key, endpoint):
    """What a push service does with `Authorization: vapid t=…, k=…` (RFC 8292 §3, §4)."""
    scheme, _, rest = headers["Authorization"].partition(" ")
    assert scheme == "vapid"
    params = dict(p.strip().split("=", 1) for p in rest.split(","))
    assert params["k"] == server_key, "k is the key the browser subscribed with"
    head, claims, signature = params["t"].split(".")
    assert json.loads(unb64url(head)) == {"typ": "JWT", "alg": "ES256"}
    claims = json.loads(unb64url(claims))
    origin = endpoint.split("/hooks")[0]
    assert claims["aud"] == origin
    assert time.time() < claims["exp"] <= time.time() + 24 * 3600
    assert claims["sub"].startswith("mailto:")
    raw = unb64url(signature)
    public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64url(server_key))
    der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    public.verify(der, f"{head}.{params['t'].split('.')[1]}".encode(), ec.ECDSA(hashes.SHA256()))


@pytest.fixture
def session(server):
    s = requests.Session()
    s.base = server.url + "/api/v1"
    r = s.post(s.base + "/auth/login", json={"username": "demo", "password": server.password})
    assert r.status_code == 200, r.text
    yield s
    for sub in s.get(s.base + "/push/subscriptions").json():
        s.delete(f"{s.base}/push/subscriptions/{sub['id']}")
    for alert in s.get(s.base + "/alerts").json():
        s.delete(f"{s.base}/alerts/{alert['id']}")


def wait_for(predicate, timeout=60):
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError("timed out")


def test_an_alert_reaches_a_subscribed_device_encrypted_and_signed(session):
    receiver = Receiver(default=201)
    try:
        browser = Browser(receiver.url)
        key = session.get(session.base + "/push/vapid-public-key").json()["public_key"]
        assert len(unb64url(key)) == 65 and unb64url(key)[0] == 4, "an uncompressed P-256 point"
        r = session.post(session.base + "/push/subscriptions", json=browser.subscription(),
                         headers={"User-Agent": "e2e-phone"})
        assert r.status_code == 201, r.text
        assert r.json()["push_service"] == receiver.url.split("/hooks")[0] and r.json()["user_agent"] == "e2e-phone"

        r = session.post(session.base + "/alerts", json={
            "symbol": "AAPL", "condition": "greater_than", "value": "0.01", "message": "from the e2e test"})
        assert r.status_code == 201 and r.json()["trigger_count"] == 1, r.text

        headers, body = receiver.wait(1)[0]
        assert headers["Content-Encoding"] == "aes128gcm"
        assert headers["TTL"] == "86400" and headers["Urgency"] == "high"
        check_vapid(headers, key, receiver.url)
        message = browser.decrypt(body)
        assert message["kind"] == "alert" and message["url"] == "#/alerts"
        assert message["title"] == "AAPL alert"
        assert message["body"].startswith("AAPL is above $0.01 and is at $") and "from the e2e test" in message["body"]
        notifications = session.get(session.base + "/notifications").json()["notifications"]
        assert message["notification_id"] in [n["id"] for n in notifications], "the same notification as in the app"

        deliveries = wait_for(lambda: [d for d in session.get(session.base + "/push/deliveries").json()
                                       if d["status"] == "delivered"])
        assert deliveries[0]["type"] == "alert" and deliveries[0]["last_status"] == 201
    finally:
        receiver.close()


def test_a_busy_push_service_is_retried_and_a_gone_subscription_is_removed(session):
    busy = Receiver(statuses=[503], default=201)
    gone = Receiver(default=410)
    try:
        phone, tablet = Browser(busy.url), Browser(gone.url)
        for device in (phone, tablet):
            assert session.post(session.base + "/push/subscriptions", json=device.subscription()).status_code == 201
        r = session.post(session.base + "/push/test")
        assert r.status_code == 202 and r.json()["devices"] == 2

        first, second = busy.wait(2)
        assert phone.decrypt(first[1]) == phone.decrypt(second[1]), "the same message, encrypted afresh"
        assert phone.decrypt(second[1])["kind"] == "test"
        gone.wait(1)
        subscriptions = wait_for(lambda: (lambda subs: subs if len(subs) == 1 else None)(
            session.get(session.base + "/push/subscriptions").json()))
        assert subscriptions[0]["push_service"] == busy.url.split("/hooks")[0], "the 410 one was removed"

        deliveries = {d["subscription_id"]: d for d in session.get(session.base + "/push/deliveries").json()}
        ok = next(d for d in deliveries.values() if d["subscription_id"] == subscriptions[0]["id"])
        wait_for(lambda: next(d for d in session.get(session.base + "/push/deliveries").json()
                              if d["id"] == ok["id"])["status"] == "delivered")
        removed = next(d for d in deliveries.values() if d["subscription_id"] != subscriptions[0]["id"])
        assert removed["status"] == "failed" and removed["last_status"] == 410
        assert "gone" in removed["last_error"]
    finally:
        busy.close()
        gone.close()


def test_bad_subscriptions_are_a_clear_error(session):
    good = Browser("http://127.0.0.1:9/push").subscription()
    cases = [
        ({**good, "endpoint": "ftp://example.com/x"}, "endpoint must be an http or https URL"),
        ({**good, "keys": {"auth": good["keys"]["auth"]}}, "keys.p256dh"),
        ({**good, "keys": {**good["keys"], "p256dh": b64url(b"\x04" + b"\x01" * 64)}}, "keys.p256dh"),
        ({**good, "keys": {**good["keys"], "auth": b64url(b"short")}}, "keys.auth"),
        ({"keys": good["keys"]}, "endpoint must be"),
    ]
    for body, message in cases:
        r = session.post(session.base + "/push/subscriptions", json=body)
        assert r.status_code == 422 and message in r.json()["message"], (body, r.text)
    assert session.post(session.base + "/push/test").status_code == 404, "no device to test"
    assert requests.post(session.base + "/push/subscriptions", json=good).status_code == 401


def test_a_server_refuses_http_and_private_push_endpoints_unless_allowed():
    s = Server(allow_local_endpoints=False).start()
    try:
        session = requests.Session()
        base = s.url + "/api/v1"
        assert session.post(base + "/auth/login", json={"username": "demo", "password": s.password}).status_code == 200
        for endpoint, message in [("http://push.example.com/x", "endpoint must be an https URL"),
                                  ("https://127.0.0.1/x", "private or reserved address"),
                                  ("https://169.254.169.254/x", "private or reserved address")]:
            r = session.post(base + "/push/subscriptions", json=Browser(endpoint).subscription())
            assert r.status_code == 422 and message in r.json()["message"], r.text
            assert "--allow-local-endpoints" in r.json()["message"]
        assert session.get(base + "/push/subscriptions").json() == []
    finally:
        s.stop()
