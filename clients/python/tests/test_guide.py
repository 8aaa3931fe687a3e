"""The guides' Python as a reader runs it: docs/guide/bots.md's first bot and facing_partner line,
and docs/guide/proxy-and-bots.md's client example, each read from the guide with only the server
address replaced, run with python3 (emote_sim importable as the guide says: installed, or
clients/python on the path). What they print must be what the guides' comments say. Run:
python3 -m unittest discover -s clients/python/tests (CTest: client.python)."""

import os
import re
import shutil
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from server import ROOT, Server  # noqa: E402

ADDRESS = "127.0.0.1:25580"  # the address the guides' programs connect to (scripts/serve)
CLIENT = os.path.join(ROOT, "clients", "python")


def guide(name):
    with open(os.path.join(ROOT, "docs", "guide", name), encoding="utf-8") as f:
        return f.read()


def guide_block(markdown, title, lang):
    """The first ```lang block after the heading (## or ###) `title`."""
    m = re.search(r"\n#{2,3} " + re.escape(title) + r"\n", markdown)
    if not m:
        raise AssertionError(f"the guide has no section {title!r}")
    b = re.search(r"\n```" + lang + r"\n(.*?)\n```\n", markdown[m.end() - 1:], re.S)
    if not b:
        raise AssertionError(f"the section {title!r} has no {lang} block")
    return b.group(1)


def dispose(server):
    server.stop()
    shutil.rmtree(server.dir, ignore_errors=True)


def run(code, cwd, path=CLIENT):
    """Runs `code` with python3 in `cwd`; emote_sim importable from `path` (None: not at all)."""
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    env.pop("PYTHONPATH", None)
    if path:
        env["PYTHONPATH"] = path
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=60)


class GuideTest(unittest.TestCase):
    def test_first_bot_prints_moved_on_either_clock(self):
        block = guide_block(guide("bots.md"), "Python", "python")
        self.assertIn(f'"{ADDRESS}"', block)
        for clock in ("realtime", "manual"):
            with self.subTest(clock=clock):
                s = Server(clock=clock)
                try:
                    r = run(block.replace(ADDRESS, s.tcp), cwd=s.dir)
                finally:
                    dispose(s)
                self.assertEqual((r.returncode, r.stdout), (0, "MOVED\n"), r.stderr)

    def test_facing_partner_line_makes_a_partner(self):
        text = guide("bots.md")
        line = re.search(r"In Python: `(c\.players\.join\(\"bob\", \*\*facing_partner\("
                         r"\[([^\]]+)\], ([-\d.]+)\)\))`", text)
        self.assertIsNotNone(line, "bots.md gives the facing_partner line")
        position, yaw = line.group(2), line.group(3)
        s = Server(clock="manual")
        try:
            r = run(f"""from emote_sim import Client, facing_partner
with Client("{s.tcp}") as c:
    c.players.join("alice", position=[{position}], yaw={yaw}).play("sample:handshake")
    bob = {line.group(1)}
    print(bob.play("sample:handshake")["role"])
""", cwd=s.dir)
        finally:
            dispose(s)
        self.assertEqual((r.returncode, r.stdout), (0, "partner\n"), r.stderr)

    def test_proxy_and_bots_example_prints_what_its_comments_say(self):
        # The example puts clients/python on sys.path itself, relative to the repository's root.
        block = guide_block(guide("proxy-and-bots.md"), "With the Python client", "python")
        said = re.findall(r"# (\{.*\}|unknown_emote .*)$", block, re.M)
        self.assertEqual(len(said), 2, block)
        s = Server(clock="realtime")
        try:
            r = run(block.replace(ADDRESS, s.tcp), cwd=ROOT, path=None)
        finally:
            dispose(s)
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        self.assertEqual(lines[1:3], said, r.stdout)
        self.assertTrue(lines[0].startswith("realtime "), r.stdout)
        self.assertIn(" playback.started", r.stdout)


if __name__ == "__main__":
    unittest.main()
