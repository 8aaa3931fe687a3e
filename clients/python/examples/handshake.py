#!/usr/bin/env python3
"""Two players shaking hands on an emote-sim server (docs/guide/bots.md).

    python3 clients/python/examples/handshake.py --connect 127.0.0.1:25580

Two players join 1.2 blocks apart, facing each other, at a spot of their own. The first starts a
two-player Sequence (an offer; its reply says role "initiator"), a few ticks later the second
requests the same emote and becomes the partner (role "partner"); the server then reports
partner.reserved and partner.matched. The bot prints its players' playback./partner. events with
their ticks and exits 0 once the match happened and both playbacks ended (1 if not). Safe on a
shared server: it hears only about its own players and makes them leave at the end.
"""

import json
import sys

from _bot import Client, EmoteSimError, arguments, join, run


def main():
    args = arguments(__doc__,
                     emote=dict(default=None, help="two-player Sequence id (default: the first one)"),
                     ticks=dict(type=int, default=400, help="how long to watch after the offer"),
                     names=dict(default=None, help="the two player names, comma-separated"))
    initiator, partner = (args.names or f"alice-{args.tag},bob-{args.tag}").split(",", 1)

    c = Client(args.connect, token=args.token, client="handshake.py/2")
    emote = args.emote
    if emote is None:
        pairs = [e["id"] for e in c.list_emotes() if e["two_player"]]
        if not pairs:
            print("the server has no two-player emote", file=sys.stderr)
            return 1
        emote = pairs[0]
    print(f"connected to {c.welcome['server']} ({c.welcome['clock']} clock); emote {emote}", flush=True)

    # Facing each other: yaw 0 looks towards +z, yaw 180 towards -z.
    x, y, z = args.origin
    a = join(c, initiator, position=[x, y, z], yaw=0)
    try:
        b = join(c, partner, position=[x, y, z + 1.2], yaw=180)
    except SystemExit:
        a.leave()
        raise
    c.subscribe(events=["playback.", "partner."], players="own")
    c.on(lambda e: True, lambda e, frame: print(f"tick {frame['tick']}: {json.dumps(e)}", flush=True))

    try:
        print(f"{initiator}: {a.play(emote)}", flush=True)
        c.wait_ticks(5)
        print(f"{partner}: {b.play(emote)}", flush=True)
        c.wait_for("partner.matched", ticks=60)
        finished = set()
        while len(finished) < 2:
            finished.add(c.wait_for("playback.stopped", ticks=args.ticks)["player"])
        ok = True
    except EmoteSimError as e:
        print(f"refused: {e}", file=sys.stderr)
        ok = False
    except TimeoutError as e:
        print(f"no match: {e}", file=sys.stderr)
        ok = False
    for p in (a, b):
        p.leave()
    c.close()
    print("matched" if ok else "no match", flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    run(main)
