#!/usr/bin/env node
// An example emote-sim adapter: a small Minecraft proxy between players and a backend server.
//
//   Minecraft client  <-->  this proxy  <-->  backend server (vanilla, Paper, flying-squid, ...)
//                              |
//                          emote-sim (NDJSON socket)
//
// It forwards every play-state packet both ways unchanged, mirrors each player into emote-sim
// (player.join/update/leave, jumps), turns `/emote <id>` into emote.play, and writes the packet
// entries emote-sim addresses to a player into that player's connection as raw bytes
// (docs/spec/render.md §6, §7). See README.md.

import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { EmoteSimLink } from './emote-sim-link.mjs'

const require = createRequire(import.meta.url)
const mc = require('minecraft-protocol')
const minecraftData = require('minecraft-data')

const INVISIBLE = 0x20 // shared-flags bit (render.md §5.5)

// The clientbound play packet ids of `version` by name, from minecraft-data.
function clientboundIds (version) {
  const packet = minecraftData(version).protocol.play.toClient.types.packet
  const ids = {}
  for (const [id, name] of Object.entries(packet[1][0].type[1].mappings)) ids[name] = Number(id)
  return ids
}

// A VarInt at `pos` of `buf`: [value, next position].
function readVarInt (buf, pos) {
  let value = 0
  for (let i = 0; i < 5 && pos + i < buf.length; i++) {
    const b = buf[pos + i]
    value |= (b & 0x7f) << (7 * i)
    if (!(b & 0x80)) return [value | 0, pos + i + 1]
  }
  throw new RangeError('bad varint')
}

// Starts the proxy. Resolves with {port, players, link, close()} once it listens and either
// emote-sim welcomed it and the subscription is made, or the first attempt to reach emote-sim
// failed (one log line; the link keeps retrying, and players are told emotes are unavailable).
export async function startAdapter ({
  listenHost = '127.0.0.1', listenPort = 25566,
  backendHost = '127.0.0.1', backendPort = 25565,
  version = '1.21.4',
  emoteSimHost = '127.0.0.1', emoteSimPort = 25580, emoteSimToken, emoteSimOptions = {},
  log = () => {}
} = {}) {
  // The link reconnects by itself (emote-sim-link.mjs). Each time it is up, the adapter subscribes
  // (frames with packet entries for every viewer, render.md §6; a fresh subscription brings a
  // snapshot), mirrors its players again and resyncs them (render.md §4 rule 5), so a restarted
  // emote-sim sees everyone at once.
  const link = new EmoteSimLink({ host: emoteSimHost, port: emoteSimPort, token: emoteSimToken, ...emoteSimOptions })
  const players = new Map() // emote-sim player key -> Bridge
  link.on('down', ({ reason, first, lost }) => {
    if (lost) log(`emote-sim at ${link.address}: the connection was lost (${reason}); reconnecting in the background`)
    else if (first) log(`emote-sim at ${link.address} is unreachable (${reason}); retrying in the background`)
    for (const bridge of players.values()) bridge.linkDown()
  })
  link.on('up', async (welcome) => {
    log(`emote-sim at ${link.address}: connected (${welcome.server}, ${welcome.emotes} emotes)`)
    const subscribed = await link.request('subscribe', { packets: true, events: ['player.visibility'] })
    if (subscribed.ok) {
      const rejoined = [...players.values()].filter((b) => b.joined && !b.ended)
      await Promise.all(rejoined.map((b) => b.join()))
      if (rejoined.length) await link.request('render.resync', {})
    } else {
      log(`emote-sim refused the subscription: ${subscribed.error.detail ?? subscribed.error.message}`)
    }
    link.emit('ready', welcome) // also after a failure: startAdapter waits for it
  })
  // The first attempt decides nothing: without emote-sim the proxy runs and the link retries.
  const firstReady = new Promise((resolve) => link.once('ready', resolve))
  const connected = await link.start().then(() => true, () => false)
  if (connected) await firstReady

  const server = mc.createServer({
    host: listenHost, port: listenPort, version, 'online-mode': false, keepAlive: false, hideErrors: true
  })
  const protocol = server.mcversion.version
  const ids = clientboundIds(version)
  const hiddenEntities = new Set() // backend entity ids of hidden players (render.md §5.5)

  link.on('frame', (frame) => {
    for (const e of frame.events) {
      if (e.type !== 'player.visibility') continue
      const bridge = players.get(e.player)
      if (bridge && bridge.entityId !== null) {
        if (e.hidden) hiddenEntities.add(bridge.entityId)
        else hiddenEntities.delete(bridge.entityId)
      }
    }
    // One frame's entries for one player go out in this one task, in list order (render.md §7).
    for (const entry of frame.packets || []) {
      const bytes = Buffer.from(entry.data, 'base64')
      for (const key of entry.to) players.get(key)?.fromEmoteSim(bytes)
    }
  })
  link.on('refused', (reply) => log(`emote-sim refused a request: ${reply.error.detail ?? reply.error.message}`))

  // The client's view distance arrives in the configuration phase, before play.
  const viewDistances = new WeakMap()
  server.on('login', (client) => {
    client.on('settings', (s) => viewDistances.set(client, s.viewDistance))
  })
  server.on('playerJoin', (client) => {
    const bridge = new Bridge(client, {
      link, protocol, version, backendHost, backendPort, hiddenEntities, log, viewDistance: viewDistances.get(client), ids
    })
    players.set(bridge.key, bridge)
    bridge.onEnd = () => players.delete(bridge.key)
  })
  server.on('error', (e) => log(`proxy: ${e.message}`))

  await new Promise((resolve, reject) => {
    server.once('listening', resolve)
    server.once('error', reject)
  })
  return {
    port: server.socketServer.address().port,
    players,
    link,
    // Ends every player's connections (each leaves emote-sim), then the proxy and the link.
    close () {
      for (const bridge of [...players.values()]) bridge.end('adapter closing')
      server.close()
      link.close()
    }
  }
}

// One player: the client's connection, its backend connection, and its mirror in emote-sim.
class Bridge {
  constructor (client, { link, protocol, version, backendHost, backendPort, hiddenEntities, log, viewDistance, ids }) {
    this.client = client
    this.ids = ids
    this.displays = new Set() // entity ids emote-sim spawned on this client and did not remove
    this.link = link
    this.protocol = protocol
    this.hiddenEntities = hiddenEntities
    this.log = log
    this.key = client.uuid // the player key in emote-sim (protocol.md §5: usually the UUID)
    this.name = client.username
    this.viewDistance = viewDistance
    this.entityId = null // from the backend's login packet
    this.dimension = 'minecraft:overworld'
    this.position = null
    this.yaw = 0
    this.pitch = 0
    this.onGround = true
    this.joined = false // player.join sent
    this.bundleOpen = false // parity of the backend's bundle_delimiters forwarded (render.md §7)
    this.held = [] // emote-sim packets waiting for the open bundle to close
    this.toBackend = [] // client packets that arrived before the backend reached play
    this.ended = false
    this.onEnd = () => {}

    this.backend = mc.createClient({
      host: backendHost, port: backendPort, username: client.username, version, auth: 'offline', keepAlive: false, hideErrors: true
    })
    client.on('packet', (data, meta, buffer) => this.#fromClient(data, meta, buffer))
    this.backend.on('packet', (data, meta, buffer) => this.#fromBackend(data, meta, buffer))
    this.backend.on('playerJoin', () => {
      for (const buffer of this.toBackend.splice(0)) this.backend.writeRaw(buffer)
    })
    client.on('end', () => this.end('client left'))
    client.on('error', (e) => this.end(`client error: ${e.message}`))
    this.backend.on('end', () => this.end('backend closed'))
    this.backend.on('error', (e) => this.end(`backend error: ${e.message}`))
  }

  // An emote-sim packet entry for this player: remembers which entities it spawns and removes,
  // so that they can be removed when emote-sim goes away, then writes it.
  fromEmoteSim (bytes) {
    try {
      const [id, pos] = readVarInt(bytes, 0)
      if (id === this.ids.spawn_entity) {
        this.displays.add(readVarInt(bytes, pos)[0])
      } else if (id === this.ids.entity_destroy) {
        let [n, at] = readVarInt(bytes, pos)
        for (; n > 0; n--) {
          const [entity, next] = readVarInt(bytes, at)
          this.displays.delete(entity)
          at = next
        }
      }
    } catch {} // not ours to judge: the bytes go out as emote-sim sent them
    this.inject(bytes)
  }

  // The link to emote-sim was lost: what it showed this player cannot be updated or removed by it
  // any more, so the adapter removes it now (a restarted emote-sim starts from nothing).
  linkDown () {
    if (this.ended || this.displays.size === 0) return
    const entityIds = [...this.displays]
    this.displays.clear()
    this.inject(this.client.serializer.createPacketBuffer({ name: 'entity_destroy', params: { entityIds } }))
  }

  // Writes one packet of ours (an emote-sim entry, or a chat line) into the client's connection:
  // never between an opening and a closing backend bundle_delimiter (render.md §7).
  inject (bytes) {
    if (this.bundleOpen) this.held.push(bytes)
    else this.client.writeRaw(bytes)
  }

  #tell (text) {
    // system_chat carries network NBT on the versions this example targets (1.20.3+).
    this.inject(this.client.serializer.createPacketBuffer({
      name: 'system_chat', params: { content: { type: 'string', value: text }, isActionBar: false }
    }))
  }

  #fromClient (data, meta, buffer) {
    if (meta.state !== 'play') return
    switch (meta.name) {
      case 'chat_command':
      case 'chat_command_signed': {
        const m = /^emote(?:\s+(\S+))?\s*$/.exec(data.command)
        if (m) return this.#emoteCommand(m[1])
        break
      }
      case 'position':
      case 'position_look':
      case 'look':
      case 'flying':
        this.#moved(data)
        break
      case 'settings':
        this.viewDistance = data.viewDistance
        this.#update({ view_distance: this.#clampViewDistance() })
        break
    }
    if (this.backend.state === 'play') this.backend.writeRaw(buffer)
    else this.toBackend.push(buffer)
  }

  #fromBackend (data, meta, buffer) {
    if (meta.state !== 'play' || this.ended) return
    switch (meta.name) {
      case 'login':
        this.entityId = data.entityId
        this.dimension = data.worldState.name
        break
      case 'position': { // the server places the player (absolute unless flagged relative)
        const rel = (f) => !!(data.flags && data.flags[f])
        const p = this.position || [0, 0, 0]
        this.position = [rel('x') ? p[0] + data.x : data.x, rel('y') ? p[1] + data.y : data.y, rel('z') ? p[2] + data.z : data.z]
        this.yaw = rel('yaw') ? this.yaw + data.yaw : data.yaw
        this.pitch = rel('pitch') ? this.pitch + data.pitch : data.pitch
        if (!this.joined) this.join()
        else this.#update({ position: this.position, yaw: this.yaw, pitch: this.pitch })
        break
      }
      case 'respawn': // a new world on the client: its entities are gone (render.md §4 rule 4)
        this.dimension = data.worldState.name
        this.#update({ dimension: this.dimension, render_reset: true })
        break
      case 'entity_metadata':
        if (this.hiddenEntities.has(data.entityId)) return this.#forwardHiddenMetadata(data)
        break
      case 'entity_equipment':
        if (this.hiddenEntities.has(data.entityId)) return this.#forwardBlankEquipment(data)
        break
    }
    this.client.writeRaw(buffer)
    if (meta.name === 'bundle_delimiter') {
      this.bundleOpen = !this.bundleOpen
      if (!this.bundleOpen) for (const bytes of this.held.splice(0)) this.client.writeRaw(bytes)
    }
  }

  // render.md §5.5: while a player is hidden, its shared flags carry 0x20 and its equipment is empty.
  #forwardHiddenMetadata (data) {
    const metadata = data.metadata.map((m) => (m.key === 0 ? { ...m, value: m.value | INVISIBLE } : m))
    this.#forwardRewritten('entity_metadata', { ...data, metadata })
  }

  #forwardBlankEquipment (data) {
    const equipments = data.equipments.map((e) => ({ slot: e.slot, item: { itemCount: 0 } }))
    this.#forwardRewritten('entity_equipment', { ...data, equipments })
  }

  #forwardRewritten (name, params) {
    this.client.writeRaw(this.client.serializer.createPacketBuffer({ name, params }))
  }

  #clampViewDistance () {
    return Math.min(Math.max(this.viewDistance ?? 10, 2), 32)
  }

  // player.join with the player's current state: when the backend first places the player, and
  // again each time the link to emote-sim comes up.
  join () {
    this.joined = true
    const fields = {
      player: this.key,
      uuid: this.key,
      name: this.name,
      dimension: this.dimension,
      position: this.position,
      yaw: this.yaw,
      pitch: this.pitch,
      protocol: this.protocol,
      entity_id: this.entityId,
      view_distance: this.#clampViewDistance()
    }
    return this.link.request('player.join', fields).then((reply) => {
      if (!reply.ok && reply.error.code !== 'unavailable') {
        this.log(`player.join ${this.name}: ${reply.error.detail ?? reply.error.message}`)
      }
    })
  }

  #update (fields) {
    if (this.joined && !this.ended) this.link.notify('player.update', { player: this.key, ...fields })
  }

  #moved (data) {
    const wasOnGround = this.onGround
    const oldY = this.position ? this.position[1] : null
    const fields = {}
    if (data.x !== undefined) {
      this.position = [data.x, data.y, data.z]
      fields.position = this.position
    }
    if (data.yaw !== undefined) {
      this.yaw = data.yaw
      this.pitch = data.pitch
      fields.yaw = data.yaw
      fields.pitch = data.pitch
    }
    this.onGround = data.flags ? !!data.flags.onGround : !!data.onGround
    if (Object.keys(fields).length) this.#update(fields)
    // A jump: leaving the ground upwards (players.md §1.3's own rule, reported explicitly).
    if (wasOnGround && !this.onGround && oldY !== null && this.position[1] > oldY && this.joined) {
      this.link.notify('player.event', { player: this.key, event: 'jump' })
    }
  }

  async #emoteCommand (id) {
    if (!this.joined) return this.#tell('Emotes are not ready yet.')
    if (!id) return this.#tell('Usage: /emote <id> | /emote stop')
    const reply = id === 'stop'
      ? await this.link.request('emote.stop', { player: this.key })
      : await this.link.request('emote.play', { player: this.key, emote: id, source: 'command' })
    if (!reply.ok) this.#tell(reply.error.message)
  }

  end (why) {
    if (this.ended) return
    this.ended = true
    this.log(`${this.name}: ${why}`)
    if (this.joined) this.link.notify('player.leave', { player: this.key })
    this.client.end(why)
    this.backend.end(why)
    this.onEnd()
  }
}

// Command line: node adapter.mjs [--listen PORT] [--backend HOST:PORT] [--emote-sim HOST:PORT] [--version V]
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2)
  const opt = (name, fallback) => {
    const i = args.indexOf(name)
    return i >= 0 && i + 1 < args.length ? args[i + 1] : fallback
  }
  const hostPort = (text) => {
    const i = text.lastIndexOf(':')
    return [text.slice(0, i), Number(text.slice(i + 1))]
  }
  const [backendHost, backendPort] = hostPort(opt('--backend', '127.0.0.1:25565'))
  const [emoteSimHost, emoteSimPort] = hostPort(opt('--emote-sim', '127.0.0.1:25580'))
  const adapter = await startAdapter({
    listenPort: Number(opt('--listen', '25566')),
    backendHost,
    backendPort,
    emoteSimHost,
    emoteSimPort,
    emoteSimToken: process.env.EMOTE_SIM_TOKEN,
    version: opt('--version', '1.21.4'),
    log: (m) => console.log(m)
  })
  console.log(`adapter: listening on ${adapter.port}`)
  process.on('SIGINT', () => { adapter.close(); process.exit(0) })
}
