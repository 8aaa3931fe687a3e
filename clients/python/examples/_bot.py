"""What the example bots share: finding the emote_sim package, the command line, a placement
away from other bots, and clear messages for the failures a shared server produces."""

import argparse
import os
import random
import sys

try:
    import emote_sim  # noqa: F401  (installed with `pip install clients/python`)
except ImportError:  # run from a checkout
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from emote_sim import Client, ConnectionClosed, EmoteSimError  # noqa: E402,F401


def arguments(doc, **extra):
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--connect", default="127.0.0.1:25580", help="HOST:PORT or unix:PATH")
    ap.add_argument("--token", default=None, help="controller token, if the server requires one")
    ap.add_argument("--seed", type=int, default=None, help="random seed for the bot's choices")
    ap.add_argument("--tag", default=None,
                    help="suffix of the player names (default: random, so bots do not collide)")
    for name, kw in extra.items():
        ap.add_argument("--" + name.replace("_", "-"), **kw)
    args = ap.parse_args()
    args.rng = random.Random(args.seed)
    args.tag = args.tag or "%04x" % random.getrandbits(16)
    # Far from other bots: two-player emotes match the nearest offer, so keep to our own spot.
    args.origin = [args.rng.randrange(-20000, 20000) + 0.5, 64.0, args.rng.randrange(-20000, 20000) + 0.5]
    return args


def join(c, name, **fields):
    """Join a player, explaining the shared-server failure instead of a traceback."""
    try:
        return c.players.join(name, **fields)
    except EmoteSimError as e:
        if e.code == "player_exists":
            raise SystemExit(f"player {name!r} is already on this server (another bot, or an earlier run "
                             f"that kept it): pick other names with --tag") from None
        raise


def run(main):
    """Run main() and turn a lost connection into one clear line and exit status 1."""
    try:
        sys.exit(main())
    except ConnectionClosed as e:
        print(f"lost the connection to the server ({e}); is it still running?", file=sys.stderr)
        sys.exit(1)
    except (ConnectionRefusedError, FileNotFoundError) as e:
        print(f"cannot connect: {e}; is the server running (scripts/serve)?", file=sys.stderr)
        sys.exit(1)
