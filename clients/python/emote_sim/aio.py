"""The asyncio flavour of the client: the same shape as emote_sim.Client with coroutines.

    import asyncio
    from emote_sim import aio

    async def main():
        c = await aio.connect("127.0.0.1:25580", client="my-bot/1.0")
        await c.subscribe(events=["playback."], players="own")
        alice = await c.players.join("alice", position=[0, 64, 0])
        await alice.play("sample:wave")
        c.on("playback.stopped", lambda e: print("stopped", e["reason"]))
        await c.wait_ticks(20)
        await alice.update(position=[3, 64, 0])
        print((await alice.wait_for("playback.stopped", ticks=5))["reason"])
        async for frame in c.frames(timeout=0.5):
            print(frame["tick"])
        await c.close()

    asyncio.run(main())

A reader task dispatches replies to their requests and frames to handlers, waiters and the frame
queue (bounded: the oldest frames are dropped past `max_queued_frames`). With reconnect=True a
lost connection is retried with exponential backoff; pending requests fail with
ConnectionClosed, and the subscription is sent again once connected.
"""

import asyncio
import collections
import itertools
import json
import time

from ._common import (DEFAULT_ADDRESS, ClientBase, ConnectionClosed, EmoteSimError, PlayerBase,
                      PlayersBase, describe_selector, hello_line, matcher, parse_address)

__all__ = ["connect", "AsyncClient", "AsyncPlayer"]

# How many frames wait_for looks back at most (see AsyncClient._recent).
RECENT_FRAMES = 256


async def connect(address=DEFAULT_ADDRESS, **options):
    """Connect, say hello and return an AsyncClient (options as AsyncClient's)."""
    c = AsyncClient(address, **options)
    await c.connect()
    return c


class AsyncPlayer(PlayerBase):
    async def play(self, emote, **fields):
        return await self.client.play(self.name, emote, **fields)

    async def stop(self):
        return await self.client.stop(self.name)

    async def update(self, **state):
        return await self.client.update(self.name, **state)

    async def event(self, event, **fields):
        return await self.client.event(self.name, event, **fields)

    async def leave(self):
        return await self.client.leave(self.name)

    async def wait_for(self, what, timeout=None, ticks=None):
        return await self.client.wait_for(self._selects(what), timeout, ticks,
                                          description=self._describe(what))

    async def frames(self, timeout=None):
        """Like AsyncClient.frames, reduced to the events about this player."""
        async for frame in self.client.frames(timeout):
            events = [e for e in frame.get("events", ()) if self.about(e)]
            if events:
                yield dict(frame, events=events)


class _AsyncPlayers(PlayersBase):
    async def join(self, player, position, keep_on_disconnect=False, **state):
        await self._client.join(player, position, keep_on_disconnect=keep_on_disconnect, **state)
        return self._by_name[player]


class AsyncClient(ClientBase):
    def __init__(self, address=DEFAULT_ADDRESS, role="controller", token=None,
                 client="emote_sim.aio/1", timeout=10.0, reconnect=False, backoff=(0.05, 2.0),
                 reconnect_timeout=30.0, max_queued_frames=10000, protocol=1, rejoin=False):
        self._setup(address, role, token, client, timeout, reconnect, backoff, reconnect_timeout,
                    protocol)
        self.rejoin = rejoin
        self.players = _AsyncPlayers(self)
        self._reader = None
        self._writer = None
        self._task = None
        self._ids = itertools.count(1)
        self._pending = {}
        self._frames = collections.deque(maxlen=max_queued_frames)
        self._frame_ready = asyncio.Event()
        self._waiters = []            # (predicate, future)
        self._closing = False
        self._reconnecting = None
        # Frames since the latest reply's tick (the replies for tick N come before its frame,
        # protocol.md §3): wait_for looks at them too, so an event that arrived together with the
        # reply just awaited is not missed; an event one wait_for returned is not returned again.
        self._reply_tick = 0
        self._recent = []
        self._taken = set()  # id() of events in _recent already returned

    @property
    def connected(self):
        return self._writer is not None

    async def connect(self):
        family, sockaddr = parse_address(self.address)
        if isinstance(sockaddr, str):
            reader, writer = await asyncio.wait_for(asyncio.open_unix_connection(sockaddr), self.timeout)
        else:
            reader, writer = await asyncio.wait_for(asyncio.open_connection(*sockaddr), self.timeout)
        writer.write((json.dumps(hello_line(self.role, self.token, self.client_name, self.protocol))
                      + "\n").encode())
        line = await asyncio.wait_for(reader.readline(), self.timeout)
        if not line:
            writer.close()
            raise ConnectionClosed()
        msg = json.loads(line)
        if msg.get("op") == "reply" and not msg.get("ok", True):
            writer.close()
            raise EmoteSimError(msg)
        self._reader, self._writer = reader, writer
        self.welcome = msg
        self.tick = msg.get("tick", 0)
        self._closing = False
        self._task = asyncio.ensure_future(self._read_loop(reader))
        return msg

    async def close(self):
        self._closing = True
        if self._reconnecting is not None:
            self._reconnecting.cancel()
        if self._writer is not None:
            try:
                self._writer.write(b'{"op":"bye"}\n')
                await self._writer.drain()
            except (OSError, ConnectionError):
                pass
            self._writer.close()
            self._writer = None
        if self._task is not None:
            await asyncio.gather(self._task, return_exceptions=True)

    async def __aenter__(self):
        return self

    async def __aexit__(self, *exc):
        await self.close()

    async def _read_loop(self, reader):
        bye = None
        try:
            while True:
                line = await reader.readline()
                if not line:
                    break
                msg = json.loads(line)
                if msg.get("op") == "bye":
                    bye = msg
                self._dispatch(msg)
        except (OSError, ConnectionError, ValueError):
            pass
        self._lost(bye or {"op": "bye", "reason": "closed"})

    def _lost(self, bye):
        if self._writer is not None:
            self._writer.close()
        self._writer = None
        for fut in self._pending.values():
            if not fut.done():
                fut.set_exception(ConnectionClosed(bye))
        self._pending.clear()
        for _, fut in self._waiters:
            if not fut.done():
                fut.set_exception(ConnectionClosed(bye))
        self._waiters.clear()
        self._frame_ready.set()
        self._fire("disconnect", bye)
        if self.auto_reconnect and not self._closing:
            self._reconnecting = asyncio.ensure_future(self._reconnect_loop())

    async def _reconnect_loop(self):
        delay, longest = self.backoff
        deadline = time.monotonic() + self.reconnect_timeout
        while not self._closing:
            try:
                welcome = await self.connect()
            except (OSError, ConnectionClosed, asyncio.TimeoutError):
                if time.monotonic() + delay > deadline:
                    self._fire("reconnect_failed", None)
                    return
                await asyncio.sleep(delay)
                delay = min(delay * 2, longest)
                continue
            if self.rejoin:
                for fields in self._rejoin_requests():
                    try:
                        await self.request("player.join", **fields)
                    except EmoteSimError as e:
                        if e.code != "player_exists":  # kept on disconnect by a server still up
                            raise
            else:
                self._forget_players_that_left()
            if self._subscription is not None:
                await self._resubscribe()
            self._fire("reconnect", welcome)
            return

    async def reconnected(self, timeout=None):
        """Wait until a reconnect in progress has finished (returns at once when connected)."""
        if self._reconnecting is not None:
            await asyncio.wait_for(asyncio.shield(self._reconnecting),
                                   self.reconnect_timeout if timeout is None else timeout)
        if self._writer is None:
            raise ConnectionClosed()

    def _dispatch(self, msg):
        if isinstance(msg.get("tick"), int):
            self.tick = max(self.tick, msg["tick"])
        op = msg.get("op")
        if op == "reply" and isinstance(msg.get("tick"), int) and msg["tick"] > self._reply_tick:
            self._reply_tick = msg["tick"]
            keep = [f for f in self._recent if f["tick"] >= self._reply_tick]
            kept = {id(e) for f in keep for e in f.get("events", ())}
            self._taken &= kept
            self._recent = keep
        if op == "reply":
            fut = self._pending.pop(msg.get("id"), None) if "id" in msg else None
            if fut is not None:
                if not fut.done():
                    fut.set_result(msg)
            elif "id" not in msg:
                self._fire("reply.error", EmoteSimError(msg))
        elif op == "frame":
            events = msg.get("events", ())
            for e in events:
                self._sessions.feed(e)
            if msg.get("tick", 0) >= self._reply_tick:
                self._recent.append(msg)
                if len(self._recent) > RECENT_FRAMES:  # a client that never asks
                    dropped = self._recent.pop(0)
                    self._taken -= {id(e) for e in dropped.get("events", ())}
            self._frames.append(msg)
            self._frame_ready.set()
            for e in events:
                for sel, handler in list(self._handlers):
                    if callable(sel) and sel(e):
                        handler(e, msg)
                for entry in list(self._waiters):
                    pred, fut = entry
                    if not fut.done() and id(e) not in self._taken and pred(e):
                        self._taken.add(id(e))
                        fut.set_result(e)
                        self._waiters.remove(entry)
            for e in events:
                self._sessions.forget(e)

    # -- requests --------------------------------------------------------------------------------

    def send_raw(self, obj_or_line):
        if self._writer is None:
            raise ConnectionClosed()
        line = obj_or_line if isinstance(obj_or_line, str) else json.dumps(obj_or_line, separators=(",", ":"))
        self._writer.write(line.encode("utf-8") + b"\n")

    async def request(self, op, timeout=None, **fields):
        rid = next(self._ids)
        fut = asyncio.get_running_loop().create_future()
        self._pending[rid] = fut
        self.send_raw(dict(op=op, id=rid, **fields))
        await self._writer.drain()
        try:
            reply = await asyncio.wait_for(fut, self.timeout if timeout is None else timeout)
        finally:
            self._pending.pop(rid, None)
        if not reply.get("ok"):
            raise EmoteSimError(reply)
        return reply

    # -- events and waiting ---------------------------------------------------------------------

    def on(self, selector, handler):
        """Like Client.on (type, prefix, predicate, or 'reply.error' / 'disconnect' /
        'reconnect' / 'reconnect_failed'); returns a function that removes the handler."""
        special = ("reply.error", "disconnect", "reconnect", "reconnect_failed")
        entry = (selector if selector in special else matcher(selector), handler)
        self._handlers.append(entry)
        return lambda: self._handlers.remove(entry) if entry in self._handlers else None

    async def wait_for(self, what, timeout=None, ticks=None, description=None):
        """The next event that `what` selects: one arriving after the call, or already received
        in a frame of the latest reply's tick or later (so `await p.update(...)` then
        `await p.wait_for(...)` sees what the update caused even when its frame came with the
        reply); each event is returned by one wait_for only. `ticks` bounds the wait in ticks,
        advancing a manual clock itself (see Client.wait_for). TimeoutError when nothing matched
        in time."""
        pred = matcher(what)
        waited = description or describe_selector(what)
        for f in self._recent:
            for e in f.get("events", ()):
                if id(e) not in self._taken and pred(e):
                    self._taken.add(id(e))
                    return e
        fut = asyncio.get_running_loop().create_future()
        entry = (pred, fut)
        self._waiters.append(entry)
        try:
            if ticks is None:
                wall = self.timeout if timeout is None else timeout
                try:
                    return await asyncio.wait_for(asyncio.shield(fut), wall)
                except asyncio.TimeoutError:
                    raise TimeoutError(f"waited {wall:g} s for {waited}; none came") from None
            if self.manual_clock:
                for _ in range(ticks):
                    if fut.done():
                        break
                    await self.step(1)
                if not fut.done():
                    raise TimeoutError(f"waited {ticks} ticks for {waited}; none came")
                return fut.result()
            end_tick = (await self.ping())["tick"] + ticks
            wall = max(self.timeout if timeout is None else timeout, ticks / self.tps + 2.0)
            deadline = time.monotonic() + wall
            while not fut.done():
                if self.tick >= end_tick:
                    raise TimeoutError(f"waited {ticks} ticks for {waited}; none came")
                if time.monotonic() > deadline:
                    raise TimeoutError(f"waited {wall:g} s for {waited}; none came")
                done, _ = await asyncio.wait({fut}, timeout=max(end_tick - self.tick, 1) / self.tps)
                if not done:
                    await self.ping()
            return fut.result()
        finally:
            if entry in self._waiters:
                self._waiters.remove(entry)
            if not fut.done():
                fut.cancel()

    async def wait_ticks(self, n):
        """Let n ticks pass on either clock (manual: clock.step; realtime: wait). Returns the tick
        now accepting inputs."""
        if n <= 0:
            return self.tick
        if self.manual_clock:
            return await self.step(n)
        target = (await self.ping())["tick"] + n
        while self.tick < target:
            await asyncio.sleep((target - self.tick) / self.tps)
            await self.ping()
        return self.tick

    async def next_frame(self, timeout=None):
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        while not self._frames:
            if self._writer is None:
                raise ConnectionClosed()
            self._frame_ready.clear()
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            try:
                await asyncio.wait_for(self._frame_ready.wait(), left)
            except asyncio.TimeoutError:
                return None
        return self._frames.popleft()

    async def frames(self, timeout=None):
        """Async iteration over frames until none arrives for `timeout` seconds."""
        while True:
            frame = await self.next_frame(timeout)
            if frame is None:
                return
            yield frame

    # -- operations ------------------------------------------------------------------------------

    async def ping(self):
        return await self.request("ping")

    async def subscribe(self, events=None, dimensions=None, players=None, lossy=False,
                        empty_frames=False, matrix=False, packets=False, audiences=False):
        self._remember_subscription(events=events, dimensions=dimensions, players=players,
                                    lossy=lossy, empty_frames=empty_frames, matrix=matrix,
                                    packets=packets, audiences=audiences)
        return await self._resubscribe()

    async def _resubscribe(self):
        return await self.request("subscribe", **self._subscription_fields())

    async def _own_changed(self):
        if self._subscribed_to_own():
            await self._resubscribe()

    async def join(self, player, position, keep_on_disconnect=False, **state):
        r = await self.request("player.join", player=player, position=list(position),
                               keep_on_disconnect=keep_on_disconnect, **state)
        self.players._by_name[player] = AsyncPlayer(self, player, keep_on_disconnect,
                                              dict(state, position=list(position)))
        await self._own_changed()
        return r

    async def update(self, player, **state):
        r = await self.request("player.update", player=player, **state)
        self._remember_state(player, state)
        return r

    async def event(self, player, event, **fields):
        return await self.request("player.event", player=player, event=event, **fields)

    async def leave(self, player):
        r = await self.request("player.leave", player=player)
        if self.players._by_name.pop(player, None) is not None:
            await self._own_changed()
        return r

    async def play(self, player, emote, **fields):
        r = await self.request("emote.play", player=player, emote=emote, **fields)
        return {k: r[k] for k in ("session", "emote", "role", "unmatched") if k in r}

    async def stop(self, player):
        return await self.request("emote.stop", player=player)

    async def list_emotes(self):
        return (await self.request("emote.list"))["emotes"]

    async def state(self, player=None):
        return await self.request("state.get", **({} if player is None else {"player": player}))

    async def state_pages(self, limit=1000):
        """state.get page by page (protocol.md §4): yields each reply, `limit` players at a time."""
        after = None
        while True:
            extra = {} if after is None else {"after": after}
            page = await self.request("state.get", limit=limit, **extra)
            yield page
            after = page.get("next")
            if after is None:
                return

    async def step(self, ticks=1):
        return (await self.request("clock.step", ticks=ticks,
                                   timeout=max(self.timeout, ticks / 100)))["tick"]
