"""A line-protocol bot that answers in prose: 'I play 17' instead of a JSON answer."""

from __future__ import annotations

import json
import sys

if __name__ == "__main__":
    for line in sys.stdin:
        request = json.loads(line).get("request")
        if request is not None:
            print(f"I play {request['view']['hand'][0]}", flush=True)
