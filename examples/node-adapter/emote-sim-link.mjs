// The adapter's connection to emote-sim: NDJSON over TCP (docs/spec/protocol.md §1–§4).
// One line out per request, one reply per request with an id; frames arrive as 'frame' events.
//
// The link survives emote-sim restarts: it connects in the background and, whenever the
// connection is lost or cannot be made, retries with exponential backoff (initialDelay doubling
// up to maxDelay). Events: 'up' (welcome) after every successful hello, 'down' ({reason, first,
// lost}) when a connection is lost (`lost`) or an attempt fails (`first` is true for the first
// failure of an outage, so a caller logs one line per outage), 'frame', 'refused' (an error reply to a request
// without an id) and 'bye'. A request never hangs: while the link is down, when the connection
// drops before the reply, or after `timeout` ms, it resolves with an error reply of code
// `unavailable` whose message can be shown to a player.

import net from 'node:net'
import { EventEmitter } from 'node:events'

export const UNAVAILABLE_MESSAGE = 'Emotes are unavailable right now: the emote server cannot be reached.'

function unavailable (op, detail) {
  return { op: 'reply', ok: false, error: { code: 'unavailable', message: UNAVAILABLE_MESSAGE, op, detail } }
}

export class EmoteSimLink extends EventEmitter {
  // Creates a link and resolves once welcomed (rejects when the first attempt fails). A link that
  // should wait for emote-sim instead is `new EmoteSimLink(options).start()`.
  static async connect (options = {}) {
    const link = new EmoteSimLink(options)
    const up = link.start()
    try {
      await up
    } catch (e) {
      link.close()
      throw e
    }
    return link
  }

  constructor ({
    host = '127.0.0.1', port = 25580, token, client = 'emote-sim-node-adapter/1.0',
    initialDelay = 250, maxDelay = 5000, timeout = 10000
  } = {}) {
    super()
    this.host = host
    this.port = port
    this.token = token
    this.client = client
    this.initialDelay = initialDelay
    this.maxDelay = maxDelay
    this.timeout = timeout
    this.socket = null // the welcomed connection, or null while down
    this.welcome = null
    this.pending = new Map()
    this.nextId = 1
    this.closed = false
    this.delay = initialDelay
    this.failures = 0 // attempts failed since the link was last up
    this.retryTimer = null
    this.on('error', () => {}) // errors are reported as 'down'; never an unhandled 'error'
  }

  get up () { return this.socket !== null }
  get address () { return `${this.host}:${this.port}` }

  // Starts connecting (and reconnecting for as long as the link is open). Resolves with the first
  // welcome, or rejects with the first attempt's error; either way the link keeps trying.
  start () {
    return new Promise((resolve, reject) => {
      const onUp = (welcome) => { this.off('down', onDown); resolve(welcome) }
      const onDown = ({ error }) => { this.off('up', onUp); reject(error) }
      this.once('up', onUp)
      this.once('down', onDown)
      this.#attempt()
    })
  }

  #attempt () {
    this.retryTimer = null
    if (this.closed) return
    const socket = net.connect({ host: this.host, port: this.port })
    socket.setEncoding('utf8')
    socket.setNoDelay(true)
    let buffer = ''
    let welcomed = false
    const hello = setTimeout(() => socket.destroy(new Error('no welcome within 5 s')), 5000)
    const lost = (error) => {
      clearTimeout(hello)
      if (welcomed) {
        this.#down(socket, error ?? new Error('emote-sim closed the connection'))
      } else {
        welcomed = true // settled: report once
        this.#failed(error ?? new Error('emote-sim closed the connection during hello'))
      }
    }
    let error = null
    socket.on('error', (e) => { error = e })
    socket.on('close', () => lost(error))
    socket.once('connect', () => {
      const msg = { op: 'hello', protocol: 1, role: 'controller', client: this.client }
      if (this.token) msg.token = this.token
      socket.write(JSON.stringify(msg) + '\n')
    })
    socket.on('data', (text) => {
      buffer += text
      let nl
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, nl)
        buffer = buffer.slice(nl + 1)
        if (!line.trim()) continue
        let msg
        try {
          msg = JSON.parse(line)
        } catch {
          continue // emote-sim writes JSON lines only
        }
        if (!welcomed) {
          clearTimeout(hello)
          if (msg.op !== 'welcome') {
            const why = msg.error ? `${msg.error.code}: ${msg.error.message}` : line.slice(0, 120)
            error = new Error(`emote-sim refused the hello (${why})`)
            socket.destroy()
            return
          }
          welcomed = true
          this.socket = socket
          this.welcome = msg
          this.delay = this.initialDelay
          this.failures = 0
          this.emit('up', msg)
          continue
        }
        this.#dispatch(msg)
      }
    })
  }

  #failed (error) {
    this.failures++
    this.emit('down', { error, reason: describe(error), first: this.failures === 1 })
    this.#retry()
  }

  #down (socket, error) {
    if (this.socket !== socket) return
    this.socket = null
    for (const [id, w] of this.pending) {
      clearTimeout(w.timer)
      w.resolve(unavailable(w.op, `the connection to emote-sim was lost before the reply to request ${id}`))
    }
    this.pending.clear()
    this.failures = 1
    this.emit('down', { error, reason: describe(error), first: true, lost: true })
    this.#retry()
  }

  #retry () {
    if (this.closed || this.retryTimer) return
    const wait = this.delay
    this.delay = Math.min(this.delay * 2, this.maxDelay)
    this.retryTimer = setTimeout(() => this.#attempt(), wait)
    this.retryTimer.unref?.()
  }

  // Sends a request and resolves with the reply (ok or not: the caller shows errors to players).
  request (op, fields = {}) {
    if (!this.socket) {
      return Promise.resolve(unavailable(op, `emote-sim at ${this.address} is not connected`))
    }
    const id = this.nextId++
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(id)
        resolve(unavailable(op, `no reply to ${op} (request ${id}) within ${this.timeout} ms`))
      }, this.timeout)
      this.pending.set(id, { resolve, timer, op })
      this.#send({ op, id, ...fields })
    })
  }

  // Sends a request without an id: emote-sim answers only when it fails ('refused' event).
  // Returns false (and sends nothing) while the link is down.
  notify (op, fields = {}) {
    if (!this.socket) return false
    this.#send({ op, ...fields })
    return true
  }

  close () {
    this.closed = true
    clearTimeout(this.retryTimer)
    const socket = this.socket
    if (socket) {
      this.#send({ op: 'bye' })
      socket.end()
    }
  }

  #send (message) {
    const s = this.socket
    if (s && !s.destroyed && !s.writableEnded) s.write(JSON.stringify(message) + '\n')
  }

  #dispatch (msg) {
    if (msg.op === 'reply') {
      const waiter = this.pending.get(msg.id)
      if (waiter) {
        this.pending.delete(msg.id)
        clearTimeout(waiter.timer)
        waiter.resolve(msg)
      } else if (!msg.ok) {
        this.emit('refused', msg)
      }
    } else {
      this.emit(msg.op, msg) // frame, bye
    }
  }
}

// One line for a failed connection: the system's code (ECONNREFUSED) or the error's message.
function describe (error) {
  if (!error) return 'closed'
  return error.code ? `${error.code}` : error.message
}
