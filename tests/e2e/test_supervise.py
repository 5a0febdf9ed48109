"""A server that dies of a signal comes back by itself: scripts/run.sh runs `papertrade serve` under
scripts/supervise.sh. The trap is simulated with SIGILL, the signal a Swift trap raises. (Swift's backtracer is off for
this server: it handles a signal sent with kill, prints the backtrace and lets the process go on, which a real trap
does not.) What was acknowledged before the crash is still there after it."""
import os
import signal
import subprocess
import time

import requests

from conftest import ROOT, Server

SUPERVISE = ["bash", os.path.join(ROOT, "scripts", "supervise.sh")]


def child_of(pid):
    out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout.split()
    return int(out[0]) if out else None


def wait_until(predicate, seconds=60):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if value := predicate():
            return value
        time.sleep(0.1)
    raise AssertionError("timed out")


def test_a_server_that_traps_is_started_again_with_nothing_acknowledged_lost():
    server = Server(wrapper=SUPERVISE, env={"SWIFT_BACKTRACE": "enable=no"}).start()
    try:
        headers = {"APCA-API-KEY-ID": server.key_id, "APCA-API-SECRET-KEY": server.secret}
        order = requests.post(f"{server.url}/v2/orders", headers=headers, json={
            "symbol": "AAPL", "qty": "2", "side": "buy", "type": "limit", "limit_price": "1.00",
            "time_in_force": "gtc"}).json()
        assert order["status"] in ("new", "accepted")
        first = wait_until(lambda: child_of(server.process.pid))

        os.kill(first, signal.SIGILL)
        wait_until(lambda: "died of SIGILL" in server.log())
        second = wait_until(lambda: child_of(server.process.pid) not in (None, first) and child_of(server.process.pid))
        assert second != first
        assert server.process.poll() is None, "the supervisor is still running"

        def answers():
            try:
                return requests.get(f"{server.url}/v2/orders/{order['id']}", headers=headers, timeout=2)
            except requests.ConnectionError:
                return None
        again = wait_until(answers)
        assert again.status_code == 200
        assert again.json()["status"] == order["status"] and again.json()["limit_price"] == order["limit_price"]

        # A stop asked for is a stop: SIGTERM reaches the server, which shuts down, and nothing is started again.
        server.process.send_signal(signal.SIGTERM)
        assert server.process.wait(timeout=30) == 0
        assert child_of(server.process.pid) is None
        assert server.log().count("died of SIG") == 1
    finally:
        if server.process.poll() is None:
            server.process.kill()
        child = child_of(server.process.pid)
        if child:
            os.kill(child, signal.SIGKILL)
