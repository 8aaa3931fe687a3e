"""`python3 -m emote_sim [ADDRESS [ROLE]]`: an interactive session. Reads requests as JSON lines
from stdin (the hello is sent for you) and prints every line the server sends."""

import json
import sys
import threading
import time

from ._common import DEFAULT_ADDRESS
from .client import Client


def main(argv):
    address = argv[1] if len(argv) > 1 else DEFAULT_ADDRESS
    role = argv[2] if len(argv) > 2 else "controller"
    c = Client(address, role=role, client="emote_sim/interactive")
    print(json.dumps(c.welcome), flush=True)

    def pump():
        try:
            while True:
                line = c._read_line(3600)
                if line is None and c._sock is None:
                    break
                if line is not None:
                    print(line, flush=True)
        except OSError:
            pass

    t = threading.Thread(target=pump, daemon=True)
    t.start()
    for line in sys.stdin:
        if line.strip():
            c.send_raw(line.strip())
    time.sleep(0.5)
    c.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
