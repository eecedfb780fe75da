"""What the scripts that drive a running rics share (benchmarks and crash tests): JSON
calls with a bearer token, a client-credentials token, starting `rics serve` and waiting
until it is ready, and the server's RFC 3339 times as Unix seconds."""
import base64
import json
import subprocess
import time
import urllib.error
import urllib.request
from datetime import datetime


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


def when(text):
    """An RFC 3339 time of the server as Unix seconds."""
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()
