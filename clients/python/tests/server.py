"""Starts the real emote-sim server for the client tests: the binary named by $EMOTE_SIM (CTest
passes the built one; default build/release/server/emote-sim), on ephemeral loopback addresses,
with the sample emotes of config/."""

import os
import re
import signal
import subprocess
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
BINARY = os.environ.get("EMOTE_SIM", os.path.join(ROOT, "build", "release", "server", "emote-sim"))
CONFIG = os.path.join(ROOT, "config", "emote-sim.json")


class Server:
    """emote-sim serve on 127.0.0.1:0 and a Unix socket. clock: 'manual' or 'realtime'; extra:
    more serve options. restart() keeps the Unix socket path (the TCP port changes)."""

    def __init__(self, clock="manual", extra=()):
        self.dir = tempfile.mkdtemp(prefix="emote-sim-py-")
        self.sock = os.path.join(self.dir, "s.sock")
        self.args = [BINARY, "serve", "--config", CONFIG, "--clock", clock,
                     "--listen", "127.0.0.1:0", "--listen", "unix:" + self.sock, *extra]
        self.proc = None
        self.start()

    def start(self):
        self.log = open(os.path.join(self.dir, "server.log"), "w+")
        self.proc = subprocess.Popen(self.args, stdout=self.log, stderr=subprocess.STDOUT,
                                     cwd=self.dir)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            self.log.seek(0)
            text = self.log.read()
            m = re.search(r"listening on (127\.0\.0\.1:\d+)", text)
            if m and "ready" in text:
                self.tcp = m.group(1)
                self.unix = "unix:" + self.sock
                return
            if self.proc.poll() is not None:
                raise RuntimeError("the server did not start:\n" + text)
            time.sleep(0.02)
        raise RuntimeError("the server did not start within 20 s")

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None
        self.log.close()

    def restart(self):
        self.stop()
        self.start()
