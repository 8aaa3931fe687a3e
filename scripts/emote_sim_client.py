#!/usr/bin/env python3
"""A small client for the emote-sim NDJSON protocol (docs/guide/proxy-and-bots.md). Python 3
standard library only.

    from emote_sim_client import Client

    with Client("127.0.0.1:25580", client="my-bot/1.0") as c:      # connects and says hello
        c.subscribe(events=["playback.", "partner."])
        c.join("alice", position=[0, 64, 0], yaw=0)
        print(c.play("alice", "sample:wave"))                        # {'session': 1, ...}
        for frame in c.frames(timeout=5):
            print(frame["tick"], [e["type"] for e in frame["events"]])

Viewers (render.md): join a player with `protocol=769` (and `entity_id`, `name`, ...), subscribe
with `packets=True`, and `viewer_packets(frame, "alice")` gives that player's packets in order as
(protocol, bytes); `packet_id(bytes)` reads the packet id.

Requests with an id wait for their reply and raise EmoteSimError when it is an error. Frames that
arrive meanwhile are kept in order and handed out by next_frame() / frames().

Run it directly for a quick interactive session: `python3 scripts/emote_sim_client.py ADDRESS`
reads requests as JSON lines from stdin (the hello is sent for you) and prints every line the
server sends.
"""

import base64
import collections
import itertools
import json
import socket
import sys
import threading
import time

__all__ = ["Client", "EmoteSimError", "ConnectionClosed", "parse_address"]

DEFAULT_ADDRESS = "127.0.0.1:25580"


class EmoteSimError(Exception):
    """An error reply: .code (e.g. 'cooldown'), .message, .path, .reply (the whole object)."""

    def __init__(self, reply):
        err = reply.get("error", {})
        self.code = err.get("code", "internal")
        self.message = err.get("message", "")
        self.path = err.get("path", "")
        self.reply = reply
        super().__init__(f"{self.code}: {self.message}" + (f" ({self.path})" if self.path else ""))


class ConnectionClosed(Exception):
    """The server closed the connection; .bye holds its last {"op":"bye"} line, if any."""

    def __init__(self, bye=None):
        self.bye = bye
        reason = (bye or {}).get("reason")
        super().__init__("connection closed" + (f" by the server: {reason}" if reason else ""))


# -- packets (render.md §6) -------------------------------------------------------------------


def viewer_packets(frame, player):
    """The packets of `frame` for one viewer, in the order it must receive them: a list of
    (protocol, bytes), each bytes one packet (packet id varint + fields, no length prefix)."""
    return [(e["protocol"], base64.b64decode(e["data"]))
            for e in frame.get("packets", ()) if player in e["to"]]


def read_varint(data, pos=0):
    """A Minecraft VarInt at `pos`: (value, next position). Raises ValueError when malformed."""
    value = 0
    for i in range(5):
        if pos + i >= len(data):
            raise ValueError("truncated varint")
        b = data[pos + i]
        value |= (b & 0x7F) << (7 * i)
        if not b & 0x80:
            if value >= 1 << 31:
                value -= 1 << 32
            return value, pos + i + 1
    raise ValueError("varint longer than 5 bytes")


def packet_id(packet):
    """The packet id of one packet's bytes (its first varint)."""
    return read_varint(packet)[0]


def parse_address(address):
    """'HOST:PORT', '[IPV6]:PORT' or 'unix:/path' -> (family, sockaddr)."""
    if address.startswith("unix:"):
        return socket.AF_UNIX, address[5:]
    if address.startswith("["):
        host, _, port = address[1:].partition("]:")
    else:
        host, _, port = address.rpartition(":")
    if not host or not port.isdigit():
        raise ValueError(f"bad address {address!r}: expected HOST:PORT or unix:PATH")
    return socket.AF_INET6 if ":" in host else socket.AF_INET, (host, int(port))


class Client:
    """One connection to an emote-sim server.

    address: 'HOST:PORT' or 'unix:/path'; role: 'controller' or 'observer'; token: the role's token
    when the server requires one; client: a name the server logs.
    """

    def __init__(self, address=DEFAULT_ADDRESS, role="controller", token=None,
                 client="emote_sim_client.py/1", timeout=10.0, connect=True):
        self.address = address
        self.role = role
        self.token = token
        self.client_name = client
        self.timeout = timeout
        self.welcome = None
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
        """Open the socket, send hello and return the welcome object."""
        family, sockaddr = parse_address(self.address)
        if family == socket.AF_UNIX:
            self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self._sock.settimeout(self.timeout)
            self._sock.connect(sockaddr)
        else:
            self._sock = socket.create_connection(sockaddr, timeout=self.timeout)
            self._sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        hello = {"op": "hello", "protocol": 1, "role": self.role, "client": self.client_name}
        if self.token is not None:
            hello["token"] = self.token
        self.send_raw(hello)
        line = self._read_line(self.timeout)
        if line is None:
            raise ConnectionClosed(self._closed_by)
        msg = json.loads(line)
        if msg.get("op") == "reply" and not msg.get("ok", True):
            raise EmoteSimError(msg)
        if msg.get("op") != "welcome":
            raise RuntimeError(f"expected welcome, got {line!r}")
        self.welcome = msg
        return msg

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

    @property
    def manual_clock(self):
        return bool(self.welcome) and self.welcome.get("clock") == "manual"

    # -- sending ---------------------------------------------------------------------------------

    def send_raw(self, obj_or_line):
        """Send one message (a dict, or a line of text) without waiting for anything."""
        line = obj_or_line if isinstance(obj_or_line, str) else json.dumps(obj_or_line, separators=(",", ":"))
        with self._lock:
            self._sock.sendall(line.encode("utf-8") + b"\n")

    def send(self, op, **fields):
        """Send a request without an id: the server answers only if it fails (see errors())."""
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

    def _dispatch(self, line):
        msg = json.loads(line)
        op = msg.get("op")
        if op == "frame":
            self._frames.append(msg)
        elif op == "reply":
            if "id" in msg:
                self._replies[msg["id"]] = msg
            else:
                self._errors.append(msg)
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
            if not chunk:
                self._sock.close()
                self._sock = None
                if self._closed_by is None:
                    self._closed_by = {"op": "bye", "reason": "closed"}
                return None
            self._buf += chunk
        line, _, self._buf = self._buf.partition(b"\n")
        return line.decode("utf-8").rstrip("\r")

    # -- operations (protocol.md §4) ------------------------------------------------------------

    def ping(self):
        return self.request("ping")

    def subscribe(self, events=None, dimensions=None, lossy=False, empty_frames=False, matrix=False,
                  packets=False):
        fields = {"lossy": lossy, "empty_frames": empty_frames, "matrix": matrix}
        if packets:
            fields["packets"] = True  # render.md §6; not with lossy
        if events is not None:
            fields["events"] = list(events)
        if dimensions is not None:
            fields["dimensions"] = list(dimensions)
        return self.request("subscribe", **fields)

    def join(self, player, position, keep_on_disconnect=False, **state):
        return self.request("player.join", player=player, position=list(position),
                            keep_on_disconnect=keep_on_disconnect, **state)

    def update(self, player, **state):
        return self.request("player.update", player=player, **state)

    def event(self, player, event, **fields):
        return self.request("player.event", player=player, event=event, **fields)

    def leave(self, player):
        return self.request("player.leave", player=player)

    def play(self, player, emote, **fields):
        """emote.play; returns {'session', 'emote', 'role'} or raises EmoteSimError."""
        r = self.request("emote.play", player=player, emote=emote, **fields)
        return {k: r[k] for k in ("session", "emote", "role") if k in r}

    def stop(self, player):
        return self.request("emote.stop", player=player)

    def stop_all(self):
        return self.request("emote.stop_all")["stopped"]

    def list_emotes(self):
        return self.request("emote.list")["emotes"]

    def info(self, emote):
        return self.request("emote.info", emote=emote)

    def reload(self):
        return self.request("emote.reload")

    def state(self, player=None):
        return self.request("state.get", **({} if player is None else {"player": player}))

    def resync(self, players=None):
        """render.resync: the listed viewers (default: all) get everything in range again."""
        fields = {} if players is None else {"players": list(players)}
        return self.request("render.resync", **fields)["viewers"]

    def step(self, ticks=1):
        """clock.step on a manual clock: returns the tick now accepting inputs."""
        return self.request("clock.step", ticks=ticks, timeout=max(self.timeout, ticks / 100))["tick"]


def _main(argv):
    address = argv[1] if len(argv) > 1 else DEFAULT_ADDRESS
    role = argv[2] if len(argv) > 2 else "controller"
    c = Client(address, role=role, client="emote_sim_client.py/interactive")
    print(json.dumps(c.welcome), flush=True)

    def pump():
        try:
            while True:
                line = c._read_line(3600)
                if line is None and c._sock is None:
                    break
                if line is not None:
                    print(line, flush=True)
        except OSError:
            pass

    t = threading.Thread(target=pump, daemon=True)
    t.start()
    for line in sys.stdin:
        if line.strip():
            c.send_raw(line.strip())
    time.sleep(0.5)
    c.close()
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv))
