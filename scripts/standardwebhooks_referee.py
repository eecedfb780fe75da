#!/usr/bin/env python3
"""An independent Standard Webhooks implementation, the `standardwebhooks` package from
PyPI (1.1.0), as a referee for the webhook delivery tests
(tests/tests/api/webhook_deliveries.rs): it verifies the messages a test receiver got.
`make standardwebhooks-referee` installs it in target/standardwebhooks-venv.

Protocol: one JSON object per line on stdin, one JSON answer per line on stdout.
- {"op": "version"} -> {"version": "1.1.0"}
- {"op": "verify", "secret": "whsec_...", "headers": {name: value}, "body": base64 of
   the body as received} -> {"valid": true} when one of the `webhook-signature`
   signatures is the package's for that secret (and the timestamp is within its
   tolerance), else {"valid": false, "error": "..."}
"""

import base64
import json
import sys
from importlib.metadata import version

from standardwebhooks.webhooks import Webhook, WebhookVerificationError


def answer(request):
    if request.get("op") == "version":
        return {"version": version("standardwebhooks")}
    if request.get("op") == "verify":
        body = base64.b64decode(request["body"])
        try:
            Webhook(request["secret"]).verify(body, request["headers"], json_parse=False)
        except WebhookVerificationError as error:
            return {"valid": False, "error": str(error)}
        return {"valid": True}
    return {"error": f"unknown op in {request}"}


def main():
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            reply = answer(json.loads(line))
        except Exception as error:  # noqa: BLE001 - every failure is an answer
            reply = {"error": f"{type(error).__name__}: {error}"}
        print(json.dumps(reply), flush=True)


if __name__ == "__main__":
    main()
