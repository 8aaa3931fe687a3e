// The adapter's connection to emote-sim: NDJSON over TCP (docs/spec/protocol.md §1–§4).
// One line out per request, one reply per request with an id; frames arrive as 'frame' events.

import net from 'node:net'
import { EventEmitter } from 'node:events'

export class EmoteSimLink extends EventEmitter {
  // Connects, says hello as a controller and resolves once welcomed.
  static connect ({ host = '127.0.0.1', port = 25580, token, client = 'emote-sim-node-adapter/1.0' } = {}) {
    return new Promise((resolve, reject) => {
      const socket = net.connect({ host, port })
      const link = new EmoteSimLink(socket)
      const fail = (e) => reject(e)
      socket.once('error', fail)
      link.once('welcome', (welcome) => {
        socket.off('error', fail)
        link.welcome = welcome
        resolve(link)
      })
      link.once('close', () => reject(new Error('emote-sim closed the connection during hello')))
      socket.once('connect', () => {
        const hello = { op: 'hello', protocol: 1, role: 'controller', client }
        if (token) hello.token = token
        link.#send(hello)
      })
    })
  }

  constructor (socket) {
    super()
    this.socket = socket
    this.pending = new Map()
    this.nextId = 1
    this.buffer = ''
    socket.setEncoding('utf8')
    socket.on('data', (text) => this.#read(text))
    socket.on('error', (e) => this.emit('error', e))
    socket.on('close', () => {
      for (const { reject } of this.pending.values()) reject(new Error('emote-sim connection closed'))
      this.pending.clear()
      this.emit('close')
    })
  }

  // Sends a request and resolves with the reply (ok or not: the caller shows errors to players).
  request (op, fields = {}) {
    const id = this.nextId++
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject })
      this.#send({ op, id, ...fields })
    })
  }

  // Sends a request without an id: emote-sim answers only when it fails ('refused' event).
  notify (op, fields = {}) {
    this.#send({ op, ...fields })
  }

  close () {
    this.#send({ op: 'bye' })
    this.socket.end()
  }

  #send (message) {
    if (!this.socket.destroyed && !this.socket.writableEnded) this.socket.write(JSON.stringify(message) + '\n')
  }

  #read (text) {
    this.buffer += text
    let nl
    while ((nl = this.buffer.indexOf('\n')) >= 0) {
      const line = this.buffer.slice(0, nl)
      this.buffer = this.buffer.slice(nl + 1)
      if (!line.trim()) continue
      let msg
      try {
        msg = JSON.parse(line)
      } catch {
        this.emit('error', new Error(`emote-sim sent a line that is not JSON: ${line.slice(0, 120)}`))
        continue
      }
      if (msg.op === 'reply') {
        const waiter = this.pending.get(msg.id)
        if (waiter) {
          this.pending.delete(msg.id)
          waiter.resolve(msg)
        } else {
          this.emit('refused', msg)
        }
      } else {
        this.emit(msg.op, msg) // welcome, frame, bye
      }
    }
  }
}
