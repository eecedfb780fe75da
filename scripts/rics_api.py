"""What the scripts that drive a running rics share (benchmarks and crash tests): JSON
calls with a bearer token, a client-credentials token, starting `rics serve` and waiting
until it is ready, a webhook receiver, and the server's RFC 3339 times as Unix seconds."""
import base64
import json
import subprocess
import threading
import time
import urllib.error
import urllib.request
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Api:
    """The API at `base` (`http://host:port`)."""

    def __init__(self, base):
        self.base = base

    def call(self, method, path, body=None, token=None, expect_ok=True, timeout=60):
        """The JSON answer of `method path` with `body`; an answer that is no 2xx ends the
        script naming the call, or gives None when `expect_ok` is false."""
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, method=method)
        request.add_header("Content-Type", "application/json")
        if token:
            request.add_header("Authorization", "Bearer " + token)
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                return json.loads(response.read() or b"{}")
        except urllib.error.HTTPError as error:
            if expect_ok:
                raise SystemExit(f"{method} {path}: {error.code} {error.read()[:500]!r}")
            return None

    def token(self, client_id, client_secret):
        """An access token of the client `client_id` (client credentials)."""
        request = urllib.request.Request(self.base + "/oauth2/token", data=b"grant_type=client_credentials", method="POST")
        request.add_header("Content-Type", "application/x-www-form-urlencoded")
        basic = base64.b64encode(f"{client_id}:{client_secret}".encode()).decode()
        request.add_header("Authorization", "Basic " + basic)
        with urllib.request.urlopen(request, timeout=60) as response:
            return json.loads(response.read())["access_token"]

    def start(self, binary, log_path):
        """Starts `binary serve` (its settings from the environment), its output appended
        to `log_path`, and returns the process once /readyz answers."""
        log = open(log_path, "a")
        server = subprocess.Popen([binary, "serve"], stdout=log, stderr=log)
        for _ in range(300):
            try:
                urllib.request.urlopen(self.base + "/readyz", timeout=1)
                return server
            except OSError:
                time.sleep(0.1)
        server.kill()
        raise SystemExit(f"the server did not become ready; see {log_path}")


class _ReceiverServer(ThreadingHTTPServer):
    # The default listen backlog, 5, is less than the deliveries a worker sends at once
    # (16): the kernel drops the SYNs beyond it and the client sends them again 1 s later,
    # which made every batch of deliveries take a second.
    request_queue_size = 1024
    daemon_threads = True


def receive(on_message, path="/hooks"):
    """Starts a webhook receiver on 127.0.0.1 that calls `on_message(body, headers)` for
    each POST (the body as bytes) and answers 200, keeping connections open (HTTP/1.1)
    as a real receiver would. Returns the server (`shutdown()` stops it) and its URL."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self):
            on_message(self.rfile.read(int(self.headers.get("Content-Length", "0"))), self.headers)
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args):
            pass

    server = _ReceiverServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}{path}"


def when(text):
    """An RFC 3339 time of the server as Unix seconds."""
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()
