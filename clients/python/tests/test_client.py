"""The Python client against the real server (docs/guide/bots.md): every op, every error code a
client can provoke as a typed error, waiting on both clocks, handlers, the players filter,
reconnecting after a restart, and the asyncio flavour. Run: python3 -m unittest discover -s
clients/python/tests (CTest: client.python)."""

import asyncio
import base64
import json
import os
import shutil
import signal
import sys
import tempfile
import threading
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from emote_sim import (ERROR_CODES, Client, ConnectionClosed, EmoteSimError,  # noqa: E402
                       entry_recipients, facing_partner, packet_id, viewer_packets)
from emote_sim import aio  # noqa: E402
from server import ROOT, Server  # noqa: E402

# A runtime emote: the sample wave, played once under another id.
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "config",
                       "emotes", "wave", "sample.wave.json")) as f:
    EXTRA_EMOTE = json.load(f)
EXTRA_EMOTE["id"] = "test:blink"
EXTRA_EMOTE["settings"]["cooldown"] = "0t"
EXTRA_EMOTE["settings"]["playback"] = {"mode": "once", "loop_delay": "0t"}


class Audiences(unittest.TestCase):
    """render.md §6.1 on literal frames: the audiences form gives every viewer the packets the
    same frame gives with to lists."""

    DATA = [base64.b64encode(bytes(b)).decode() for b in ([0x00], [0x5C, 0x01], [0x2F, 0x02, 0x03],
                                                          [0x00])]
    TO_FORM = {"op": "frame", "tick": 7, "events": [], "packets": [
        {"to": ["alice", "bob"], "protocol": 769, "data": DATA[0]},
        {"to": ["carol"], "protocol": 775, "data": DATA[1]},
        {"to": ["alice", "bob"], "protocol": 769, "data": DATA[2]},
        {"to": ["bob", "carol"], "protocol": 769, "data": DATA[3]}]}
    AUDIENCE_FORM = {"op": "frame", "tick": 7, "events": [],
                     "audiences": [["alice", "bob"], ["carol"], ["bob", "carol"]], "packets": [
                         {"audience": 0, "protocol": 769, "data": DATA[0]},
                         {"audience": 1, "protocol": 775, "data": DATA[1]},
                         {"audience": 0, "protocol": 769, "data": DATA[2]},
                         {"audience": 2, "protocol": 769, "data": DATA[3]}]}

    def test_same_packets(self):
        for player in ("alice", "bob", "carol", "dave"):
            self.assertEqual(viewer_packets(self.AUDIENCE_FORM, player),
                             viewer_packets(self.TO_FORM, player), player)
        self.assertEqual(viewer_packets(self.AUDIENCE_FORM, "bob"),
                         [(769, b"\x00"), (769, b"\x2f\x02\x03"), (769, b"\x00")])
        self.assertEqual(entry_recipients(self.AUDIENCE_FORM, self.AUDIENCE_FORM["packets"][3]),
                         ["bob", "carol"])

    def test_bad_index(self):
        for index in (3, -1, 0.5, "0", True):
            bad = dict(self.AUDIENCE_FORM,
                       packets=[{"audience": index, "protocol": 769, "data": self.DATA[0]}])
            with self.assertRaises(ValueError) as cm:
                viewer_packets(bad, "alice")
            self.assertIn("tick 7", str(cm.exception))
            self.assertIn(f"audience {json.dumps(index)}", str(cm.exception))
        with self.assertRaisesRegex(ValueError, r"tick 8.*audience 0.*0 audiences"):
            viewer_packets({"tick": 8, "packets": [{"audience": 0, "protocol": 769, "data": ""}]},
                           "a")


class ErrorObject(unittest.TestCase):
    """docs/guide/bots.md, Errors: the error object's names are those of the JavaScript and Java
    clients, on the literal replies of clients/error-replies.json, which their tests read too."""

    def test_same_mapping_as_the_other_clients(self):
        with open(os.path.join(ROOT, "clients", "error-replies.json"), encoding="utf-8") as f:
            cases = json.load(f)["cases"]
        for case in cases:
            with self.subTest(code=case["code"]):
                e = EmoteSimError(case["reply"])
                self.assertEqual((e.code, e.text, e.detail, str(e), e.path, e.op, e.player, e.emote,
                                  e.remaining_ticks),
                                 (case["code"], case["text"], case["detail"], case["string"],
                                  case["path"], case["op"], case["player"], case["emote"],
                                  case.get("remaining_ticks")))
                self.assertEqual(e.message, e.text)  # the name this client used first
                self.assertIs(e.reply, case["reply"])


class ManualClock(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = Server("manual")

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def client(self, address=None, **kw):
        c = Client(address or self.server.tcp, client="py-test", **kw)
        self.addCleanup(c.close)
        return c

    def test_every_op(self):
        c = self.client(self.server.unix)
        self.assertTrue(c.manual_clock)
        self.assertEqual(c.ping()["ok"], True)
        self.assertEqual(c.subscribe(events=["playback."], players="own")["ok"], True)
        p = c.players.join("op-alice", position=[0, 64, 0], yaw=0, protocol=769, entity_id=7)
        self.assertEqual(c.players.names(), ["op-alice"])
        self.assertEqual(p.update(yaw=90)["ok"], True)
        ids = [e["id"] for e in c.list_emotes()]
        self.assertIn("sample:wave", ids)
        self.assertEqual(c.info("sample:handshake")["two_player"], True)
        self.assertEqual(c.register(EXTRA_EMOTE), "test:blink")
        r = p.play("test:blink")
        self.assertEqual(r, {"session": r["session"], "emote": "test:blink", "role": "solo"})
        self.assertEqual(p.wait_for("playback.stopped", ticks=30)["reason"], "FINISHED")
        p.play("sample:wave")
        self.assertEqual(p.stop()["ok"], True)
        self.assertEqual(p.event("jump")["ok"], True)
        self.assertEqual(c.cooldown_clear("op-alice"), 1)
        self.assertEqual(c.world_blocks([{"at": [0, 70, 0], "block": "solid"}]), 1)
        self.assertEqual(c.world_clear(), 1)
        self.assertEqual(c.resync(["op-alice"]), 1)
        self.assertEqual(c.state("op-alice")["players"][0]["player"], "op-alice")
        c.players.join("op-bob", position=[50, 64, 0])
        c.players.join("op-carol", position=[60, 64, 0])
        pages = [[e["player"] for e in page["players"]] for page in c.state_pages(2)]
        self.assertEqual(pages, [["op-alice", "op-bob"], ["op-carol"]])
        c.leave("op-bob")
        c.leave("op-carol")
        self.assertEqual(c.unregister("test:blink")["ok"], True)
        self.assertGreaterEqual(c.reload()["loaded"], 10)
        before = c.tick
        self.assertEqual(c.step(3), before + 3)
        self.assertEqual(p.leave()["ok"], True)
        self.assertEqual(len(c.players), 0)

    def test_errors_name_what_failed_and_partner_placement(self):
        c = self.client()
        c.send("player.update", player="nobody", yaw=3)  # without an id: a reply only on failure
        c.ping()
        [reply] = c.errors()
        err = EmoteSimError(reply)
        self.assertEqual((err.code, err.op, err.player), ("unknown_player", "player.update", "nobody"))
        self.assertIn('player.update player "nobody"', err.detail)
        with self.assertRaises(EmoteSimError) as cm:
            c.play("nobody", "sample:nope")
        e = cm.exception
        self.assertEqual((e.op, e.player, e.emote, e.text, e.message),
                         ("emote.play", "nobody", "sample:nope", "Player is not online.",
                          "Player is not online."))
        alice = c.players.join("fp-alice", position=[900.5, 64, 0.5], yaw=30)
        with self.assertRaises(TimeoutError) as cm:
            alice.wait_for("playback.stopped", ticks=2)
        self.assertIn('"playback.stopped" event about player "fp-alice"', str(cm.exception))
        # players.md §7.3/§7.4: a partner turned away does not join, and the reply says why.
        self.assertEqual(alice.play("sample:handshake")["role"], "initiator")
        away = c.players.join("fp-away", **dict(facing_partner([900.5, 64, 0.5], 30), yaw=30))
        r = away.play("sample:handshake")
        self.assertEqual((r["role"], r["unmatched"]["initiator"], r["unmatched"]["reason"]),
                         ("initiator", "fp-alice", "partner_facing"))
        away.leave()
        bob = c.players.join("fp-bob", **facing_partner([900.5, 64, 0.5], 30))
        self.assertEqual(bob.play("sample:handshake")["role"], "partner")
        with self.assertRaises(ValueError):
            facing_partner([0, 0, 0], 0, 2.5)
        bob.leave()
        alice.leave()

    def test_stop_all(self):
        # Only on a server of its own: it stops everyone's emotes.
        c = self.client()
        c.players.join("sa-1", position=[100, 64, 0]).play("sample:wave")
        self.assertGreaterEqual(c.stop_all(), 1)
        c.leave("sa-1")

    def test_error_codes_as_typed_errors(self):
        c = self.client()
        obs = self.client(role="observer")
        seen = set()

        def expect(code, fn, path=None):
            with self.assertRaises(EmoteSimError) as cm:
                fn()
            self.assertEqual(cm.exception.code, code)
            if path is not None:
                self.assertEqual(cm.exception.path, path)
            seen.add(code)

        expect("unknown_op", lambda: c.request("nope"))
        expect("bad_request", lambda: c.request("player.join", player="x"), "$.position")
        c.send_raw('{"op":"player.update","id":"big","player":"x","yaw":1e400}')
        self.assertEqual(c.wait_reply("big")["error"]["path"], "$.yaw")
        expect("forbidden", lambda: obs.request("player.join", player="x", position=[0, 0, 0]))
        expect("unknown_player", lambda: c.play("nobody", "sample:wave"))
        c.players.join("err-a", position=[200, 64, 0])
        expect("player_exists", lambda: c.join("err-a", position=[0, 64, 0]))
        expect("unknown_emote", lambda: c.play("err-a", "nope:nothing"))
        expect("not_standalone", lambda: c.play("err-a", "sample:sit_down"))
        expect("not_playing", lambda: c.stop("err-a"))
        c.play("err-a", "sample:wave")
        with self.assertRaises(EmoteSimError) as cm:
            c.play("err-a", "sample:wave")
        self.assertEqual(cm.exception.code, "cooldown")
        self.assertGreater(cm.exception.remaining_ticks, 0)
        seen.add("cooldown")
        c.players.join("err-np", position=[210, 64, 0], permissions={"emote.default": False})
        expect("no_permission", lambda: c.play("err-np", "sample:wave"))
        # Failures of requests without an id: the 'reply.error' handler and errors().
        got = []
        c.on("reply.error", got.append)
        c.send_raw("{not json")
        c.send("emote.stop", player="err-np")
        c.ping()
        self.assertEqual([e.code for e in got], ["bad_json", "not_playing"])
        self.assertEqual([e["error"]["code"] for e in c.errors()], ["bad_json", "not_playing"])
        seen.add("bad_json")
        self.assertTrue(seen <= set(ERROR_CODES))

    def test_wait_ticks_and_wait_for_on_a_manual_clock(self):
        c = self.client()
        start = c.ping()["tick"]
        self.assertEqual(c.wait_ticks(5), start + 5)
        c.subscribe(events=["playback."], players="own")
        p = c.players.join("wt-a", position=[300, 64, 0])
        p.play("sample:wave")
        p.update(position=[302, 64, 0])
        # The poll in this very tick stops it: the client steps the clock until the event.
        self.assertEqual(p.wait_for("playback.stopped", ticks=3)["reason"], "MOVED")
        t = c.tick
        with self.assertRaises(TimeoutError):
            c.wait_for("playback.started", ticks=4)
        self.assertEqual(c.tick, t + 4)
        with self.assertRaises(TimeoutError):
            c.wait_for("playback.started", timeout=0.2)
        p.leave()

    def test_handlers_and_frames(self):
        c = self.client()
        c.subscribe(events=["playback.", "display.spawn"], players="own")
        p = c.players.join("h-a", position=[400, 64, 0])
        started, spawns, mine, ticks = [], [], [], []
        off = c.on("playback.started", lambda e, frame: (started.append(e), ticks.append(frame)))
        c.on("display.", lambda e, frame: spawns.append(e))
        p.on("playback.", lambda e, frame: mine.append(e))
        p.play("sample:wave")
        c.step(1)
        c.poll(0.1)
        self.assertEqual([e["player"] for e in started], ["h-a"])
        # Handlers get (event, frame), as in the JS client: the frame the event came in.
        self.assertEqual(len(ticks), 1)
        self.assertEqual(ticks[0]["op"], "frame")
        self.assertIn(started[0], ticks[0]["events"])
        self.assertEqual(len(spawns), 6)
        off()
        p.stop()
        p.play("sample:wave", bypass=True)
        c.step(1)
        c.poll(0.1)
        self.assertEqual(len(started), 1)  # removed
        self.assertEqual([e["type"] for e in mine],
                         ["playback.started", "playback.stopped", "playback.started"])
        frames = list(c.frames(timeout=0.1))
        self.assertTrue(frames and all("tick" in f for f in frames))
        # A player's frames: only its events (the other player's wave is left out).
        q = c.players.join("h-b", position=[410, 64, 0])
        q.play("sample:wave")
        p.stop()
        c.step(1)
        mine = list(p.frames(timeout=0.1))
        self.assertEqual([[e["type"] for e in f["events"]] for f in mine], [["playback.stopped"]])
        q.leave()
        p.leave()

    def test_players_filter_keeps_bots_apart(self):
        one, two = self.client(), self.client()
        one.subscribe(events=["playback."], players="own")
        two.subscribe(events=["playback."], players="own")
        a = one.players.join("pf-one", position=[500, 64, 0])
        b = two.players.join("pf-two", position=[510, 64, 0])
        a.play("sample:wave")
        b.play("sample:wave")
        one.step(2)
        two.ping()
        ones = [e["player"] for _, e in one.events(timeout=0.2)]
        twos = [e["player"] for _, e in two.events(timeout=0.2)]
        self.assertEqual(ones, ["pf-one"])
        self.assertEqual(twos, ["pf-two"])
        a.leave()
        b.leave()

    def test_viewer_packets(self):
        c = self.client()
        c.subscribe(packets=True, players=["vp-a"])
        p = c.players.join("vp-a", position=[600, 64, 0], protocol=769, entity_id=42)
        p.play("sample:wave")
        c.step(2)
        mine = [pk for f in c.frames(timeout=0.2) for pk in viewer_packets(f, "vp-a")]
        self.assertTrue(mine)
        self.assertTrue(all(proto == 769 for proto, _ in mine))
        self.assertEqual(packet_id(mine[0][1]), 0x00)  # a spawn bundle opens
        p.leave()

    def test_viewer_packets_with_audiences(self):
        c = self.client()
        c.subscribe(packets=True, audiences=True, players=["va-a"])
        p = c.players.join("va-a", position=[650, 64, 0], protocol=769, entity_id=43)
        p.play("sample:wave")
        c.step(2)
        frames = [f for f in c.frames(timeout=0.2) if f.get("packets")]
        self.assertTrue(frames)
        for f in frames:
            self.assertIsInstance(f["audiences"], list)
            self.assertTrue(all("to" not in e and isinstance(e["audience"], int)
                                for e in f["packets"]))
        mine = [pk for f in frames for pk in viewer_packets(f, "va-a")]
        self.assertTrue(mine)
        self.assertTrue(all(proto == 769 for proto, _ in mine))
        self.assertEqual(packet_id(mine[0][1]), 0x00)  # a spawn bundle opens
        p.leave()

    def test_asyncio_flavour(self):
        async def run():
            c = await aio.connect(self.server.unix, client="py-aio")
            await c.subscribe(events=["playback."], players="own")
            p = await c.players.join("aio-a", position=[700, 64, 0])
            seen = []
            c.on("playback.", lambda e, frame: seen.append(e))
            await p.play("sample:wave")
            self.assertEqual(await c.wait_ticks(2), c.tick)
            await p.update(position=[702, 64, 0])
            stopped = await p.wait_for("playback.stopped", ticks=3)
            self.assertEqual(stopped["reason"], "MOVED")
            self.assertEqual([e["type"] for e in seen], ["playback.started", "playback.stopped"])
            frames = [f async for f in c.frames(timeout=0.1)]
            self.assertEqual(len(frames), 2)
            with self.assertRaises(EmoteSimError) as cm:
                await c.play("aio-a", "nope:x")
            self.assertEqual(cm.exception.code, "unknown_emote")
            pages = [[e["player"] for e in page["players"]] async for page in c.state_pages(1)]
            self.assertIn(["aio-a"], pages)
            self.assertTrue(all(len(names) == 1 for names in pages))
            await p.leave()
            await c.close()
        asyncio.run(run())


class StrictRealtime(unittest.TestCase):
    """A realtime server with a controller token, small limits, a disabled emote, stop-mode
    cooldowns and room for one wave's displays."""

    @classmethod
    def setUpClass(cls):
        cls.server = Server("realtime", ["--auth-controller-token", "s3cret",
                                         "--limits-max-line-bytes", "4096",
                                         "--disabled", "sample:sit",
                                         "--cooldown-mode", "stop",
                                         "--max-active-display-entities", "6"])

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def client(self, **kw):
        kw.setdefault("token", "s3cret")
        c = Client(self.server.tcp, client="py-test", **kw)
        self.addCleanup(c.close)
        return c

    def test_hello_errors(self):
        for kw, code in (({"token": None}, "unauthorized"), ({"token": "wrong"}, "unauthorized"),
                         ({"protocol": 2}, "unsupported_protocol")):
            with self.assertRaises(EmoteSimError) as cm:
                Client(self.server.tcp, **kw)
            self.assertEqual(cm.exception.code, code)
        Client(self.server.tcp, role="observer").close()  # no observer token set

    def test_limits_and_rules(self):
        c = self.client()
        got = []
        c.on("reply.error", got.append)
        c.send_raw('{"op":"ping","pad":"' + "x" * 5000 + '"}')
        c.ping()
        self.assertEqual([e.code for e in got], ["line_too_long"])
        with self.assertRaises(EmoteSimError) as cm:
            c.step(1)
        self.assertEqual(cm.exception.code, "clock_not_manual")
        a = c.players.join("st-a", position=[0, 64, 0])
        b = c.players.join("st-b", position=[50, 64, 0])
        for fn, code in ((lambda: a.play("sample:sit"), "disabled"),):
            with self.assertRaises(EmoteSimError) as cm:
                fn()
            self.assertEqual(cm.exception.code, code)
        a.play("sample:wave")
        with self.assertRaises(EmoteSimError) as cm:
            a.play("sample:wave")
        self.assertEqual(cm.exception.code, "already_playing")
        with self.assertRaises(EmoteSimError) as cm:
            b.play("sample:wave")
        self.assertEqual(cm.exception.code, "display_limit")
        a.stop()
        a.leave()
        b.leave()

    def test_wait_ticks_and_wait_for_on_a_realtime_clock(self):
        c = self.client()
        start = c.ping()["tick"]
        t0 = time.monotonic()
        now = c.wait_ticks(10)
        elapsed = time.monotonic() - t0
        self.assertGreaterEqual(now, start + 10)
        self.assertGreaterEqual(elapsed, 0.2)
        self.assertLess(elapsed, 3.0)
        c.subscribe(events=["playback."], players="own")
        p = c.players.join("rt-a", position=[100, 64, 0])
        p.play("sample:wave")
        p.update(position=[102, 64, 0])
        self.assertEqual(p.wait_for("playback.stopped", ticks=20)["reason"], "MOVED")
        before = c.ping()["tick"]
        with self.assertRaises(TimeoutError):
            p.wait_for("playback.started", ticks=6)
        self.assertGreaterEqual(c.tick, before + 6)
        p.leave()


    def test_asyncio_on_a_realtime_clock(self):
        async def run():
            c = await aio.connect(self.server.tcp, token="s3cret")
            await c.subscribe(events=["playback."], players="own")
            p = await c.players.join("rt-aio", position=[150, 64, 0])
            await p.play("sample:wave")
            start = c.tick
            self.assertGreaterEqual(await c.wait_ticks(4), start + 4)
            await p.update(position=[152, 64, 0])
            # The stop may come in the same read as the update's reply: still seen.
            self.assertEqual((await p.wait_for("playback.stopped", ticks=20))["reason"], "MOVED")
            with self.assertRaises(TimeoutError):
                await p.wait_for("playback.stopped", ticks=4)  # returned once only
            await p.leave()
            await c.close()
        asyncio.run(run())


class ServerSideFailures(unittest.TestCase):
    def test_content_unavailable_and_shutting_down(self):
        # content_unavailable: a reload whose content folder is gone (the running catalog stays).
        emotes = os.path.join(tempfile.mkdtemp(prefix="emote-sim-py-"), "emotes")
        shutil.copytree(os.path.join(ROOT, "config", "emotes"), emotes)
        s = Server("manual", ["--emotes", emotes])
        self.addCleanup(s.stop)
        c = Client(s.tcp)
        self.addCleanup(c.close)
        shutil.rmtree(emotes)
        with self.assertRaises(EmoteSimError) as cm:
            c.reload()
        self.assertEqual(cm.exception.code, "content_unavailable")
        # shutting_down: a long clock.step cut short by SIGTERM (50 waving players make the
        # 72000 ticks take seconds; the signal comes after 0.2 s).
        for i in range(50):
            c.players.join(f"sd-{i}", position=[i * 3.0, 64, 0]).play("sample:wave")
        before = c.tick
        threading.Timer(0.2, s.proc.send_signal, [signal.SIGTERM]).start()
        with self.assertRaises(EmoteSimError) as cm:
            c.step(72000)
        self.assertEqual(cm.exception.code, "shutting_down")
        self.assertLess(cm.exception.reply["tick"], before + 72000)


class Reconnect(unittest.TestCase):
    def test_reconnect_after_the_server_restarts(self):
        s = Server("manual")
        self.addCleanup(s.stop)
        c = Client(s.unix, reconnect=True, backoff=(0.02, 0.2), reconnect_timeout=20)
        self.addCleanup(c.close)
        reconnects = []
        c.on("reconnect", reconnects.append)
        c.subscribe(events=["playback."], players="own")
        c.players.join("rc-a", position=[0, 64, 0])
        c.step(5)
        s.restart()
        try:
            tick = c.ping()["tick"]  # reconnects when the send finds the connection gone
        except ConnectionClosed:
            tick = c.ping()["tick"]  # the request was lost with the old connection
        self.assertEqual(tick, 0)  # a new server, from tick 0
        self.assertEqual(len(reconnects), 1)
        self.assertEqual(c.players.names(), [])  # the server forgot them
        p = c.players.join("rc-a", position=[0, 64, 0])  # subscribed again, filter included
        p.play("sample:wave")
        self.assertEqual(p.wait_for("playback.started", ticks=2)["player"], "rc-a")

    def test_reconnect_with_rejoin(self):
        s = Server("manual")
        self.addCleanup(s.stop)
        c = Client(s.unix, reconnect=True, backoff=(0.02, 0.2), reconnect_timeout=20, rejoin=True)
        self.addCleanup(c.close)
        c.subscribe(events=["playback."], players="own")
        a = c.players.join("rj-a", position=[0, 64, 0], yaw=10)
        a.update(position=[3, 64, 4])
        s.restart()
        try:
            c.ping()
        except ConnectionClosed:
            c.ping()  # the request was lost with the old connection
        self.assertEqual(c.players.names(), ["rj-a"])  # joined again
        self.assertEqual(c.state("rj-a")["players"][0]["player"], "rj-a")
        # With its last position and yaw: a partner placed facing it there joins.
        self.assertEqual(a.play("sample:handshake")["role"], "initiator")
        self.assertEqual(a.wait_for("playback.started", ticks=2)["player"], "rj-a")
        b = c.players.join("rj-b", **facing_partner([3, 64, 4], 10))
        self.assertEqual(b.play("sample:handshake")["role"], "partner")

    def test_asyncio_reconnect(self):
        s = Server("manual")
        self.addCleanup(s.stop)

        async def run():
            c = await aio.connect(s.unix, reconnect=True, backoff=(0.02, 0.2))
            done = asyncio.Event()
            c.on("reconnect", lambda w: done.set())
            await c.subscribe(events=["playback."])
            s.restart()
            await asyncio.wait_for(done.wait(), 20)
            self.assertEqual((await c.ping())["tick"], 0)
            await c.close()
        asyncio.run(run())


if __name__ == "__main__":
    unittest.main()
