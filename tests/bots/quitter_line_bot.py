"""A line-protocol bot that plays its lowest card, but exits with status 3 when asked for a row."""

from __future__ import annotations

import json
import sys

if __name__ == "__main__":
    for line in sys.stdin:
        request = json.loads(line).get("request")
        if request is None:
            continue
        if request["decision"] == "DECISION_ROW":
            print("a row? I quit", file=sys.stderr, flush=True)
            sys.exit(3)
        view = request["view"]
        cards = view["table"] if request["decision"] == "DECISION_DRAFT" else view["hand"]
        print(json.dumps({"request_id": request["request_id"], "card": cards[0]}), flush=True)
