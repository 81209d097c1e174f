"""Never connects: sleeps, or with the argument `exit` quits at once with status 2."""

from __future__ import annotations

import sys
import time

if __name__ == "__main__":
    if sys.argv[1:] == ["exit"]:
        print("giving up before connecting", flush=True)
        sys.exit(2)
    time.sleep(120)
