"""What the blocking and the asyncio clients share: addresses, errors, event matching, packets."""

import base64
import json
import math
import socket

DEFAULT_ADDRESS = "127.0.0.1:25580"

# protocol.md §3: every error code a reply can carry.
ERROR_CODES = (
    "bad_json", "line_too_long", "unknown_op", "bad_request", "unsupported_protocol",
    "unauthorized", "forbidden", "unknown_player", "player_exists", "unknown_emote",
    "not_standalone", "disabled", "no_permission", "cooldown", "already_playing", "display_limit",
    "not_playing", "clock_not_manual", "shutting_down", "reload_empty",
    "content_unavailable", "molang_budget", "molang_error", "internal",
)


class EmoteSimError(Exception):
    """An error reply: .code (one of ERROR_CODES, e.g. 'cooldown'), .text (the text for a person,
    e.g. the mod's refusal message; .message is the same string, kept for existing bots), .detail
    (the text for a developer, naming the op and the subject), .path (the JSON path of the
    offending field, '' when none), .remaining_ticks (cooldown), what it refers to (protocol.md
    §3): .op, .player, .emote ('' when the request named none), and .reply (the whole object).
    str(error) is "CODE: DETAIL". The JavaScript and Java clients use the same names
    (docs/guide/bots.md, Errors)."""

    def __init__(self, reply):
        err = reply.get("error", {})
        self.code = err.get("code", "internal")
        self.text = err.get("message", "")
        self.path = err.get("path", "")
        self.remaining_ticks = err.get("remaining_ticks")
        self.op = err.get("op", "")
        self.player = err.get("player", "")
        self.emote = err.get("emote", "")
        self.detail = err.get("detail") or (self.text + (f" ({self.path})" if self.path else ""))
        self.reply = reply
        super().__init__(f"{self.code}: {self.detail}")

    @property
    def message(self):
        """The text for a person: the same as .text (the name this client used first)."""
        return self.text


class ConnectionClosed(Exception):
    """The connection is gone; .bye holds the server's last {"op":"bye"} line, if any."""

    def __init__(self, bye=None):
        self.bye = bye
        reason = (bye or {}).get("reason")
        super().__init__("connection closed" + (f" by the server: {reason}" if reason else ""))


def parse_address(address):
    """'HOST:PORT', '[IPV6]:PORT' or 'unix:/path' (protocol.md §1) -> (family, sockaddr)."""
    if address.startswith("unix:"):
        return socket.AF_UNIX, address[5:]
    if address.startswith("["):
        host, _, port = address[1:].partition("]:")
    else:
        host, _, port = address.rpartition(":")
    if not host or not port.isdigit():
        raise ValueError(f"bad address {address!r}: expected HOST:PORT or unix:PATH")
    return socket.AF_INET6 if ":" in host else socket.AF_INET, (host, int(port))


def hello_line(role, token, client, protocol=1):
    hello = {"op": "hello", "protocol": protocol, "role": role, "client": client}
    if token is not None:
        hello["token"] = token
    return hello


def subscribe_fields(events=None, dimensions=None, players=None, lossy=False, empty_frames=False,
                     matrix=False, packets=False, audiences=False):
    """The fields of a `subscribe` request (protocol.md §4)."""
    fields = {"lossy": lossy, "empty_frames": empty_frames, "matrix": matrix}
    if packets:
        fields["packets"] = True  # render.md §6; not with lossy
    if audiences:
        fields["audiences"] = True  # render.md §6.1; with packets
    if events is not None:
        fields["events"] = list(events)
    if dimensions is not None:
        fields["dimensions"] = list(dimensions)
    if players is not None:
        fields["players"] = list(players)
    return fields


class ClientBase:
    """The options, welcome-derived properties and subscription state both clients share."""

    def _setup(self, address, role, token, client, timeout, reconnect, backoff,
               reconnect_timeout, protocol):
        self.address = address
        self.role = role
        self.token = token
        self.client_name = client
        self.timeout = timeout
        self.auto_reconnect = reconnect
        self.backoff = backoff
        self.reconnect_timeout = reconnect_timeout
        self.protocol = protocol
        self.welcome = None
        self.tick = 0            # the last tick the server reported (welcome, replies, frames)
        self._sessions = SessionTracker()
        self._subscription = None  # the last subscribe's arguments
        self._handlers = []        # (predicate or special name, handler)

    @property
    def manual_clock(self):
        return bool(self.welcome) and self.welcome.get("clock") == "manual"

    @property
    def tps(self):
        return (self.welcome or {}).get("tps", 20) or 20

    def _remember_subscription(self, **args):
        self._subscription = args

    def _subscription_fields(self):
        """The subscribe fields for the remembered subscription; players="own" becomes the
        players this client joined (none yet: no events)."""
        args = dict(self._subscription)
        if args["players"] == "own":
            args["players"] = self.players.names() or None
            if args["players"] is None:
                args["events"] = []
        return subscribe_fields(**args)

    def _subscribed_to_own(self):
        return self._subscription is not None and self._subscription["players"] == "own"

    def _forget_players_that_left(self):
        """After a reconnect: the server made the players without keep_on_disconnect leave."""
        for n in [n for n, p in self.players._by_name.items() if not p.keep_on_disconnect]:
            del self.players._by_name[n]

    def _rejoin_requests(self):
        """After a reconnect with rejoin: the player.join fields of every joined player, with its
        last state (the join fields, then each update's)."""
        return [dict(p.fields, player=p.name, keep_on_disconnect=p.keep_on_disconnect)
                for p in self.players._by_name.values()]

    def _remember_state(self, player, state):
        p = self.players._by_name.get(player)
        if p is not None:
            p.fields.update(state)

    def _fire(self, name, arg):
        for sel, handler in list(self._handlers):
            if sel == name:
                handler(arg)


class PlayerBase:
    def __init__(self, client, name, keep_on_disconnect=False, fields=None):
        self.client = client
        self.name = name
        self.keep_on_disconnect = keep_on_disconnect
        self.fields = dict(fields or {})  # the state last sent for it: what a rejoin sends

    def about(self, event):
        """Whether `event` is about this player or a session it takes part in."""
        return self.client._sessions.about(event, self.name)

    def on(self, selector, handler):
        """Like the client's on(), for the events about this player."""
        sel = matcher(selector)
        return self.client.on(lambda e: self.about(e) and sel(e), handler)

    def _selects(self, what):
        pred = matcher(what)
        return lambda e: self.about(e) and pred(e)

    def _describe(self, what):
        return f'{describe_selector(what)} about player "{self.name}"'

    def __repr__(self):
        return f"{type(self).__name__}({self.name!r})"


class PlayersBase:
    """client.players: the joined players by key."""

    def __init__(self, client):
        self._client = client
        self._by_name = {}

    def names(self):
        return list(self._by_name)

    def __getitem__(self, name):
        return self._by_name[name]

    def __contains__(self, name):
        return name in self._by_name

    def __iter__(self):
        return iter(list(self._by_name.values()))

    def __len__(self):
        return len(self._by_name)


def selects(selector, event_type):
    """Whether an `on`/`wait_for` selector (a type name or a prefix ending in '.') selects a type."""
    return event_type.startswith(selector) if selector.endswith(".") else event_type == selector


def describe_selector(what):
    """How `what` (an event type, a prefix or a predicate) reads in a message."""
    if isinstance(what, str):
        return f'a "{what}*" event' if what.endswith(".") else f'a "{what}" event'
    return f"an event matching {getattr(what, '__name__', 'the predicate')}"


def facing_partner(position, yaw, distance=1.5):
    """The placement of a partner for a two-player emote (players.md §7.4): `distance` blocks (at
    most 2) in front of an initiator at `position` facing `yaw`, on the same level, facing it back
    (yaw + 180). Returns {'position', 'yaw'} for player.join or player.update."""
    if not 0 < distance <= 2:
        raise ValueError("distance must be in (0, 2] blocks (players.md §7.4)")
    r = math.radians(yaw)
    x, y, z = position
    return {"position": [x - math.sin(r) * distance, y, z + math.cos(r) * distance],
            "yaw": yaw + 180}


def matcher(what):
    """An event predicate from a type name, a prefix ('playback.') or a callable."""
    if callable(what):
        return what
    if not isinstance(what, str):
        raise TypeError("expected an event type, a prefix ending in '.', or a predicate")
    return lambda e: selects(what, e.get("type", ""))


class SessionTracker:
    """Which players take part in which session, from the events seen (for player handles)."""

    def __init__(self):
        self._players = {}  # session -> set of player keys
        self._handles = {}  # display handle -> session

    def feed(self, event):
        t = event.get("type")
        s = event.get("session")
        if t in ("playback.started", "command", "callback") and s is not None:
            self._players.setdefault(s, set()).add(event["player"])
        elif t == "display.spawn":
            self._handles[event["handle"]] = s
        elif t == "display.remove":
            for h in event.get("handles", ()):
                self._handles.pop(h, None)

    def forget(self, event):
        if event.get("type") == "playback.stopped":
            self._players.pop(event.get("session"), None)

    def about(self, event, player):
        """Whether `event` is about `player` or a session it takes part in (protocol.md §4)."""
        for key in ("player", "initiator", "partner"):
            if event.get(key) == player:
                return True
        s = event.get("session")
        if s is None and event.get("type") == "display.update":
            s = self._handles.get(event.get("handle"))
        return s is not None and player in self._players.get(s, ())


# -- packets (render.md §6) -------------------------------------------------------------------


def entry_recipients(frame, entry):
    """The players a packet entry of `frame` goes to: its "to" list, or with "audience" (a
    subscription with audiences, render.md §6.1) the frame's "audiences"[audience]. Raises
    ValueError naming the tick and the index when the frame has no such audience."""
    if "audience" not in entry:
        return entry["to"]
    index = entry["audience"]
    audiences = frame.get("audiences") or []
    if type(index) is not int or not 0 <= index < len(audiences):
        raise ValueError(f"frame of tick {frame.get('tick')}: packet entry names audience "
                         f"{json.dumps(index)}, but the frame has {len(audiences)} audiences "
                         "(render.md §6.1)")
    return audiences[index]


def viewer_packets(frame, player):
    """The packets of `frame` for one viewer, in the order it must receive them: a list of
    (protocol, bytes), each bytes one packet (packet id varint + fields, no length prefix). Reads
    entries with "to" lists and those naming an audience (render.md §6.1) alike."""
    return [(e["protocol"], base64.b64decode(e["data"]))
            for e in frame.get("packets", ()) if player in entry_recipients(frame, e)]


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
