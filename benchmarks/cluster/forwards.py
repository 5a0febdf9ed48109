"""Forwards per request through the front (prints figures, asserts nothing): 12 Alpaca keys × 20 requests each
through HAProxy on clusters of 2 and 3 nodes (scripts/cluster.sh), first as deploy/haproxy.cfg routes them — to the
node the key's last answer named (Papertrade-Shard-Owner) — then with that routing taken out of the configuration
(consistent hashing by key alone), counted from the nodes' papertrade_cluster_forwards_total.

    .build/e2e-venv/bin/python benchmarks/cluster/forwards.py      (the e2e suite's venv: requests, alpaca-py)
"""
import os
import re
import subprocess
import sys
import time

import requests

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tests", "e2e"))
from test_cluster import Cluster, forwards, new_trader  # noqa: E402  (the suite's cluster helpers)


def restart_front_without_routing(cluster):
    path = os.path.join(cluster.dir, "haproxy.cfg")
    text = re.sub(r"    use-server .*\n", "", open(path).read())
    open(path, "w").write(text)
    subprocess.run(["kill", open(os.path.join(cluster.dir, "haproxy.pid")).read().strip()], check=True)
    time.sleep(0.5)
    subprocess.run(["haproxy", "-f", path, "-D", "-p", os.path.join(cluster.dir, "haproxy.pid")], check=True,
                   stderr=subprocess.DEVNULL)
    for _ in range(100):
        try:
            if requests.get(f"{cluster.front}/readyz", timeout=1).ok:
                return
        except requests.RequestException:
            time.sleep(0.1)


for nodes in (2, 3):
    cluster = Cluster(nodes)
    try:
        for mode in ("to the owner", "hashing by key alone"):
            if mode == "hashing by key alone":
                restart_front_without_routing(cluster)
            keys = [new_trader(cluster.front) for _ in range(12)]
            before, sent = forwards(cluster), 0
            for key_id, secret in keys:
                for _ in range(20):
                    r = requests.get(f"{cluster.front}/v2/account", timeout=30,
                                     headers={"APCA-API-KEY-ID": key_id, "APCA-API-SECRET-KEY": secret})
                    r.raise_for_status()
                    sent += 1
            forwarded = forwards(cluster) - before
            print(f"{nodes} nodes, {mode}: {forwarded:.0f} forwards / {sent} requests = {forwarded / sent:.1%}",
                  flush=True)
    finally:
        cluster.stop()
