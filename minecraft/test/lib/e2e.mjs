// Helpers shared by the end-to-end tests (render.md §9): the adapter example, an observer of the
// frames, and the checks of what a real client library holds against what the frames said.

import { createRequire } from 'node:module'
import path from 'node:path'
import { repoRoot } from './emote-sim.mjs'
import { f32Bits } from './minecraft.mjs'

const require = createRequire(import.meta.url)
const mc = require('minecraft-protocol')
const minecraftData = require('minecraft-data')

export const adapterModule = path.join(repoRoot, 'examples', 'node-adapter', 'adapter.mjs')

export const ENTITY_ID_BASE = 1000000000 // render.md §2 default entity_id_base

// Every value each display's transform and position took in the frames, as bit strings, so a
// client's value can be checked to be one the frames had (the clock runs in real time, so the
// client may be a tick behind the observer).
export class FrameHistory {
  constructor () {
    this.transforms = new Map() // handle -> Set of "index:bits,bits,bits[,bits]"
    this.positions = new Map() // handle -> Set of "x,y,z" and the latest [x,y,z]
    this.latestPosition = new Map()
    this.displays = new Map() // handle -> {session, space, kind, node}
    this.stopped = []
    this.spawned = []
  }

  apply (frame) {
    for (const e of frame.events) {
      if (e.type === 'display.spawn') {
        this.displays.set(e.handle, { session: e.session, space: e.space, kind: e.kind, node: e.node })
        this.spawned.push({ tick: frame.tick, ...e })
        this.#transform(e.handle, e.transform)
        this.#position(e.handle, e.position)
      } else if (e.type === 'display.update' && e.transform) {
        this.#transform(e.handle, e.transform)
      } else if (e.type === 'display.move') {
        for (const [h, d] of this.displays) if (d.session === e.session && d.space === e.space) this.#position(h, e.position)
      } else if (e.type === 'playback.stopped') {
        this.stopped.push({ tick: frame.tick, ...e })
      }
    }
  }

  #transform (handle, t) {
    if (!this.transforms.has(handle)) this.transforms.set(handle, new Set())
    const set = this.transforms.get(handle)
    set.add(`11:${bits(t.translation)}`)
    set.add(`12:${bits(t.scale)}`)
    set.add(`13:${bits(t.left_rotation)}`)
    set.add(`14:${bits(t.right_rotation)}`)
  }

  #position (handle, p) {
    if (!this.positions.has(handle)) this.positions.set(handle, new Set())
    this.positions.get(handle).add(p.join(','))
    this.latestPosition.set(handle, p)
  }

  // Whether a decoded metadata entry (index 11..14, {x,y,z[,w]}) is a value the frames gave.
  hasTransformValue (handle, index, value) {
    const axes = index <= 12 ? [value.x, value.y, value.z] : [value.x, value.y, value.z, value.w]
    return this.transforms.get(handle)?.has(`${index}:${bits(axes)}`) ?? false
  }

  hasPosition (handle, x, y, z) {
    return this.positions.get(handle)?.has([x, y, z].join(',')) ?? false
  }
}

function bits (components) {
  return components.map((c) => f32Bits(Math.fround(c)).toString(16)).join(',')
}

// Records what one client library's connection received for display entities: spawns, metadata
// entries 11..14 and positions, per entity id, from its decoded packets.
export class DisplayWatcher {
  constructor (client, label) {
    this.label = label
    this.entities = new Map() // entity id -> {type, position:[x,y,z], transforms: [{index, value}], alive}
    this.spawns = 0
    client.on('spawn_entity', (p) => {
      if (p.entityId < ENTITY_ID_BASE) return
      this.spawns++
      this.entities.set(p.entityId, { type: p.type, position: [p.x, p.y, p.z], transforms: [], alive: true, spawnedAt: Date.now() })
    })
    client.on('entity_metadata', (p) => {
      const e = this.entities.get(p.entityId)
      if (!e) return
      for (const m of p.metadata) if (m.key >= 11 && m.key <= 14) e.transforms.push({ index: m.key, value: m.value })
    })
    client.on('sync_entity_position', (p) => {
      const e = this.entities.get(p.entityId)
      if (e) e.position = [p.x, p.y, p.z]
    })
    client.on('entity_destroy', (p) => {
      for (const id of p.entityIds) {
        const e = this.entities.get(id)
        if (e) e.alive = false
      }
    })
  }

  alive () {
    return [...this.entities.entries()].filter(([, e]) => e.alive)
  }
}

// Polls `test` every 50 ms until it returns a truthy value; rejects after `ms`.
export function waitFor (test, ms, what) {
  return new Promise((resolve, reject) => {
    const started = Date.now()
    const tick = () => {
      let v
      try {
        v = test()
      } catch (e) {
        return reject(e)
      }
      if (v) return resolve(v)
      if (Date.now() - started > ms) return reject(new Error(`timed out after ${ms} ms waiting for ${what}`))
      setTimeout(tick, 50)
    }
    tick()
  })
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

// Checks every transform value a client received for display `entityId` against the frames (the
// first `upTo` of them: a client of the gate may be a tick ahead of the observer, see
// checkTransformsSettled).
export function checkTransforms (history, watcher, entityId, failures, upTo = Infinity) {
  const e = watcher.entities.get(entityId)
  const handle = entityId - ENTITY_ID_BASE
  for (const { index, value } of e.transforms.slice(0, upTo)) {
    if (!history.hasTransformValue(handle, index, value)) {
      failures.push(`${watcher.label}: entity ${entityId} got metadata ${index} = ${JSON.stringify(value)}, ` +
        'which no frame gave its display')
    }
  }
}

// checkTransforms for every live display of `watcher`, on the values received so far, once the
// observer has had time to get their frames: the gate writes a tick's packets to its clients in
// the same turn as the frame to the observer, so a client may read them first.
export async function checkTransformsSettled (history, watcher, failures) {
  const counts = new Map(watcher.alive().map(([id, e]) => [id, e.transforms.length]))
  await sleep(300)
  for (const [id, n] of counts) checkTransforms(history, watcher, id, failures, n)
}

// The backend: logs players in at a place chosen per name and remembers where their clients say
// they are. It sends no world: these clients do not need one.
export function startBareBackend (version, spawnAt) {
  return new Promise((resolve, reject) => {
    const server = mc.createServer({ host: '127.0.0.1', port: 0, version, 'online-mode': false, keepAlive: false, hideErrors: true })
    const login = minecraftData(version).loginPacket
    let nextEntityId = 1
    server.on('playerJoin', (client) => {
      const [x, y, z] = spawnAt(client.username)
      client.write('login', { ...login, entityId: nextEntityId++, enforcesSecureChat: false })
      client.write('position', { teleportId: 1, x, y, z, dx: 0, dy: 0, dz: 0, yaw: 0, pitch: 0, flags: {} })
    })
    server.once('listening', () => resolve({ server, port: server.socketServer.address().port }))
    server.once('error', reject)
  })
}

// A player's client: minecraft-protocol, moving by writing its own position packets as a client's
// physics would (20 per second).
export class Player {
  constructor (port, username, version) {
    this.username = username
    this.client = mc.createClient({ host: '127.0.0.1', port, username, version, auth: 'offline' })
    this.watcher = new DisplayWatcher(this.client, username)
    this.position = null
    this.client.on('position', (p) => {
      this.position = [p.x, p.y, p.z]
      this.client.write('teleport_confirm', { teleportId: p.teleportId })
    })
  }

  ready () {
    return waitFor(() => this.position, 10000, `${this.username} placed by the backend`)
  }

  move (x, y, z, onGround = true) {
    this.position = [x, y, z]
    this.client.write('position', { x, y, z, flags: { onGround } })
  }

  // Walks in a straight line to (x, z) at `speed` blocks per tick, one packet per 50 ms.
  async walkTo (x, z, speed, until = () => false) {
    for (;;) {
      const [px, py, pz] = this.position
      const dx = x - px
      const dz = z - pz
      const d = Math.hypot(dx, dz)
      if (d < 1e-9 || until()) return
      const s = Math.min(speed, d)
      this.move(px + (dx / d) * s, py, pz + (dz / d) * s)
      await sleep(50)
    }
  }

  async jump () {
    const [x, y, z] = this.position
    for (const dy of [0.42, 0.75, 1.0, 1.17, 1.25, 1.17, 1.0, 0.75, 0.42]) {
      this.move(x, y + dy, z, false)
      await sleep(50)
    }
    this.move(x, y, z, true)
  }

  chatCommand (command) {
    this.client.write('chat_command', { command })
  }
}
