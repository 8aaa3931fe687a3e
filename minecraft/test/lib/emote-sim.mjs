// Starting a real `emote-sim serve` and talking to it over its NDJSON socket (protocol.md §1–§4).
// Shared by the decode check and the end-to-end tests (render.md §9).

import { spawn } from 'node:child_process'
import net from 'node:net'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { EventEmitter } from 'node:events'

const here = path.dirname(fileURLToPath(import.meta.url))
export const repoRoot = path.resolve(here, '..', '..', '..')
export const fixtureEmotes = path.join(repoRoot, 'tests', 'data', 'minecraft', 'emotes')

// The binary: ESIM_BIN, else the first argument that is not an option, else the dev build.
export function emoteSimBinary (argv = process.argv.slice(2)) {
  const arg = argv.find((a) => !a.startsWith('-'))
  return process.env.ESIM_BIN || arg || path.join(repoRoot, 'build', 'dev', 'server', 'emote-sim')
}

// Every child started here is killed when this process exits, however it exits.
const children = new Set()
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL')
})

// The server reads every EMOTE_SIM_* variable as configuration and refuses unknown ones
// (protocol.md §10; the tests' own variables, ESIM_BIN and ESIM_SHARED, have another prefix), so
// the configuration of the caller's shell stays out of its environment: the tests configure it by
// options.
function serverEnvironment () {
  const env = {}
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('EMOTE_SIM_')) env[k] = v
  return env
}

// Starts `emote-sim serve` on an ephemeral loopback port (or `port`) and resolves once it listens.
// The port is read from the server's "listening on HOST:PORT" log line; with `gates` (a count),
// also each gate's port from its "gate NAME on HOST:PORT" line (docs/spec/gate.md), as `gatePorts`.
export function startServer ({ bin = emoteSimBinary(), emotes = fixtureEmotes, clock = 'manual', args = [], log = false, port = 0, gates = 0 } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, ['serve', '--listen', `127.0.0.1:${port}`, '--clock', clock, '--emotes', emotes,
      '--log-level', 'info', ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: serverEnvironment() })
    children.add(child)
    child.on('exit', () => children.delete(child))
    let output = ''
    let settled = false
    const onData = (chunk) => {
      const text = chunk.toString()
      if (log) process.stderr.write(`[emote-sim] ${text}`)
      output += text // kept after start too: a test may look for later log lines
      if (settled) return
      const m = /listening on 127\.0\.0\.1:(\d+)/.exec(output)
      const gatePorts = [...output.matchAll(/gate \S+ on [0-9.]+:(\d+) for/g)].map((g) => Number(g[1]))
      if (m && gatePorts.length >= gates) {
        settled = true
        resolve({
          port: Number(m[1]),
          gatePorts,
          output: () => output,
          process: child,
          stop: () => stopChild(child)
        })
      }
    }
    child.stdout.on('data', onData)
    child.stderr.on('data', onData)
    child.on('error', (e) => { if (!settled) { settled = true; reject(e) } })
    child.on('exit', (code, signal) => {
      if (!settled) {
        settled = true
        reject(new Error(`emote-sim exited (${code ?? signal}) before listening:\n${output}`))
      }
    })
  })
}

// SIGTERM, then SIGKILL after 3 s; resolves when the child is gone.
export function stopChild (child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    const timer = setTimeout(() => child.kill('SIGKILL'), 3000)
    child.once('exit', () => { clearTimeout(timer); resolve() })
    child.kill('SIGTERM')
  })
}

// One NDJSON connection. `request` sends a line with a fresh id and resolves with the reply
// (rejects when the reply is not ok); frames are emitted as 'frame' events and kept in `frames`
// when `keepFrames` is set.
export class EmoteSimConnection extends EventEmitter {
  constructor (socket, { keepFrames = false } = {}) {
    super()
    this.socket = socket
    this.keepFrames = keepFrames
    this.frames = []
    this.pending = new Map()
    this.nextId = 1
    this.buffer = ''
    this.closed = false
    socket.setEncoding('utf8')
    socket.on('data', (text) => this.#onData(text))
    socket.on('close', () => {
      this.closed = true
      for (const { reject } of this.pending.values()) reject(new Error('emote-sim connection closed'))
      this.pending.clear()
      this.emit('close')
    })
    socket.on('error', (e) => this.emit('error', e))
  }

  static connect (port, { role = 'controller', client = 'emote-sim-minecraft-tests', keepFrames = false } = {}) {
    return new Promise((resolve, reject) => {
      const socket = net.connect({ host: '127.0.0.1', port })
      socket.once('error', reject)
      socket.once('connect', () => {
        socket.off('error', reject)
        const conn = new EmoteSimConnection(socket, { keepFrames })
        conn.once('welcome', (w) => { conn.welcome = w; resolve(conn) })
        conn.send({ op: 'hello', protocol: 1, role, client })
      })
    })
  }

  send (message) {
    this.socket.write(JSON.stringify(message) + '\n')
  }

  request (op, fields = {}) {
    const id = this.nextId++
    return new Promise((resolve, reject) => {
      this.pending.set(id, {
        resolve,
        reject: (e) => reject(e)
      })
      this.send({ op, id, ...fields })
    }).then((reply) => {
      if (!reply.ok) {
        const err = new Error(`${op} failed: ${JSON.stringify(reply.error)}`)
        err.reply = reply
        throw err
      }
      return reply
    })
  }

  // Like request, but resolves with the reply whether or not it is ok.
  requestRaw (op, fields = {}) {
    const id = this.nextId++
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject })
      this.send({ op, id, ...fields })
    })
  }

  close () {
    if (this.closed) return Promise.resolve()
    return new Promise((resolve) => {
      this.once('close', resolve)
      try { this.send({ op: 'bye' }) } catch {}
      this.socket.end()
      setTimeout(() => this.socket.destroy(), 1000).unref()
    })
  }

  #onData (text) {
    this.buffer += text
    let nl
    while ((nl = this.buffer.indexOf('\n')) >= 0) {
      const line = this.buffer.slice(0, nl)
      this.buffer = this.buffer.slice(nl + 1)
      if (line.trim() === '') continue
      let msg
      try {
        msg = JSON.parse(line)
      } catch (e) {
        this.emit('error', new Error(`emote-sim sent a line that is not JSON: ${line.slice(0, 200)}`))
        continue
      }
      this.#dispatch(msg)
    }
  }

  #dispatch (msg) {
    switch (msg.op) {
      case 'welcome':
        this.emit('welcome', msg)
        break
      case 'reply': {
        const p = this.pending.get(msg.id)
        if (p) {
          this.pending.delete(msg.id)
          p.resolve(msg)
        } else if (!msg.ok) {
          this.emit('error', new Error(`emote-sim refused a request without id: ${JSON.stringify(msg)}`))
        }
        break
      }
      case 'frame':
        if (this.keepFrames) this.frames.push(msg)
        this.emit('frame', msg)
        break
      case 'bye':
        this.emit('bye', msg)
        break
      default:
        this.emit('message', msg)
    }
  }
}

// Rejects after `ms` with a message naming what timed out; the timer never keeps Node alive.
export function withTimeout (promise, ms, what) {
  let timer
  const timeout = new Promise((resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms)
    timer.unref()
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}
