#!/usr/bin/env python3
"""Two players shaking hands on an emote-sim server (docs/guide/proxy-and-bots.md
"Bots and scenarios").

    python3 scripts/bot_handshake.py --connect 127.0.0.1:25580

alice and bob join 1.2 blocks apart, facing each other. alice starts a two-player Sequence (an
offer; her reply says role "initiator"), a few ticks later bob requests the same emote and becomes
her partner (role "partner"); the server then reports partner.reserved and partner.matched. The
bot prints every playback./partner. event with its tick and exits 0 once the match happened
(1 if it did not). On a manual-clock server it advances the clock itself.
"""

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from emote_sim_client import Client, EmoteSimError  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--connect", default="127.0.0.1:25580", help="HOST:PORT or unix:PATH")
    ap.add_argument("--token", default=None, help="controller token, if the server requires one")
    ap.add_argument("--emote", default=None, help="two-player Sequence id (default: the first one)")
    ap.add_argument("--seconds", type=float, default=20.0, help="how long to watch after the offer")
    ap.add_argument("--names", default="alice,bob", help="the two player names")
    args = ap.parse_args()
    initiator, partner = args.names.split(",", 1)

    c = Client(args.connect, token=args.token, client="bot_handshake.py/1")
    emote = args.emote
    if emote is None:
        pairs = [e["id"] for e in c.list_emotes() if e["two_player"]]
        if not pairs:
            print("the server has no two-player emote", file=sys.stderr)
            return 1
        emote = pairs[0]
    print(f"connected to {c.welcome['server']} ({c.welcome['clock']} clock); emote {emote}", flush=True)
    c.subscribe(events=["playback.", "partner."])

    # Facing each other: yaw 0 looks towards +z, yaw 180 towards -z.
    c.join(initiator, position=[0.5, 64, 0.5], yaw=0)
    c.join(partner, position=[0.5, 64, 1.7], yaw=180)

    def advance(ticks):
        if c.manual_clock:
            c.step(ticks)
        else:
            time.sleep(ticks / 20)

    try:
        first = c.play(initiator, emote)
        print(f"{initiator}: {first}", flush=True)
        advance(5)
        second = c.play(partner, emote)
        print(f"{partner}: {second}", flush=True)
    except EmoteSimError as e:
        print(f"refused: {e}", file=sys.stderr)
        return 1

    matched = False
    finished = set()
    deadline = time.monotonic() + args.seconds
    while time.monotonic() < deadline and len(finished) < 2:
        if c.manual_clock:
            c.step(20)
        for tick, e in c.events(timeout=0.05 if c.manual_clock else 1.0):
            print(f"tick {tick}: {json.dumps(e)}", flush=True)
            if e["type"] == "partner.matched":
                matched = True
            elif e["type"] == "playback.stopped":
                finished.add(e["player"])
    c.close()
    print("matched" if matched else "no match", flush=True)
    return 0 if matched else 1


if __name__ == "__main__":
    sys.exit(main())
