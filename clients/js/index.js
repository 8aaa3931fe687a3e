// emote-sim's JavaScript client (docs/guide/bots.md): the NDJSON protocol of
// docs/spec/protocol.md as promises and events, for bots and tools. Node.js 20, no dependencies.
//
//   import { connect } from 'emote-sim-client'
//   const sim = await connect('127.0.0.1:25580', { client: 'my-bot/1.0' })
//   await sim.subscribe({ events: ['playback.'], players: 'own' })
//   const alice = await sim.players.join('alice', { position: [0, 64, 0] })
//   await alice.play('sample:wave')
//   await sim.waitTicks(20)                       // either clock: steps a manual one
//   await alice.update({ position: [3, 64, 0] })  // walk away
//   console.log((await alice.waitFor('playback.stopped', { ticks: 5 })).reason) // MOVED

import net from 'node:net'

export const DEFAULT_ADDRESS = '127.0.0.1:25580'

// protocol.md §3: every error code a reply can carry.
export const ERROR_CODES = Object.freeze([
  'bad_json', 'line_too_long', 'unknown_op', 'bad_request', 'unsupported_protocol',
  'unauthorized', 'forbidden', 'unknown_player', 'player_exists', 'unknown_emote',
  'not_standalone', 'disabled', 'no_permission', 'cooldown', 'already_playing', 'display_limit',
  'not_playing', 'clock_not_manual', 'shutting_down', 'reload_empty',
  'content_unavailable', 'molang_budget', 'molang_error', 'internal'
])

// How many frames waitFor looks back at most (see Client._recent).
const RECENT_FRAMES = 256

const SPECIAL = new Set(['reply.error', 'disconnect', 'reconnect', 'reconnect.failed', 'frame'])

/** An error reply: `code` (one of ERROR_CODES), `text` (the text for a person, e.g. the mod's
 * refusal message), `detail` (the text for a developer, naming the op and the subject), `path`
 * (JSON path of the offending field, '' when none), `remainingTicks` (cooldown), what it refers
 * to (protocol.md §3): `op`, `player`, `emote` ('' when the request named none), and `reply` (the
 * whole object). Its `message` (Error's) is `CODE: DETAIL`. The Python and Java clients use the
 * same names (docs/guide/bots.md, Errors). */
export class EmoteSimError extends Error {
  constructor (reply) {
    const err = reply.error ?? {}
    const code = err.code ?? 'internal'
    const text = err.message ?? ''
    const path = err.path ?? ''
    const detail = err.detail || `${text}${path ? ` (${path})` : ''}`
    super(`${code}: ${detail}`)
    this.name = 'EmoteSimError'
    this.code = code
    this.path = path
    this.text = text
    this.op = err.op ?? ''
    this.player = err.player ?? ''
    this.emote = err.emote ?? ''
    this.detail = detail
    this.remainingTicks = err.remaining_ticks
    this.reply = reply
  }
}

/** The connection is gone; `bye` is the server's last {"op":"bye"} line, if any. */
export class ConnectionClosedError extends Error {
  constructor (bye, message) {
    super(message ?? `connection closed${bye?.reason ? ` by the server: ${bye.reason}` : ''}`)
    this.name = 'ConnectionClosedError'
    this.code = 'connection_closed'
    this.bye = bye
  }
}

/** Nothing matched in time (waitFor, a request's reply). */
export class TimeoutError extends Error {
  constructor (message) {
    super(message)
    this.name = 'TimeoutError'
    this.code = 'timeout'
  }
}

/** 'HOST:PORT', '[IPV6]:PORT' or 'unix:/path' (protocol.md §1) -> net.connect options. */
export function parseAddress (address) {
  if (address.startsWith('unix:')) return { path: address.slice(5) }
  let host, port
  if (address.startsWith('[')) {
    const end = address.indexOf(']:')
    host = end > 0 ? address.slice(1, end) : ''
    port = end > 0 ? address.slice(end + 2) : ''
  } else {
    const colon = address.lastIndexOf(':')
    host = colon > 0 ? address.slice(0, colon) : ''
    port = colon > 0 ? address.slice(colon + 1) : ''
  }
  if (!host || !/^\d+$/.test(port)) throw new Error(`bad address ${JSON.stringify(address)}: expected HOST:PORT or unix:PATH`)
  return { host, port: Number(port) }
}

/** How `what` (an event type, a prefix or a predicate) reads in a message. */
export function describeSelector (what) {
  if (typeof what === 'string') return what.endsWith('.') ? `a "${what}*" event` : `a "${what}" event`
  return `an event matching ${what.name || 'the predicate'}`
}

/** The placement of a partner for a two-player emote (players.md §7.4): `distance` blocks (at
 * most 2) in front of an initiator at `position` facing `yaw`, on the same level, facing it back
 * (yaw + 180). Returns {position, yaw} to pass to player.join or player.update. */
export function facingPartner (position, yaw, distance = 1.5) {
  if (!(distance > 0 && distance <= 2)) throw new RangeError('distance must be in (0, 2] blocks (players.md §7.4)')
  const r = (yaw * Math.PI) / 180
  const [x, y, z] = position
  return { position: [x - Math.sin(r) * distance, y, z + Math.cos(r) * distance], yaw: yaw + 180 }
}

/** A predicate from an event type ('playback.stopped'), a prefix ending in '.' ('partner.') or a
 * function. */
export function matcher (what) {
  if (typeof what === 'function') return what
  if (typeof what !== 'string') throw new TypeError("expected an event type, a prefix ending in '.', or a predicate")
  return what.endsWith('.') ? (e) => e.type?.startsWith(what) : (e) => e.type === what
}

// -- packets (render.md §6) ------------------------------------------------------------------

/** The players an entry of `frame` goes to: its `to` list, or with `audience` (a subscription
 * with `audiences`, render.md §6.1) the frame's `audiences[audience]`. Throws a RangeError naming
 * the tick and the index when the frame has no such audience. */
export function entryRecipients (frame, entry) {
  if (entry.audience === undefined) return entry.to
  const list = frame.audiences?.[entry.audience]
  if (!Number.isInteger(entry.audience) || !Array.isArray(list)) {
    throw new RangeError(`frame of tick ${frame.tick}: packet entry names audience ${JSON.stringify(entry.audience)}, ` +
      `but the frame has ${frame.audiences?.length ?? 0} audiences (render.md §6.1)`)
  }
  return list
}

/** The packets of `frame` for one viewer, in the order it must receive them: [{protocol, data}],
 * each `data` one packet (packet id varint + fields, no length prefix). Reads entries with `to`
 * lists and those naming an audience (render.md §6.1) alike. */
export function viewerPackets (frame, player) {
  return (frame.packets ?? []).filter((e) => entryRecipients(frame, e).includes(player))
    .map((e) => ({ protocol: e.protocol, data: Buffer.from(e.data, 'base64') }))
}

/** A Minecraft VarInt at `pos`: [value, next position]. Throws on a malformed one. */
export function readVarInt (buf, pos = 0) {
  let value = 0
  for (let i = 0; i < 5; i++) {
    if (pos + i >= buf.length) throw new RangeError('truncated varint')
    const b = buf[pos + i]
    value |= (b & 0x7f) << (7 * i)
    if (!(b & 0x80)) return [value | 0, pos + i + 1]
  }
  throw new RangeError('varint longer than 5 bytes')
}

/** The packet id of one packet's bytes (its first varint). */
export function packetId (packet) {
  return readVarInt(packet)[0]
}

// -- sessions: which events are about a player ---------------------------------------------

class SessionTracker {
  #players = new Map() // session -> Set of player keys
  #handles = new Map() // display handle -> session
  feed (e) {
    if ((e.type === 'playback.started' || e.type === 'command' || e.type === 'callback') && e.session != null) {
      if (!this.#players.has(e.session)) this.#players.set(e.session, new Set())
      this.#players.get(e.session).add(e.player)
    } else if (e.type === 'display.spawn') {
      this.#handles.set(e.handle, e.session)
    } else if (e.type === 'display.remove') {
      for (const h of e.handles ?? []) this.#handles.delete(h)
    }
  }

  forget (e) {
    if (e.type === 'playback.stopped') this.#players.delete(e.session)
  }

  // protocol.md §4: the player's own records and those of the sessions it takes part in.
  about (e, player) {
    if (e.player === player || e.initiator === player || e.partner === player) return true
    let s = e.session
    if (s == null && e.type === 'display.update') s = this.#handles.get(e.handle)
    return s != null && (this.#players.get(s)?.has(player) ?? false)
  }
}

// -- players ---------------------------------------------------------------------------------

/** A player this client joined: the player ops without repeating its key, and waiting for the
 * events about it. */
export class Player {
  constructor (client, name, keepOnDisconnect = false, fields = {}) {
    this.client = client
    this.name = name
    this.keepOnDisconnect = keepOnDisconnect
    // The state last sent for it (join fields, then each update's): what a rejoin sends.
    this.fields = { ...fields }
  }

  play (emote, fields = {}) { return this.client.play(this.name, emote, fields) }
  /** emote.stop of this player's playback only (never emote.stop_all). */
  stop () { return this.client.stop(this.name) }
  update (state) { return this.client.update(this.name, state) }
  event (event, fields = {}) { return this.client.event(this.name, event, fields) }
  leave () { return this.client.leave(this.name) }
  state () { return this.client.state(this.name) }
  about (e) { return this.client._sessions.about(e, this.name) }
  on (selector, handler) {
    const m = matcher(selector)
    return this.client.on((e) => this.about(e) && m(e), handler)
  }

  waitFor (what, options = {}) {
    const m = matcher(what)
    return this.client.waitFor((e) => this.about(e) && m(e),
      { description: `${describeSelector(what)} about player "${this.name}"`, ...options })
  }

  /** Async iteration over the frames with an event about this player, reduced to those events. */
  async * frames (options) {
    for await (const f of this.client.frames(options)) {
      const events = f.events.filter((e) => this.about(e))
      if (events.length) yield { ...f, events }
    }
  }
}

class Players {
  #client
  constructor (client) { this.#client = client; this.byName = new Map() }
  /** player.join; resolves with a Player. */
  async join (player, fields = {}) {
    await this.#client.join(player, fields)
    return this.byName.get(player)
  }

  get (name) { return this.byName.get(name) }
  names () { return [...this.byName.keys()] }
  get size () { return this.byName.size }
  [Symbol.iterator] () { return this.byName.values() }
}

// -- the client ------------------------------------------------------------------------------

/** Connect, say hello and resolve with a Client once welcomed. An error reply to the hello
 * (unauthorized, unsupported_protocol) rejects with EmoteSimError. */
export async function connect (address = DEFAULT_ADDRESS, options = {}) {
  const c = new Client(address, options)
  await c.connect()
  return c
}

export class Client {
  /**
   * options: role ('controller' | 'observer'), token, client (a name the server logs), timeout
   * (ms a request waits for its reply, default 10000), reconnect (true or {initialDelay,
   * maxDelay, timeout} in ms, and rejoin: when the connection drops, retry with exponential
   * backoff, then subscribe again; requests made meanwhile wait for it. Without rejoin the
   * players joined without keepOnDisconnect are forgotten, as the server made them leave; with
   * rejoin: true every joined player is joined again with its last state (the join fields and
   * later updates), e.g. after a server restart), protocol (default 1).
   */
  constructor (address = DEFAULT_ADDRESS, options = {}) {
    this.address = address
    this.role = options.role ?? 'controller'
    this.token = options.token
    this.clientName = options.client ?? 'emote-sim-client.js/0.1'
    this.timeout = options.timeout ?? 10000
    this.protocol = options.protocol ?? 1
    const r = options.reconnect
    this.reconnect = r ? { initialDelay: 50, maxDelay: 2000, timeout: 30000, ...(r === true ? {} : r) } : null
    this.welcome = null
    this.tick = 0
    this.players = new Players(this)
    this._sessions = new SessionTracker()
    this._socket = null
    this._buffer = ''
    this._nextId = 1
    this._pending = new Map()
    this._handlers = []
    this._subscription = null
    this._closing = false
    this._reconnecting = null
    // Frames since the latest reply's tick (the replies for tick N come before its frame,
    // protocol.md §3): waitFor looks at them too, so an event that arrived together with the
    // reply just awaited is not missed; an event one waitFor returned is not returned again.
    this._replyTick = 0
    this._recent = []
    this._taken = new WeakSet()
  }

  get manualClock () { return this.welcome?.clock === 'manual' }
  get tps () { return this.welcome?.tps || 20 }
  get connected () { return this._socket !== null }

  /** Open the socket and say hello; resolves with the welcome. */
  connect () {
    return new Promise((resolve, reject) => {
      let socket
      try {
        socket = net.connect(parseAddress(this.address))
      } catch (e) {
        reject(e)
        return
      }
      socket.setEncoding('utf8')
      if (!('path' in parseAddress(this.address))) socket.setNoDelay(true)
      let buffer = ''
      let welcomed = false
      let timer = null
      const fail = (e) => {
        if (welcomed) return
        welcomed = true
        clearTimeout(timer)
        socket.destroy()
        reject(e)
      }
      timer = setTimeout(() => fail(new TimeoutError('no welcome within the timeout')), this.timeout)
      socket.once('error', fail)
      socket.once('close', () => fail(new ConnectionClosedError(null, 'the server closed the connection during hello')))
      socket.once('connect', () => {
        const hello = { op: 'hello', protocol: this.protocol, role: this.role, client: this.clientName }
        if (this.token != null) hello.token = this.token
        socket.write(JSON.stringify(hello) + '\n')
      })
      const onData = (text) => {
        buffer += text
        const nl = buffer.indexOf('\n')
        if (nl < 0) return
        const msg = JSON.parse(buffer.slice(0, nl))
        socket.off('data', onData)
        clearTimeout(timer)
        if (msg.op !== 'welcome') {
          fail(msg.op === 'reply' && msg.ok === false ? new EmoteSimError(msg) : new Error(`expected welcome, got ${buffer.slice(0, nl)}`))
          return
        }
        welcomed = true
        socket.removeAllListeners('error')
        socket.removeAllListeners('close')
        this._attach(socket, buffer.slice(nl + 1))
        this.welcome = msg
        this.tick = msg.tick ?? 0
        resolve(msg)
      }
      socket.on('data', onData)
    })
  }

  _attach (socket, rest) {
    this._socket = socket
    this._buffer = ''
    this._closing = false
    let bye = null
    socket.on('data', (text) => this._read(text, (m) => { bye = m }))
    socket.on('error', () => {}) // 'close' follows
    socket.on('close', () => this._lost(socket, bye ?? { op: 'bye', reason: 'closed' }))
    if (rest) this._read(rest, (m) => { bye = m })
  }

  _lost (socket, bye) {
    if (this._socket !== socket) return
    this._socket = null
    for (const { reject, timer } of this._pending.values()) {
      clearTimeout(timer)
      reject(new ConnectionClosedError(bye))
    }
    this._pending.clear()
    this._fire('disconnect', bye)
    if (this.reconnect && !this._closing) this._reconnecting = this._reconnectLoop()
  }

  async _reconnectLoop () {
    let delay = this.reconnect.initialDelay
    const deadline = Date.now() + this.reconnect.timeout
    while (!this._closing) {
      try {
        const welcome = await this.connect()
        this._reconnecting = null
        if (this.reconnect.rejoin) {
          // Join every player again with its last state (a restarted server knows none; one
          // kept on disconnect by a server that stayed up answers player_exists).
          for (const p of this.players.byName.values()) {
            await this.request('player.join', { player: p.name, keep_on_disconnect: p.keepOnDisconnect, ...p.fields })
              .catch((e) => { if (!(e instanceof EmoteSimError && e.code === 'player_exists')) throw e })
          }
        } else {
          for (const [name, p] of this.players.byName) if (!p.keepOnDisconnect) this.players.byName.delete(name)
        }
        if (this._subscription) await this._resubscribe()
        this._fire('reconnect', welcome)
        return true
      } catch (e) {
        if (e instanceof EmoteSimError || Date.now() + delay > deadline) {
          this._reconnecting = null
          this._fire('reconnect.failed', e)
          return false
        }
        await new Promise((resolve) => setTimeout(resolve, delay))
        delay = Math.min(delay * 2, this.reconnect.maxDelay)
      }
    }
    this._reconnecting = null
    return false
  }

  /** Say bye and close; no reconnect follows. */
  close () {
    this._closing = true
    const s = this._socket
    if (!s) return Promise.resolve()
    return new Promise((resolve) => {
      s.once('close', resolve)
      s.end('{"op":"bye"}\n')
      setTimeout(() => s.destroy(), 1000).unref()
    })
  }

  _read (text, onBye) {
    this._buffer += text
    let nl
    while ((nl = this._buffer.indexOf('\n')) >= 0) {
      const line = this._buffer.slice(0, nl).replace(/\r$/, '')
      this._buffer = this._buffer.slice(nl + 1)
      if (!line) continue
      let msg
      try {
        msg = JSON.parse(line)
      } catch {
        continue // the server writes JSON lines only
      }
      if (Number.isInteger(msg.tick) && msg.tick > this.tick) this.tick = msg.tick
      if (msg.op === 'reply') {
        if (Number.isInteger(msg.tick) && msg.tick > this._replyTick) {
          this._replyTick = msg.tick
          this._recent = this._recent.filter((f) => f.tick >= msg.tick)
        }
        const waiter = msg.id !== undefined ? this._pending.get(msg.id) : undefined
        if (waiter) {
          this._pending.delete(msg.id)
          clearTimeout(waiter.timer)
          waiter.resolve(msg)
        } else if (msg.id === undefined) {
          this._fire('reply.error', new EmoteSimError(msg))
        }
      } else if (msg.op === 'frame') {
        Object.defineProperty(msg, 'line', { value: line, enumerable: false })
        this._frame(msg)
      } else if (msg.op === 'bye') {
        onBye(msg)
      }
    }
  }

  _frame (frame) {
    const events = frame.events ?? []
    if (frame.tick >= this._replyTick) {
      this._recent.push(frame)
      if (this._recent.length > RECENT_FRAMES) this._recent.shift() // a client that never asks
    }
    for (const e of events) this._sessions.feed(e)
    this._fire('frame', frame)
    for (const e of events) {
      for (const h of [...this._handlers]) {
        if (typeof h.selector === 'function' && h.selector(e)) h.handler(e, frame)
      }
    }
    for (const e of events) this._sessions.forget(e)
  }

  _fire (name, arg) {
    for (const h of [...this._handlers]) if (h.selector === name) h.handler(arg)
  }

  /**
   * Call handler(event, frame) for each event the selector selects: a type ('playback.stopped'),
   * a prefix ('partner.') or a predicate. Special names: 'frame' (handler(frame)), 'reply.error'
   * (handler(EmoteSimError), a failed request sent without an id), 'disconnect' (handler(bye)),
   * 'reconnect' (handler(welcome)), 'reconnect.failed' (handler(error)). Returns a function that
   * removes the handler.
   */
  on (selector, handler) {
    const h = { selector: typeof selector === 'string' && SPECIAL.has(selector) ? selector : matcher(selector), handler }
    this._handlers.push(h)
    return () => { const i = this._handlers.indexOf(h); if (i >= 0) this._handlers.splice(i, 1) }
  }

  /** Like on(), for the first matching event only. */
  once (selector, handler) {
    const off = this.on(selector, (...args) => { off(); handler(...args) })
    return off
  }

  // -- sending -------------------------------------------------------------------------------

  async _ready () {
    if (this._socket) return
    if (this._reconnecting && await this._reconnecting && this._socket) return
    throw new ConnectionClosedError(null)
  }

  /** Send one line (an object or text) without waiting for anything. */
  sendRaw (message) {
    if (!this._socket) throw new ConnectionClosedError(null)
    this._socket.write((typeof message === 'string' ? message : JSON.stringify(message)) + '\n')
  }

  /** A request without an id: the server answers only if it fails ('reply.error'). */
  async send (op, fields = {}) {
    await this._ready()
    this.sendRaw({ op, ...fields })
  }

  /** A request with a fresh id; resolves with the reply ({op, id, tick, ok, ...result}),
   * rejects with EmoteSimError for an error reply, ConnectionClosedError or TimeoutError. */
  async request (op, fields = {}, { timeout } = {}) {
    await this._ready()
    const id = this._nextId++
    const reply = await new Promise((resolve, reject) => {
      const ms = timeout ?? this.timeout
      const timer = setTimeout(() => {
        this._pending.delete(id)
        reject(new TimeoutError(`no reply to ${op}${fields.player != null ? ` for player "${fields.player}"` : ''} (request ${id}) within ${ms} ms`))
      }, ms)
      this._pending.set(id, { resolve, reject, timer })
      this.sendRaw({ op, id, ...fields })
    })
    if (!reply.ok) throw new EmoteSimError(reply)
    return reply
  }

  // -- waiting -------------------------------------------------------------------------------

  /**
   * The next event that `what` selects (a type, a prefix ending in '.', or a predicate): one
   * arriving after the call, or already received in a frame of the latest reply's tick or later
   * (so `await p.update(...); await p.waitFor(...)` sees what the update caused even when the
   * frame came with the reply). An event is returned by one waitFor only. options.ticks: give up after that many ticks — on a manual clock the
   * client advances the clock itself, one tick at a time, until the event comes; on a realtime
   * one it waits for the ticks to pass. options.timeout: ms of wall time (default the client's
   * timeout; with ticks on a realtime clock at least their duration). Rejects with TimeoutError.
   */
  async waitFor (what, { timeout, ticks, description } = {}) {
    const m = matcher(what)
    const waited = description ?? describeSelector(what)
    for (const f of this._recent) {
      for (const e of f.events ?? []) {
        if (!this._taken.has(e) && m(e)) {
          this._taken.add(e)
          return e
        }
      }
    }
    let found, resolveFound
    const seen = new Promise((resolve) => { resolveFound = resolve })
    const off = this.on((e) => !found && !this._taken.has(e) && m(e), (e) => {
      this._taken.add(e)
      found = { e }
      resolveFound(e)
    })
    let offClosed
    const closed = new Promise((resolve, reject) => {
      offClosed = this.on('disconnect', (bye) => { if (!this.reconnect) reject(new ConnectionClosedError(bye)) })
    })
    closed.catch(() => {}) // observed through the race below, or not at all
    try {
      if (ticks != null && this.manualClock) {
        for (let i = 0; i < ticks && !found; i++) await this.step(1)
        if (!found) throw new TimeoutError(`waited ${ticks} ticks for ${waited}; none came`)
        return found.e
      }
      let wall = timeout ?? this.timeout
      let endTick = null
      if (ticks != null) {
        wall = Math.max(wall, (ticks / this.tps) * 1000 + 2000)
        endTick = (await this.ping()).tick + ticks
      }
      const deadline = Date.now() + wall
      while (!found) {
        if (endTick != null && this.tick >= endTick) throw new TimeoutError(`waited ${ticks} ticks for ${waited}; none came`)
        const left = deadline - Date.now()
        if (left <= 0) throw new TimeoutError(`waited ${wall} ms for ${waited}; none came`)
        const wait = endTick != null ? Math.min(left, Math.max(endTick - this.tick, 1) * 1000 / this.tps) : left
        let timer
        const tick = new Promise((resolve) => { timer = setTimeout(resolve, wait) })
        await Promise.race([seen, tick, closed])
        clearTimeout(timer)
        if (!found && endTick != null) await this.ping()
      }
      return found.e
    } finally {
      off()
      offClosed()
    }
  }

  /** Let n ticks pass on either clock: a manual clock is stepped (clock.step), on a realtime one
   * the client waits. Resolves with the tick now accepting inputs. */
  async waitTicks (n) {
    if (n <= 0) return this.tick
    if (this.manualClock) return this.step(n)
    const target = (await this.ping()).tick + n
    while (this.tick < target) {
      await new Promise((resolve) => setTimeout(resolve, ((target - this.tick) * 1000) / this.tps))
      await this.ping()
    }
    return this.tick
  }

  /** Async iteration over the frames arriving from now on; ends when none arrives for
   * options.timeout ms (default: never) or the connection closes for good. */
  async * frames ({ timeout } = {}) {
    const queue = []
    let wake = null
    let ended = false
    const offFrame = this.on('frame', (f) => { queue.push(f); wake?.() })
    const offClose = this.on('disconnect', () => { if (!this.reconnect) { ended = true; wake?.() } })
    try {
      while (true) {
        if (queue.length) { yield queue.shift(); continue }
        if (ended) return
        let timer
        const arrived = await new Promise((resolve) => {
          wake = () => resolve(true)
          if (timeout != null) timer = setTimeout(() => resolve(false), timeout)
        })
        wake = null
        clearTimeout(timer)
        if (!arrived) return
      }
    } finally {
      offFrame()
      offClose()
    }
  }

  [Symbol.asyncIterator] () { return this.frames() }

  // -- operations (protocol.md §4) -----------------------------------------------------------

  ping () { return this.request('ping') }

  /**
   * subscribe: {events, dimensions, players, lossy, emptyFrames, matrix, packets, audiences}.
   * players: a list of player keys, or 'own' for the players this client joined (kept up to date
   * as it joins and leaves them). audiences (with packets, render.md §6.1): each recipient list
   * once per frame, entries by index; viewerPackets reads both forms. Replaces the previous
   * subscription; sent again after a reconnect.
   */
  subscribe (filter = {}) {
    this._subscription = { ...filter }
    return this._resubscribe()
  }

  _resubscribe () {
    const f = this._subscription
    const fields = { lossy: !!f.lossy, empty_frames: !!(f.emptyFrames ?? f.empty_frames), matrix: !!f.matrix }
    if (f.packets) fields.packets = true
    if (f.audiences) fields.audiences = true
    if (f.events) fields.events = [...f.events]
    if (f.dimensions) fields.dimensions = [...f.dimensions]
    if (f.players === 'own') {
      const mine = this.players.names()
      if (mine.length) fields.players = mine
      else fields.events = [] // none of mine yet: nothing
    } else if (f.players) {
      fields.players = [...f.players]
    }
    return this.request('subscribe', fields)
  }

  async _ownChanged () {
    if (this._subscription?.players === 'own') await this._resubscribe()
  }

  /** player.join: {position, keepOnDisconnect, ...state fields (protocol.md §5)}. */
  async join (player, { keepOnDisconnect, keep_on_disconnect: keep, ...fields } = {}) {
    const k = !!(keepOnDisconnect ?? keep)
    const r = await this.request('player.join', { player, keep_on_disconnect: k, ...fields })
    this.players.byName.set(player, new Player(this, player, k, fields))
    await this._ownChanged()
    return r
  }

  async update (player, state = {}) {
    const r = await this.request('player.update', { player, ...state })
    const p = this.players.byName.get(player)
    if (p) Object.assign(p.fields, state)
    return r
  }
  event (player, event, fields = {}) { return this.request('player.event', { player, event, ...fields }) }

  async leave (player) {
    const r = await this.request('player.leave', { player })
    if (this.players.byName.delete(player)) await this._ownChanged()
    return r
  }

  /** emote.play; resolves with {session, emote, role}, plus `unmatched` ({session, initiator,
   * reason}) when a new initiator did not join an open offer of the emote (players.md §7.3). */
  async play (player, emote, fields = {}) {
    const r = await this.request('emote.play', { player, emote, ...fields })
    const out = { session: r.session, emote: r.emote, role: r.role }
    if (r.unmatched) out.unmatched = r.unmatched
    return out
  }

  stop (player) { return this.request('emote.stop', { player }) }
  /** emote.stop_all: stops EVERY player's emote on the server; a bot on a shared server stops
   * its own players' (Player.stop). */
  async stopAll () { return (await this.request('emote.stop_all')).stopped }
  async listEmotes () { return (await this.request('emote.list')).emotes }
  info (emote) { return this.request('emote.info', { emote }) }
  reload () { return this.request('emote.reload') }
  async register (document) { return (await this.request('emote.register', { document })).emote }
  unregister (emote) { return this.request('emote.unregister', { emote }) }
  async worldBlocks (set, dimension) { return (await this.request('world.blocks', dimension ? { set, dimension } : { set })).changed }
  async worldClear (dimension) { return (await this.request('world.clear', dimension ? { dimension } : {})).cleared }
  async cooldownClear (player) { return (await this.request('cooldown.clear', player ? { player } : {})).cleared }
  state (player) { return this.request('state.get', player ? { player } : {}) }
  /** state.get page by page (protocol.md §4): yields each reply, `limit` players at a time. */
  async * statePages (limit = 1000) {
    let after
    do {
      const page = await this.request('state.get', after === undefined ? { limit } : { limit, after })
      yield page
      after = page.next
    } while (after !== undefined)
  }
  /** render.resync: the listed viewers (default: all) get everything in range again. */
  async resync (players) { return (await this.request('render.resync', players ? { players } : {})).viewers }
  /** clock.step on a manual clock; resolves with the tick now accepting inputs. */
  async step (ticks = 1) {
    return (await this.request('clock.step', { ticks }, { timeout: Math.max(this.timeout, ticks * 10) })).tick
  }
}
