"""`papertrade queue add|list|cancel` against a running server, with the demo account's API key."""
import os
import subprocess

from conftest import BINARY


def queue(server, *args):
    env = dict(os.environ, PAPERTRADE_URL=server.url, APCA_API_KEY_ID=server.key_id, APCA_API_SECRET_KEY=server.secret)
    return subprocess.run([BINARY, "queue", *args], env=env, capture_output=True, text=True, timeout=60)


def test_queue_add_list_cancel(server):
    waiting = queue(server, "add", "MSFT", "--qty", "2", "--when", "price>=1000000", "--until", "2099-12-31")
    assert waiting.returncode == 0, waiting.stderr
    rule_id, status = waiting.stdout.split()[:2]
    assert status == "queued"
    assert "trigger 1000000" in waiting.stdout

    # A condition that already holds fires at once: the order is placed and the rule shows its order id.
    fired = queue(server, "add", "MSFT", "--qty", "1", "--when", "price>=1")
    assert fired.returncode == 0, fired.stderr
    assert fired.stdout.split()[1] == "fired" and "order_id" in fired.stdout

    listed = queue(server, "list")
    assert listed.stdout.split()[0] == rule_id and len(listed.stdout.strip().splitlines()) == 1

    canceled = queue(server, "cancel", rule_id)
    assert canceled.returncode == 0 and canceled.stdout.split()[1] == "canceled"
    assert queue(server, "list").stdout.strip() == "The queue is empty."
    history = queue(server, "list", "--history").stdout
    assert "canceled" in history and "fired" in history

    # Wrong market, unknown condition, a canceled rule: clear errors, non-zero exit.
    wrong = queue(server, "add", "600519", "--qty", "100", "--when", "limit-up")
    assert wrong.returncode != 0 and "A-share market" in wrong.stderr
    bad = queue(server, "add", "MSFT", "--qty", "1", "--when", "soon")
    assert bad.returncode != 0 and "unknown condition" in bad.stderr
    again = queue(server, "cancel", rule_id)
    assert again.returncode != 0 and "404" in again.stderr
