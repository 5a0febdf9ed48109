"""A papertrade server for a benchmark script: a fresh data directory, one user with a US account and an API key,
the always-open clock and no rate limit, started from the binary given and answering /healthz before it returns."""
import json
import socket
import subprocess
import tempfile
import time
import urllib.request


class BenchServer:
    def __init__(self, binary, password="bench-server-password"):
        self.binary = binary
        self.work = tempfile.mkdtemp()
        self.admin("create-user", "bench", "--password-stdin", stdin=password + "\n")
        account = json.loads(self.admin("create-account", "bench", "--market", "us"))["account_id"]
        self.key = json.loads(self.admin("create-key", account))
        self.headers = {"APCA-API-KEY-ID": self.key["key_id"], "APCA-API-SECRET-KEY": self.key["secret_key"]}
        listener = socket.socket()
        listener.bind(("127.0.0.1", 0))
        self.port = listener.getsockname()[1]
        listener.close()
        self.process = subprocess.Popen(
            [binary, "serve", "--port", str(self.port), "--clock", "always-open", "--rate-limit", "0",
             "--data-dir", self.work], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.base = f"http://127.0.0.1:{self.port}"
        for _ in range(600):
            try:
                urllib.request.urlopen(self.base + "/healthz", timeout=1)
                break
            except OSError:
                time.sleep(0.1)

    def admin(self, *args, stdin=None):
        return subprocess.run([self.binary, "admin", *args, "--data-dir", self.work], input=stdin,
                              capture_output=True, text=True, check=True).stdout

    def get(self, path, timeout=600):
        """The body of an authenticated GET."""
        return urllib.request.urlopen(urllib.request.Request(self.base + path, headers=self.headers),
                                      timeout=timeout).read()

    def stop(self):
        self.process.terminate()
        self.process.wait()
