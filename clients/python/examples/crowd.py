#!/usr/bin/env python3
"""A crowd of players playing random emotes on an emote-sim server (docs/guide/bots.md).

    python3 clients/python/examples/crowd.py --connect 127.0.0.1:25580 --players 20 --seconds 30

Joins PLAYERS players on a grid (3 blocks apart, so no two-player matches happen by accident) at a
spot of its own, then every half second (10 ticks) each player starts a random standalone emote
with probability --rate, and now and then jumps (which stops emotes that stop on jump). Safe on a
shared server: it hears only about its own players (subscribe `players`), stops only their emotes
and makes them leave at the end. At the end it prints what happened: plays accepted, refusals by
error code, playbacks started and stopped by reason. Works on either clock.
"""

import collections
import sys

from _bot import Client, EmoteSimError, arguments, join, run


def main():
    args = arguments(__doc__,
                     players=dict(type=int, default=20),
                     seconds=dict(type=float, default=30.0, help="how long to play (game time)"),
                     rate=dict(type=float, default=0.2, help="chance per player per round to play"),
                     include_two_player=dict(action="store_true",
                                             help="also pick two-player Sequences (they will mostly time out)"))
    rng = args.rng
    c = Client(args.connect, token=args.token, client="crowd.py/2")
    print(f"connected: {c.welcome['server']}, tick {c.welcome['tick']}, clock {c.welcome['clock']}, "
          f"{c.welcome['emotes']} emotes", flush=True)
    emotes = [e["id"] for e in c.list_emotes()
              if e["standalone"] and (args.include_two_player or not e["two_player"])]
    if not emotes:
        print("the server has no standalone emotes to play", file=sys.stderr)
        return 1

    side = max(1, int(args.players ** 0.5 + 0.999))
    x0, y0, z0 = args.origin
    players = []
    try:
        for i in range(args.players):
            players.append(join(c, f"crowd{i}-{args.tag}",
                                position=[x0 + (i % side) * 3.0, y0, z0 + (i // side) * 3.0],
                                yaw=rng.uniform(-180, 180)))
    except SystemExit:
        for p in players:
            p.leave()
        raise
    c.subscribe(events=["playback."], players="own")

    started = 0
    stopped = collections.Counter()

    def count(e):
        nonlocal started
        if e["type"] == "playback.started":
            started += 1
        else:
            stopped[e["reason"]] += 1

    c.on("playback.", lambda e, frame: count(e))
    accepted = 0
    refused = collections.Counter()
    c.on("reply.error", lambda err: refused.update([err.code]))

    for _ in range(max(1, int(args.seconds * 2))):
        pending = []
        for p in players:
            roll = rng.random()
            if roll < args.rate:
                pending.append(c.send_request("emote.play", player=p.name, emote=rng.choice(emotes)))
            elif roll < args.rate + 0.02:
                c.send("player.event", player=p.name, event="jump")
        for rid in pending:
            reply = c.wait_reply(rid)
            if reply["ok"]:
                accepted += 1
            else:
                refused[reply["error"]["code"]] += 1
        c.wait_ticks(10)

    # Only our own players' emotes: never emote.stop_all on a shared server.
    stopped_now = 0
    for p in players:
        try:
            p.stop()
            stopped_now += 1
        except EmoteSimError as e:
            if e.code != "not_playing":
                raise
    c.wait_ticks(1)
    for p in players:
        p.leave()
    c.close()
    print(f"plays accepted: {accepted}")
    print(f"plays refused: {dict(refused) or 0}")
    print(f"playbacks started: {started}")
    print(f"playbacks stopped: {dict(stopped)} (stopped at the end: {stopped_now})")
    if started != sum(stopped.values()):
        print(f"error: {started} started but {sum(stopped.values())} stopped", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    run(main)
