"""Starts a real papertrade server (the built binary, fresh SQLite data directory) for the end-to-end tests."""
import os
import re
import shutil
import socket
import subprocess
import tempfile
import time

import requests
import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BINARY = os.environ.get("PAPERTRADE_BINARY", os.path.join(ROOT, ".build", "debug", "papertrade"))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """One `papertrade serve` process; `restart()` keeps its data directory."""

    def __init__(self, clock="always-open", rate_limit=0, allow_local_endpoints=True, env=None, wrapper=()):
        self.rate_limit = rate_limit
        # A command the server runs under (e.g. scripts/supervise.sh); `process` is then the wrapper's.
        self.wrapper = list(wrapper)
        self.env = env or {}
        # The webhook and push tests' receivers listen on http://127.0.0.1, which a real server refuses unless the
        # operator allows local endpoints.
        self.allow_local_endpoints = allow_local_endpoints
        self.data_dir = tempfile.mkdtemp(prefix="papertrade-e2e-")
        self.port = free_port()
        self.clock = clock
        self.process = None
        self.key_id = self.secret = self.password = None
        self.clock_key = None  # on --clock manual: the key that steps the clock (advance_clock)

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}"

    @property
    def log_path(self):
        return os.path.join(self.data_dir, "server.log")

    def log(self):
        with open(self.log_path, errors="replace") as f:
            return f.read()

    def start(self):
        # Output goes to a file (a pipe nobody reads could fill and stall the server); the log is kept for failures.
        log = open(self.log_path, "a")
        offset = log.tell()
        self.process = subprocess.Popen(
            # No request limit: the crash test and the streams drive far more than Alpaca's 200 requests a minute
            # (test_rate_limit.py runs a server with the limit on).
            self.wrapper + [BINARY, "serve", "--port", str(self.port), "--data-dir", self.data_dir, "--clock", self.clock,
             "--rate-limit", str(self.rate_limit)],
            # A 64 MB WAL (and 32 MB of free pages) instead of 256 MB: dozens of servers start in this suite.
            env={**os.environ, "PAPERTRADE_ALLOW_LOCAL_ENDPOINTS": "1" if self.allow_local_endpoints else "0",
                 "PAPERTRADE_WAL_LIMIT_MB": os.environ.get("PAPERTRADE_WAL_LIMIT_MB", "64"), **self.env},
            stdout=log, stderr=subprocess.STDOUT, text=True)
        deadline = time.time() + 60
        while time.time() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError("server exited:\n" + self.log())
            with open(self.log_path, errors="replace") as f:
                f.seek(offset)
                banner = f.read()
            if m := re.search(r"APCA-API-KEY-ID=(\S+) APCA-API-SECRET-KEY=(\S+)", banner):
                self.key_id, self.secret = m.group(1), m.group(2)
            if m := re.search(r"log in as demo / (\S+)", banner):
                self.password = m.group(1)
            if m := re.search(r"Authorization: Bearer (\S+)", banner):
                self.clock_key = m.group(1)
            if "serving on" in banner:
                break
            time.sleep(0.05)
        # Wait until the port answers.
        while time.time() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return self
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("server did not start listening")

    def advance_clock(self, seconds):
        """Steps a manual clock forward; the market's time it reads now."""
        r = requests.post(f"{self.url}/api/v1/clock/advance", json={"seconds": int(seconds)},
                          headers={"Authorization": f"Bearer {self.clock_key}"}, timeout=60)
        assert r.status_code == 200, r.text
        return r.json()["time"]

    def kill9(self):
        self.process.kill()
        self.process.wait()

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()

    def restart(self):
        self.stop()
        return self.start()


# What the Swift runtime writes when the process traps or crashes.
RUNTIME_FAILURE = re.compile(r"\*\*\* Signal \d+|Swift runtime failure|Fatal error:|Program crashed")


def runtime_failure(server):
    """The first lines of a runtime failure in the server's log, or None."""
    log = server.log()
    found = RUNTIME_FAILURE.search(log)
    if not found:
        return None
    return log[max(0, found.start() - 200):found.start() + 3000]


@pytest.fixture(scope="module")
def server():
    s = Server().start()
    yield s
    s.stop()
    shutil.rmtree(s.data_dir, ignore_errors=True)


@pytest.fixture(scope="module")
def driver():
    """Headless Chromium whose language is English (test_web_app_zh.py has its own, in Chinese)."""
    from browser import chromium  # Selenium is needed only by the browser tests
    d = chromium("en-US")
    yield d
    d.quit()


@pytest.fixture
def fresh_server():
    s = Server().start()
    yield s
    s.stop()
    shutil.rmtree(s.data_dir, ignore_errors=True)
