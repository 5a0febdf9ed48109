"""A local HTTP endpoint for the webhook and Web Push tests: records every POST, answers with given statuses."""
import http.server
import threading
import time

from requests.structures import CaseInsensitiveDict


class Receiver:
    """A local HTTP endpoint that records every POST and answers with the statuses it is told to, in order."""

    def __init__(self, statuses=(), default=200):
        self.requests = []
        self.statuses = list(statuses)
        self.default = default
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                receiver.requests.append((CaseInsensitiveDict(self.headers.items()), body))
                status = receiver.statuses.pop(0) if receiver.statuses else receiver.default
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hooks/papertrade"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def wait(self, count, timeout=60):
        deadline = time.time() + timeout
        while time.time() < deadline and len(self.requests) < count:
            time.sleep(0.05)
        assert len(self.requests) >= count, f"{len(self.requests)} of {count} requests arrived"
        return self.requests

    def close(self):
        self.server.shutdown()
