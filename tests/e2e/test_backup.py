"""`papertrade backup` while the server takes orders, then `papertrade restore` into a new data directory."""
import os
import re
import shutil
import subprocess
import tempfile
import threading

from alpaca.trading.client import TradingClient
from alpaca.trading.enums import QueryOrderStatus
from alpaca.trading.requests import GetOrdersRequest, LimitOrderRequest

from conftest import BINARY, Server


def limit_buy(client, price):
    return client.submit_order(LimitOrderRequest(symbol="KO", qty=1, side="buy", time_in_force="gtc",
                                                 limit_price=price))


def test_backup_under_load_restores_every_order_acknowledged_before_it(fresh_server):
    s = fresh_server
    client = TradingClient(s.key_id, s.secret, paper=True, url_override=s.url)
    before = [str(limit_buy(client, 1).id) for _ in range(20)]

    stop = threading.Event()
    during = []

    def keep_trading():
        while not stop.is_set():
            during.append(str(limit_buy(client, 2).id))

    trader = threading.Thread(target=keep_trading)
    trader.start()
    backup = os.path.join(tempfile.mkdtemp(prefix="papertrade-backup-"), "copy.sqlite")
    try:
        result = subprocess.run([BINARY, "backup", backup, "--data-dir", s.data_dir],
                                capture_output=True, text=True, timeout=60)
    finally:
        stop.set()
        trader.join()
    assert result.returncode == 0, result.stderr
    copied = int(re.search(r"(\d+) orders", result.stdout).group(1))
    assert len(before) <= copied <= len(before) + len(during)

    again = subprocess.run([BINARY, "backup", backup, "--data-dir", s.data_dir], capture_output=True, text=True)
    assert again.returncode != 0 and "already exists" in again.stderr, "a backup never overwrites a file"

    restored = Server()
    try:
        restored_dir = restored.data_dir
        result = subprocess.run([BINARY, "restore", backup, "--data-dir", restored_dir], capture_output=True, text=True)
        assert result.returncode == 0, result.stderr
        refused = subprocess.run([BINARY, "restore", backup, "--data-dir", restored_dir], capture_output=True, text=True)
        assert refused.returncode != 0 and "--force" in refused.stderr, "an existing database is replaced only on request"

        restored.start()
        copy = TradingClient(s.key_id, s.secret, paper=True, url_override=restored.url)
        orders = {str(o.id) for o in copy.get_orders(GetOrdersRequest(status=QueryOrderStatus.OPEN, limit=500))}
        assert len(orders) == copied
        assert set(before) <= orders, "every order acknowledged before the backup started is in it"
        assert orders <= set(before) | set(during)
        reserved = 20 * 1 + 2 * (copied - 20)
        account = copy.get_account()  # a margin account: open orders hold Reg T buying power (2 × equity)
        assert abs(float(account.buying_power) - (float(account.regt_buying_power) - reserved)) < 0.005
        assert float(account.regt_buying_power) == 200_000
    finally:
        restored.stop()
        shutil.rmtree(restored.data_dir, ignore_errors=True)
        shutil.rmtree(os.path.dirname(backup), ignore_errors=True)
