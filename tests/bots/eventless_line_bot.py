"""A line-protocol bot that takes every line for a request: the first event crashes it."""

from __future__ import annotations

import json
import sys

if __name__ == "__main__":
    for line in sys.stdin:
        request = json.loads(line)["request"]
        answer = {"request_id": request["request_id"], "card": request["view"]["hand"][0]}
        print(json.dumps(answer), flush=True)
