"""The example bots run green against a manual-clock server and against a realtime one configured
like scripts/serve, twice in a row on the same server (their players, events and stops are their
own). CTest: client.python.examples."""

import os
import subprocess
import sys
import time
import unittest

from server import Server

EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples")
RUNS = [
    ("crowd.py", ["--players", "6", "--seconds", "1", "--rate", "0.5"], "plays accepted: "),
    ("handshake.py", [], "matched"),
    ("walk_away.py", [], "stopped: MOVED"),
]


class Examples(unittest.TestCase):
    def run_all(self, server):
        for name, args, expected in RUNS:
            for attempt in (1, 2):
                with self.subTest(example=name, attempt=attempt):
                    r = subprocess.run([sys.executable, os.path.join(EXAMPLES, name),
                                        "--connect", server.tcp, *args],
                                       capture_output=True, text=True, timeout=60)
                    self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
                    self.assertIn(expected, r.stdout)
                    self.assertNotIn("plays accepted: 0\n", r.stdout)

    def test_manual_clock(self):
        s = Server("manual")
        self.addCleanup(s.stop)
        self.run_all(s)

    def test_realtime_clock(self):
        s = Server("realtime")
        self.addCleanup(s.stop)
        self.run_all(s)

    def test_a_taken_name_is_explained(self):
        s = Server("manual")
        self.addCleanup(s.stop)
        sys.path.insert(0, os.path.join(EXAMPLES, ".."))
        from emote_sim import Client
        with Client(s.tcp) as c:
            c.join("walker-taken", position=[0, 64, 0])
            r = subprocess.run([sys.executable, os.path.join(EXAMPLES, "walk_away.py"),
                                "--connect", s.tcp, "--tag", "taken"],
                               capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 1)
        self.assertIn("already on this server", r.stderr)
        self.assertNotIn("Traceback", r.stderr)

    def test_a_server_that_goes_away_is_explained(self):
        s = Server("realtime")
        self.addCleanup(s.stop)
        bot = subprocess.Popen([sys.executable, os.path.join(EXAMPLES, "crowd.py"), "--connect",
                                s.tcp, "--players", "4", "--seconds", "30"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.assertIn("connected", bot.stdout.readline())
        time.sleep(0.5)
        s.stop()
        out, err = bot.communicate(timeout=30)
        self.assertEqual(bot.returncode, 1, out + err)
        self.assertIn("lost the connection to the server", err)
        self.assertNotIn("Traceback", err)

    def test_a_missing_server_is_explained(self):
        s = Server("manual")
        address = s.tcp
        s.stop()
        r = subprocess.run([sys.executable, os.path.join(EXAMPLES, "handshake.py"),
                            "--connect", address], capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 1)
        self.assertIn("cannot connect", r.stderr)
        self.assertNotIn("Traceback", r.stderr)


if __name__ == "__main__":
    unittest.main()
