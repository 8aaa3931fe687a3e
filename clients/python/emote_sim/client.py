"""The blocking client for the emote-sim NDJSON protocol (docs/spec/protocol.md; a guide for bot
authors: docs/guide/bots.md). Python 3 standard library only.

    from emote_sim import Client

    with Client("127.0.0.1:25580", client="my-bot/1.0") as c:      # connects and says hello
        c.subscribe(events=["playback."], players="own")             # only my players' events
        alice = c.players.join("alice", position=[0, 64, 0], yaw=0)
        print(alice.play("sample:wave"))                             # {'session': 1, ...}
        c.wait_ticks(20)                                             # any clock
        alice.update(position=[3, 64, 0])                            # walk away
        print(alice.wait_for("playback.stopped", ticks=5)["reason"]) # MOVED

Requests with an id wait for their reply and raise EmoteSimError (.code, .path) when it is an
error. Frames that arrive meanwhile are kept in order and handed out by next_frame() / frames() /
wait_for(), and their events go to the handlers registered with on() as they are read.

Viewers (render.md): join a player with `protocol=769` (and `entity_id`, `name`, ...), subscribe
with `packets=True`, and `viewer_packets(frame, "alice")` gives that player's packets in order as
(protocol, bytes); `packet_id(bytes)` reads the packet id. `audiences=True` as well names each
recipient list once per frame (render.md §6.1); `viewer_packets` reads both forms.

`python3 -m emote_sim ADDRESS` is an interactive session: it reads requests as JSON lines from
stdin (the hello is sent for you) and prints every line the server sends.
"""

import collections
import itertools
import json
import socket
import threading
import time

from ._common import (DEFAULT_ADDRESS, ClientBase, ConnectionClosed, EmoteSimError, PlayerBase,
                      PlayersBase, describe_selector, hello_line, matcher, parse_address)

__all__ = ["Client", "Player"]


class Player(PlayerBase):
    """A player this client joined: the player ops without repeating its key, and waiting for
    events about it (its own records and its sessions')."""

    def play(self, emote, **fields):
        """emote.play; returns {'session', 'emote', 'role'} or raises EmoteSimError."""
        return self.client.play(self.name, emote, **fields)

    def stop(self):
        """emote.stop of this player's playback only; raises EmoteSimError 'not_playing'."""
        return self.client.stop(self.name)

    def update(self, **state):
        return self.client.update(self.name, **state)

    def event(self, event, **fields):
        return self.client.event(self.name, event, **fields)

    def leave(self):
        return self.client.leave(self.name)

    def state(self):
        return self.client.state(self.name)

    def wait_for(self, what, timeout=None, ticks=None):
        """Like Client.wait_for, for the events about this player."""
        return self.client.wait_for(self._selects(what), timeout, ticks,
                                    description=self._describe(what))

    def frames(self, timeout=None):
        """Like Client.frames, reduced to the events about this player (frames without any are
        skipped)."""
        for frame in self.client.frames(timeout):
            events = [e for e in frame.get("events", ()) if self.about(e)]
            if events:
                yield dict(frame, events=events)


class _Players(PlayersBase):
    def join(self, player, position, keep_on_disconnect=False, **state):
        """player.join; returns the Player."""
        self._client.join(player, position, keep_on_disconnect=keep_on_disconnect, **state)
        return self._by_name[player]


class Client(ClientBase):
    """One connection to an emote-sim server.

    address: 'HOST:PORT' or 'unix:/path'; role: 'controller' or 'observer'; token: the role's token
    when the server requires one; client: a name the server logs; timeout: seconds a request waits
    for its reply. reconnect: when the connection is lost, the next request reconnects first,
    retrying with exponential backoff (`backoff` = (first, longest) delay in seconds) for up to
    `reconnect_timeout` seconds, then subscribes again as before. Players joined without
    keep_on_disconnect are forgotten then (the server made them leave), unless rejoin=True: then
    every joined player is joined again with its last state (the join fields, then each
    update's), as after a server restart.
    """

    def __init__(self, address=DEFAULT_ADDRESS, role="controller", token=None,
                 client="emote_sim.py/1", timeout=10.0, connect=True, reconnect=False,
                 backoff=(0.05, 2.0), reconnect_timeout=30.0, protocol=1, rejoin=False):
        self._setup(address, role, token, client, timeout, reconnect, backoff, reconnect_timeout,
                    protocol)
        self.rejoin = rejoin
        self.players = _Players(self)
        self._sock = None
        self._buf = b""
        self._frames = collections.deque()
        self._replies = {}
        self._errors = collections.deque()   # failed requests sent without an id
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._closed_by = None
        if connect:
            self.connect()

    # -- connection ------------------------------------------------------------------------------

    def connect(self):
        """Open the socket, send hello and return the welcome object. An error reply to the hello
        (unauthorized, unsupported_protocol) raises EmoteSimError."""
        family, sockaddr = parse_address(self.address)
        self._buf = b""
        self._closed_by = None
        if family == socket.AF_UNIX:
            self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self._sock.settimeout(self.timeout)
            try:
                self._sock.connect(sockaddr)
            except OSError:
                self._sock.close()
                self._sock = None
                raise
        else:
            self._sock = socket.create_connection(sockaddr, timeout=self.timeout)
            self._sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.send_raw(hello_line(self.role, self.token, self.client_name, self.protocol))
        line = self._read_line(self.timeout)
        if line is None:
            raise ConnectionClosed(self._closed_by)
        msg = json.loads(line)
        if msg.get("op") == "reply" and not msg.get("ok", True):
            self.close(polite=False)
            raise EmoteSimError(msg)
        if msg.get("op") != "welcome":
            raise RuntimeError(f"expected welcome, got {line!r}")
        self.welcome = msg
        self.tick = msg.get("tick", 0)
        return msg

    def reconnect(self):
        """Connect again, retrying with exponential backoff for up to reconnect_timeout seconds,
        then subscribe as before. Players joined without keep_on_disconnect are forgotten (the
        server made them leave). Returns the welcome; raises the last connection error."""
        self.close(polite=False)
        delay, longest = self.backoff
        deadline = time.monotonic() + self.reconnect_timeout
        while True:
            try:
                welcome = self.connect()
                break
            except (OSError, ConnectionClosed) as e:
                if time.monotonic() + delay > deadline:
                    raise ConnectionClosed({"op": "bye", "reason": f"reconnect failed: {e}"}) from e
                time.sleep(delay)
                delay = min(delay * 2, longest)
        self._frames.clear()
        self._replies.clear()
        if self.rejoin:
            for fields in self._rejoin_requests():
                try:
                    self.request("player.join", **fields)
                except EmoteSimError as e:
                    if e.code != "player_exists":  # kept on disconnect by a server still up
                        raise
        else:
            self._forget_players_that_left()
        if self._subscription is not None:
            self._resubscribe()
        self._fire("reconnect", welcome)
        return welcome

    @property
    def connected(self):
        return self._sock is not None

    def close(self, polite=True):
        if self._sock is None:
            return
        try:
            if polite:
                self.send_raw({"op": "bye"})
        except OSError:
            pass
        self._sock.close()
        self._sock = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # -- sending ---------------------------------------------------------------------------------

    def send_raw(self, obj_or_line):
        """Send one message (a dict, or a line of text) without waiting for anything."""
        if self._sock is None:
            if self.auto_reconnect and self.welcome is not None:
                self.reconnect()
            else:
                raise ConnectionClosed(self._closed_by)
        line = obj_or_line if isinstance(obj_or_line, str) else json.dumps(obj_or_line, separators=(",", ":"))
        data = line.encode("utf-8") + b"\n"
        try:
            with self._lock:
                self._sock.sendall(data)
        except OSError:
            self._sock.close()
            self._sock = None
            self._closed_by = self._closed_by or {"op": "bye", "reason": "closed"}
            self._fire("disconnect", self._closed_by)
            if not (self.auto_reconnect and self.welcome is not None):
                raise ConnectionClosed(self._closed_by) from None
            self.reconnect()
            with self._lock:
                self._sock.sendall(data)

    def send(self, op, **fields):
        """Send a request without an id: the server answers only if it fails (see errors() and
        on('reply.error'))."""
        self.send_raw(dict(op=op, **fields))

    def send_request(self, op, **fields):
        """Send a request with a fresh id without waiting; returns the id for wait_reply()."""
        rid = next(self._ids)
        self.send_raw(dict(op=op, id=rid, **fields))
        return rid

    def request(self, op, timeout=None, **fields):
        """Send a request with a fresh id and wait for its reply. Returns the reply (a dict with
        'op', 'id', 'tick', 'ok' and the result fields); raises EmoteSimError for an error reply."""
        rid = self.send_request(op, **fields)
        reply = self.wait_reply(rid, timeout)
        if not reply.get("ok"):
            raise EmoteSimError(reply)
        return reply

    def wait_reply(self, rid, timeout=None):
        """The reply to request `rid` (ok or not), waiting up to `timeout` seconds."""
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        while rid not in self._replies:
            left = deadline - time.monotonic()
            line = self._read_line(max(left, 0))
            if line is None:
                if self._sock is None or self._closed_by is not None:
                    raise ConnectionClosed(self._closed_by)
                raise TimeoutError(f"no reply to request {rid} within the timeout")
            self._dispatch(line)
        return self._replies.pop(rid)

    # -- receiving -------------------------------------------------------------------------------

    def on(self, selector, handler):
        """Call handler(event, frame) for every event that `selector` selects as frames are read
        (the same arguments as the JavaScript client's handlers): a type
        ('playback.stopped'), a prefix ('partner.') or a predicate. Special names:
        'reply.error' (handler(EmoteSimError) for a failed request sent without an id),
        'disconnect' (handler(bye)), 'reconnect' (handler(welcome)). Returns a function that
        removes the handler. Handlers run inside whichever call reads the line; `c.tick` is the
        frame's tick meanwhile."""
        entry = (selector if selector in ("reply.error", "disconnect", "reconnect") else matcher(selector),
                 handler)
        self._handlers.append(entry)
        return lambda: self._handlers.remove(entry) if entry in self._handlers else None

    def poll(self, timeout=0.0):
        """Read and dispatch whatever arrives within `timeout` seconds (runs the handlers)."""
        deadline = time.monotonic() + timeout
        while True:
            line = self._read_line(max(deadline - time.monotonic(), 0))
            if line is None:
                return
            self._dispatch(line)

    def next_frame(self, timeout=None):
        """The next frame object, or None when none arrives within the timeout."""
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        while not self._frames:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            line = self._read_line(left)
            if line is None:
                if self._closed_by is not None or self._sock is None:
                    raise ConnectionClosed(self._closed_by)
                return None
            self._dispatch(line)
        return self._frames.popleft()

    def frames(self, timeout=None):
        """Yield frames until none arrives for `timeout` seconds."""
        while True:
            frame = self.next_frame(timeout)
            if frame is None:
                return
            yield frame

    def events(self, timeout=None):
        """Yield (tick, event) pairs from the following frames."""
        for frame in self.frames(timeout):
            for event in frame.get("events", []):
                yield frame["tick"], event

    def errors(self):
        """Error replies received for requests sent without an id (drains the list)."""
        out = list(self._errors)
        self._errors.clear()
        return out

    def wait_for(self, what, timeout=None, ticks=None, description=None):
        """The first event that `what` selects (a type, a prefix ending in '.', or a predicate),
        taking frames in order from those received and not yet handed out (the events before the
        match are consumed; the rest of its frame stays queued). Needs a subscription that lets
        the event through.

        ticks: give up after that many ticks. On a manual clock the client then advances the
        clock itself, one tick at a time, until the event comes; on a realtime one it waits for
        the ticks to pass. Raises TimeoutError when nothing matched in time (`timeout` seconds of
        wall time, default the client's timeout, or the ticks); its message names what was
        awaited (`description`, default from `what`)."""
        pred = matcher(what)
        waited = description or describe_selector(what)
        wall = self.timeout if timeout is None else timeout
        if ticks is not None and not self.manual_clock:
            wall = max(wall, ticks / self.tps + 2.0)
        deadline = time.monotonic() + wall
        end_tick = None
        stepped = 0
        if ticks is not None and not self.manual_clock:
            end_tick = self.ping()["tick"] + ticks
        while True:
            while self._frames:
                frame = self._frames.popleft()
                events = frame.get("events", ())
                for i, event in enumerate(events):
                    if pred(event):
                        if i + 1 < len(events):  # the rest of the frame stays queued
                            self._frames.appendleft(dict(frame, events=events[i + 1:]))
                        return event
            if ticks is not None and self.manual_clock:
                if stepped >= ticks:
                    raise TimeoutError(f"waited {ticks} ticks for {waited}; none came")
                self.step(1)
                stepped += 1
                continue
            left = deadline - time.monotonic()
            if end_tick is not None and self.tick >= end_tick:
                raise TimeoutError(f"waited {ticks} ticks for {waited}; none came")
            if left <= 0:
                raise TimeoutError(f"waited {wall:g} s for {waited}; none came")
            line = self._read_line(min(left, 1.0 / self.tps))
            if line is not None:
                self._dispatch(line)
            elif self._sock is None:
                raise ConnectionClosed(self._closed_by)
            elif end_tick is not None and not self._frames:
                self.ping()  # learn the tick while no frame comes

    def wait_ticks(self, n):
        """Let n ticks pass, on either clock: a manual clock is stepped (clock.step), on a
        realtime one the client waits, running handlers meanwhile. Returns the tick now accepting
        inputs."""
        if n <= 0:
            return self.tick
        if self.manual_clock:
            return self.step(n)
        target = self.ping()["tick"] + n
        while True:
            left_ticks = target - self.tick
            if left_ticks <= 0:
                return self.tick
            self.poll(left_ticks / self.tps)
            self.ping()

    def _dispatch(self, line):
        msg = json.loads(line)
        op = msg.get("op")
        if isinstance(msg.get("tick"), int):
            self.tick = max(self.tick, msg["tick"])
        if op == "frame":
            events = msg.get("events", ())
            for event in events:
                self._sessions.feed(event)
            self._frames.append(msg)
            for event in events:
                for sel, handler in list(self._handlers):
                    if callable(sel) and sel(event):
                        handler(event, msg)
            for event in events:
                self._sessions.forget(event)
        elif op == "reply":
            if "id" in msg:
                self._replies[msg["id"]] = msg
            else:
                self._errors.append(msg)
                self._fire("reply.error", EmoteSimError(msg))
        elif op == "bye":
            self._closed_by = msg

    def _read_line(self, timeout):
        while b"\n" not in self._buf:
            if self._sock is None:
                return None
            self._sock.settimeout(max(timeout, 0.001))
            try:
                chunk = self._sock.recv(65536)
            except socket.timeout:
                return None
            except OSError:
                chunk = b""
            if not chunk:
                self._sock.close()
                self._sock = None
                if self._closed_by is None:
                    self._closed_by = {"op": "bye", "reason": "closed"}
                self._fire("disconnect", self._closed_by)
                return None
            self._buf += chunk
        line, _, self._buf = self._buf.partition(b"\n")
        return line.decode("utf-8").rstrip("\r")

    # -- operations (protocol.md §4) ------------------------------------------------------------

    def ping(self):
        return self.request("ping")

    def subscribe(self, events=None, dimensions=None, players=None, lossy=False,
                  empty_frames=False, matrix=False, packets=False, audiences=False):
        """subscribe (protocol.md §4). players: a list of player keys, or "own" for the players
        this client joined (kept up to date as it joins and leaves players). Replaces the previous
        subscription; it is sent again after a reconnect."""
        self._remember_subscription(events=events, dimensions=dimensions, players=players,
                                    lossy=lossy, empty_frames=empty_frames, matrix=matrix,
                                    packets=packets, audiences=audiences)
        return self._resubscribe()

    def _resubscribe(self):
        return self.request("subscribe", **self._subscription_fields())

    def _own_changed(self):
        if self._subscribed_to_own():
            self._resubscribe()

    def join(self, player, position, keep_on_disconnect=False, **state):
        r = self.request("player.join", player=player, position=list(position),
                         keep_on_disconnect=keep_on_disconnect, **state)
        self.players._by_name[player] = Player(self, player, keep_on_disconnect,
                                              dict(state, position=list(position)))
        self._own_changed()
        return r

    def update(self, player, **state):
        r = self.request("player.update", player=player, **state)
        self._remember_state(player, state)
        return r

    def event(self, player, event, **fields):
        return self.request("player.event", player=player, event=event, **fields)

    def leave(self, player):
        r = self.request("player.leave", player=player)
        if self.players._by_name.pop(player, None) is not None:
            self._own_changed()
        return r

    def play(self, player, emote, **fields):
        """emote.play; returns {'session', 'emote', 'role'} and, when a new initiator did not
        join an open offer of the emote, 'unmatched' ({'session', 'initiator', 'reason'},
        players.md §7.3); raises EmoteSimError."""
        r = self.request("emote.play", player=player, emote=emote, **fields)
        return {k: r[k] for k in ("session", "emote", "role", "unmatched") if k in r}

    def stop(self, player):
        return self.request("emote.stop", player=player)

    def stop_all(self):
        """emote.stop_all: stops EVERY player's emote on the server. A bot on a shared server
        stops its own players' instead (Player.stop)."""
        return self.request("emote.stop_all")["stopped"]

    def list_emotes(self):
        return self.request("emote.list")["emotes"]

    def info(self, emote):
        return self.request("emote.info", emote=emote)

    def reload(self):
        return self.request("emote.reload")

    def register(self, document):
        """emote.register: one Animation or Sequence object; returns its id."""
        return self.request("emote.register", document=document)["emote"]

    def unregister(self, emote):
        return self.request("emote.unregister", emote=emote)

    def world_blocks(self, set, dimension=None):
        fields = {"set": list(set)}
        if dimension is not None:
            fields["dimension"] = dimension
        return self.request("world.blocks", **fields)["changed"]

    def world_clear(self, dimension=None):
        return self.request("world.clear", **({} if dimension is None else {"dimension": dimension}))["cleared"]

    def cooldown_clear(self, player=None):
        return self.request("cooldown.clear", **({} if player is None else {"player": player}))["cleared"]

    def state(self, player=None):
        return self.request("state.get", **({} if player is None else {"player": player}))

    def state_pages(self, limit=1000):
        """state.get page by page (protocol.md §4): yields each reply, `limit` players at a time."""
        after = None
        while True:
            page = self.request("state.get", limit=limit, **({} if after is None else {"after": after}))
            yield page
            after = page.get("next")
            if after is None:
                return

    def resync(self, players=None):
        """render.resync: the listed viewers (default: all) get everything in range again."""
        fields = {} if players is None else {"players": list(players)}
        return self.request("render.resync", **fields)["viewers"]

    def step(self, ticks=1):
        """clock.step on a manual clock: returns the tick now accepting inputs."""
        return self.request("clock.step", ticks=ticks, timeout=max(self.timeout, ticks / 100))["tick"]
