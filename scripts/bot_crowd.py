#!/usr/bin/env python3
"""A crowd of players playing random emotes on an emote-sim server
(docs/guide/proxy-and-bots.md "Bots and scenarios").

    python3 scripts/bot_crowd.py --connect 127.0.0.1:25580 --players 20 --seconds 30

Joins PLAYERS players on a grid (3 blocks apart, so no two-player matches happen by accident),
then every half second (10 ticks) each player starts a random standalone emote with probability
--rate, and now and then jumps (which stops emotes that stop on jump). On a manual-clock server
the bot advances the clock itself. At the end it prints what happened: plays accepted, refusals by
error code, playbacks started and stopped by reason. Python 3 standard library only.
"""

import argparse
import collections
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from emote_sim_client import Client, EmoteSimError  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--connect", default="127.0.0.1:25580", help="HOST:PORT or unix:PATH")
    ap.add_argument("--token", default=None, help="controller token, if the server requires one")
    ap.add_argument("--players", type=int, default=20)
    ap.add_argument("--seconds", type=float, default=30.0, help="how long to play (game time)")
    ap.add_argument("--rate", type=float, default=0.2, help="chance per player per round to play")
    ap.add_argument("--seed", type=int, default=None, help="random seed for the bot's choices")
    ap.add_argument("--prefix", default="crowd", help="player name prefix")
    ap.add_argument("--include-two-player", action="store_true",
                    help="also pick two-player Sequences (they will mostly time out)")
    args = ap.parse_args()
    rng = random.Random(args.seed)

    c = Client(args.connect, token=args.token, client="bot_crowd.py/1")
    print(f"connected: {c.welcome['server']}, tick {c.welcome['tick']}, clock {c.welcome['clock']}, "
          f"{c.welcome['emotes']} emotes", flush=True)
    emotes = [e["id"] for e in c.list_emotes()
              if e["standalone"] and (args.include_two_player or not e["two_player"])]
    if not emotes:
        print("the server has no standalone emotes to play", file=sys.stderr)
        return 1
    c.subscribe(events=["playback."])

    players = [f"{args.prefix}{i}" for i in range(args.players)]
    side = max(1, int(len(players) ** 0.5 + 0.999))
    for i, p in enumerate(players):
        c.join(p, position=[(i % side) * 3.0, 64.0, (i // side) * 3.0], yaw=rng.uniform(-180, 180))

    accepted = 0
    refused = collections.Counter()
    started = 0
    stopped = collections.Counter()

    def take_frames():
        nonlocal started
        while True:
            frame = c.next_frame(timeout=0)
            if frame is None:
                return
            for e in frame["events"]:
                if e["type"] == "playback.started":
                    started += 1
                elif e["type"] == "playback.stopped":
                    stopped[e["reason"]] += 1

    rounds = max(1, int(args.seconds * 2))
    for _ in range(rounds):
        round_start = time.monotonic()
        pending = []
        for p in players:
            roll = rng.random()
            if roll < args.rate:
                pending.append(c.send_request("emote.play", player=p, emote=rng.choice(emotes)))
            elif roll < args.rate + 0.02:
                c.send("player.event", player=p, event="jump")
        for rid in pending:
            reply = c.wait_reply(rid)
            if reply["ok"]:
                accepted += 1
            else:
                refused[reply["error"]["code"]] += 1
        if c.manual_clock:
            c.step(10)
        else:
            time.sleep(max(0.0, 0.5 - (time.monotonic() - round_start)))
        take_frames()
        for err in c.errors():
            refused[err["error"]["code"]] += 1

    stopped_now = c.stop_all()
    if c.manual_clock:
        c.step(1)
    else:
        time.sleep(0.2)
    take_frames()
    for p in players:
        try:
            c.leave(p)
        except EmoteSimError:
            pass
    c.close()
    print(f"plays accepted: {accepted}")
    print(f"plays refused: {dict(refused) or 0}")
    print(f"playbacks started: {started}")
    print(f"playbacks stopped: {dict(stopped)} (stop_all stopped {stopped_now})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
