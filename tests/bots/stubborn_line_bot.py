"""A line-protocol bot that plays its lowest card, then stays running after its input ends."""

from __future__ import annotations

import json
import sys
import time

if __name__ == "__main__":
    for line in sys.stdin:
        request = json.loads(line).get("request")
        if request is None:
            continue
        view = request["view"]
        if request["decision"] == "DECISION_ROW":
            answer = {"request_id": request["request_id"], "row": 0}
        else:
            cards = view["table"] if request["decision"] == "DECISION_DRAFT" else view["hand"]
            answer = {"request_id": request["request_id"], "card": cards[0]}
        print(json.dumps(answer), flush=True)
    print("input ended, but I stay", file=sys.stderr, flush=True)
    time.sleep(120)
