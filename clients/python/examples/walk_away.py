#!/usr/bin/env python3
"""Walk away to break the emote (docs/guide/bots.md).

    python3 clients/python/examples/walk_away.py --connect 127.0.0.1:25580

A player joins at a spot of its own, plays a looping emote (sample:wave), lets it run for a second
and then steps one block aside. The emote's stop conditions end it with reason MOVED; the bot waits
for its own playback.stopped and exits 0 when the reason is the expected one, 1 otherwise.
"""

import sys

from _bot import Client, arguments, join, run


def main():
    args = arguments(__doc__,
                     emote=dict(default="sample:wave", help="an emote that stops when the player moves"),
                     expect=dict(default="MOVED", help="the stop reason to expect"))
    c = Client(args.connect, token=args.token, client="walk_away.py/1")
    x, y, z = args.origin
    me = join(c, f"walker-{args.tag}", position=[x, y, z], yaw=0)
    c.subscribe(events=["playback."], players="own")
    started = me.play(args.emote)
    print(f"playing {started['emote']} (session {started['session']})", flush=True)
    c.wait_ticks(20)
    me.update(position=[x + 1.0, y, z])
    stopped = me.wait_for("playback.stopped", ticks=5)
    me.leave()
    c.close()
    print(f"stopped: {stopped['reason']}", flush=True)
    if stopped["reason"] != args.expect:
        print(f"expected {args.expect}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    run(main)
