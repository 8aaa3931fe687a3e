#!/usr/bin/env node
// Decode check (render.md §9): a real `emote-sim serve` on a manual clock plays several emotes for
// viewers on protocols 769 and 775; every packet entry of every frame is decoded with
// minecraft-protocol's client-side play deserializer for its version, with all bytes consumed, and
// each viewer's resulting client state is compared after every frame with the frame's events:
// entity types, UUIDs, positions, yaw, transforms (bit-equal binary32), item ids, block state ids,
// text, and the hidden-player packets.
//
// Usage: node test/decode-check.mjs [path/to/emote-sim]   (or ESIM_BIN; default build/dev)
//        ESIM_SHARED=../shared also plays the real corpus's sit and handshake emotes and its
//        reference animation when that folder exists (never required).
// Exits 0 when everything matched, 1 on any mismatch, 2 on a setup failure; bounded to 60 s.

import fs from 'node:fs'
import path from 'node:path'
import { EmoteSimConnection, emoteSimBinary, fixtureEmotes, repoRoot, startServer, withTimeout } from './lib/emote-sim.mjs'
import { PacketDecoder } from './lib/minecraft.mjs'
import { ExpectedWorld, ViewerClient } from './lib/model.mjs'

const LIMIT_MS = 60_000
const bin = emoteSimBinary()
if (!fs.existsSync(bin)) {
  console.error(`decode-check: ${bin} does not exist (build it, or pass the binary / set ESIM_BIN)`)
  process.exit(2)
}

const failures = []
const stats = { frames: 0, entries: 0, decoded: 0, byName: {} }

// One run: a server over `emotes`, the viewers, and a script of steps.
async function run (label, emotes, script) {
  const server = await startServer({ bin, emotes })
  const conn = await EmoteSimConnection.connect(server.port)
  const world = new ExpectedWorld()
  const viewers = new Map() // key -> {state, client}
  const decoders = new Map()
  const decoderFor = (protocol) => {
    if (!decoders.has(protocol)) decoders.set(protocol, new PacketDecoder(protocol))
    return decoders.get(protocol)
  }
  const playersByEntityId = new Map()
  let frameError = null

  conn.on('frame', (frame) => {
    try {
      checkFrame(frame)
    } catch (e) {
      frameError = frameError || e
    }
  })

  function checkFrame (frame) {
    stats.frames++
    world.apply(frame.events)
    for (const entry of frame.packets || []) {
      stats.entries++
      const bytes = Buffer.from(entry.data, 'base64')
      let packet
      try {
        packet = decoderFor(entry.protocol).decode(bytes)
      } catch (e) {
        failures.push(`${label} tick ${frame.tick}: protocol ${entry.protocol} entry does not decode: ${e.message}`)
        continue
      }
      stats.decoded++
      stats.byName[packet.name] = (stats.byName[packet.name] || 0) + 1
      for (const to of entry.to) {
        const v = viewers.get(to)
        if (!v) { failures.push(`${label} tick ${frame.tick}: entry to ${to}, who is not a viewer`); continue }
        if (v.state.protocol !== entry.protocol) {
          failures.push(`${label} tick ${frame.tick}: entry for protocol ${entry.protocol} sent to ${to} on ${v.state.protocol}`)
          continue
        }
        v.client.apply(packet, playersByEntityId)
      }
    }
    for (const [key, v] of viewers) {
      for (const e of v.client.errors.splice(0)) failures.push(`${label} tick ${frame.tick}: ${e}`)
      for (const e of v.client.compare(v.state)) failures.push(`${label} tick ${frame.tick}: ${e}`)
      checkHiddenPlayers(frame.tick, key, v)
    }
  }

  // render.md §5.5: a hidden player's flags (0x20) and blank equipment reach every viewer within
  // R_p (equipment: not the player itself); a restore clears 0x20.
  function checkHiddenPlayers (tick, key, v) {
    for (const [pkey, p] of viewers) {
      if (p.state.entity_id === undefined) continue
      const near = pkey === key || world.inPlayerRange(v.state, p.state)
      if (!near) continue
      const hidden = world.hidden.get(pkey)
      const flags = v.client.playerFlags.get(p.state.entity_id)
      if (hidden === true) {
        if (flags === undefined || (flags & 0x20) === 0) {
          failures.push(`${label} tick ${tick}: ${key} does not see ${pkey} invisible (flags ${flags})`)
        }
        if (pkey !== key && v.client.playerEquipmentBlank.get(p.state.entity_id) !== true) {
          failures.push(`${label} tick ${tick}: ${key} did not get ${pkey}'s blank equipment`)
        }
      } else if (hidden === false && flags !== undefined && (flags & 0x20) !== 0) {
        failures.push(`${label} tick ${tick}: ${key} still sees ${pkey} invisible after the restore`)
      }
    }
  }

  const api = {
    world,
    async join (key, fields) {
      const state = { position: fields.position, dimension: fields.dimension, protocol: fields.protocol,
        entity_id: fields.entity_id, view_distance: fields.view_distance }
      await conn.request('player.join', { player: key, ...fields })
      if (fields.protocol) {
        viewers.set(key, { state, client: new ViewerClient(key, fields.protocol, world) })
      }
      if (fields.entity_id !== undefined) playersByEntityId.set(fields.entity_id, key)
    },
    async update (key, fields) {
      await conn.request('player.update', { player: key, ...fields })
      const v = viewers.get(key)
      if (v) {
        // render.md §4 rule 4: the client of a viewer that changes dimension or is reset lost its entities.
        const newDimension = fields.dimension !== undefined && fields.dimension !== (v.state.dimension ?? 'minecraft:overworld')
        if (newDimension || fields.render_reset) v.client.reset()
        for (const k of ['position', 'dimension', 'view_distance']) if (fields[k] !== undefined) v.state[k] = fields[k]
      }
    },
    event: (key, event, extra = {}) => conn.request('player.event', { player: key, event, ...extra }),
    play: (key, emote) => conn.request('emote.play', { player: key, emote }),
    async step (ticks = 1) {
      await conn.request('clock.step', { ticks })
      if (frameError) throw frameError
    },
    subscribe: () => conn.request('subscribe', { packets: true })
  }

  try {
    await api.subscribe()
    await script(api)
    const total = [...viewers.values()].reduce((n, v) => n + v.client.received, 0)
    if (total === 0) failures.push(`${label}: no viewer received any packet (is rendering wired?)`)
    console.log(`decode-check: ${label}: stops ${world.stopped.map((e) => `${e.player} ${e.emote} ${e.reason}`).join(', ')}; , ${total} packets applied to ${viewers.size} viewers` +
      (world.warnings.length ? `, ${world.warnings.length} render.warning events` : ''))
  } finally {
    await conn.close()
    await server.stop()
  }
}

// The viewers: alice and bob watch from the start (769 and 775), carol (769) starts 300 blocks
// away and walks in (render.md §10 K16), erin (769) and frank (775) do the two-player handshake.
async function fixtureScript (s) {
  await s.join('alice', { uuid: '00000000-0000-4000-8000-00000000000a', name: 'alice', position: [0.5, 64, 0.5], yaw: 0,
    on_ground: true, protocol: 769, entity_id: 101 })
  await s.join('bob', { uuid: '00000000-0000-4000-8000-00000000000b', name: 'bob', position: [4.5, 64, 0.5], yaw: 90,
    on_ground: true, protocol: 775, entity_id: 102, view_distance: 8 })
  await s.join('carol', { name: 'carol', position: [300.5, 64, 0.5], protocol: 769, entity_id: 103 })
  await s.join('erin', { name: 'erin', position: [20.5, 64, 0.5], yaw: 0, on_ground: true, protocol: 769, entity_id: 104 })
  await s.join('frank', { name: 'frank', position: [20.5, 64, 1.7], yaw: 180, on_ground: true, protocol: 775, entity_id: 105 })
  await s.step(1)
  await s.play('alice', 'mc:showcase')
  await s.step(3)
  await s.play('bob', 'mc:sit')
  await s.play('erin', 'mc:handshake')
  await s.step(2)
  await s.play('frank', 'mc:handshake')
  for (let i = 0; i < 12; i++) {
    // alice walks and turns (the showcase follows: movement_distance 0), carol walks in.
    await s.update('alice', { position: [0.5 + i * 0.25, 64, 0.5 + i * 0.1], yaw: i * 15 })
    await s.update('carol', { position: [300.5 - i * 20, 64, 0.5] })
    await s.step(1)
  }
  // A resync (render.md §4 rule 5) via a second packets subscription, then carol leaves the range.
  await s.subscribe()
  await s.step(2)
  await s.update('carol', { position: [400.5, 64, 0.5] })
  await s.step(25)
  // bob changes dimension and back in one tick (render.md §10 K24).
  await s.update('bob', { dimension: 'minecraft:the_nether' })
  await s.update('bob', { dimension: 'minecraft:overworld' })
  await s.step(5)
  // alice jumps: the showcase stops (JUMPED), its displays are removed, she is visible again.
  await s.event('alice', 'jump')
  await s.step(40)
  const reasons = s.world.stopped.map((e) => `${e.player}:${e.emote}:${e.reason}`)
  for (const want of ['alice:mc:showcase:JUMPED', 'bob:mc:sit:FINISHED']) {
    if (!reasons.includes(want)) failures.push(`fixtures: expected playback.stopped ${want}; saw ${reasons.join(', ')}`)
  }
  if (!s.world.stopped.some((e) => e.emote === 'mc:handshake' && e.player === 'frank')) {
    failures.push(`fixtures: the handshake partner never stopped; saw ${reasons.join(', ')}`)
  }
  if (s.world.displays.size !== 0) failures.push(`fixtures: ${s.world.displays.size} displays still live at the end`)
  // The fixtures use only content every version can show (render.md §5.4).
  for (const w of s.world.warnings) failures.push(`fixtures: unexpected render.warning ${JSON.stringify(w)}`)
}

// The real corpus (optional): sit, the handshake pair and the reference animation.
async function corpusScript (s) {
  await s.join('alice', { name: 'alice', position: [0.5, 64, 0.5], yaw: 0, on_ground: true, protocol: 769, entity_id: 201 })
  await s.join('bob', { name: 'bob', position: [0.5, 64, 1.7], yaw: 180, on_ground: true, protocol: 775, entity_id: 202 })
  await s.join('carol', { name: 'carol', position: [40.5, 64, 0.5], yaw: 0, on_ground: true, protocol: 775, entity_id: 203 })
  await s.join('dave', { name: 'dave', position: [80.5, 64, 0.5], yaw: 0, on_ground: true, protocol: 769, entity_id: 204 })
  await s.step(1)
  await s.play('alice', 'handshake:handshake')
  await s.play('carol', 'sit:idle.sit')
  await s.play('dave', 'emote:format_reference')
  await s.step(5)
  await s.play('bob', 'handshake:handshake')
  await s.step(120)
}

function corpusFolder () {
  const shared = process.env.ESIM_SHARED || path.join(repoRoot, '..', 'shared')
  const corpus = path.join(shared, 'corpus', 'hanhy06-emote')
  if (!fs.existsSync(corpus)) return null
  // Only the files these emotes need (the corpus holds two emote:handshake files, which clash).
  const tmp = fs.mkdtempSync(path.join(process.env.TMPDIR || '/tmp', 'emote-sim-decode-'))
  for (const f of ['sample/sit', 'sample/handshake']) {
    for (const name of fs.readdirSync(path.join(corpus, f))) {
      if (name.startsWith('emote.')) continue
      fs.copyFileSync(path.join(corpus, f, name), path.join(tmp, name))
    }
  }
  fs.copyFileSync(path.join(corpus, 'reference', 'animation.json'), path.join(tmp, 'reference.animation.json'))
  return tmp
}

async function main () {
  await run('fixtures', fixtureEmotes, fixtureScript)
  const corpus = corpusFolder()
  if (corpus) {
    try {
      await run('corpus', corpus, corpusScript)
    } finally {
      fs.rmSync(corpus, { recursive: true, force: true })
    }
  } else {
    console.log('decode-check: the shared corpus is absent; fixtures only')
  }
}

try {
  await withTimeout(main(), LIMIT_MS, 'decode-check')
} catch (e) {
  console.error(`decode-check: ${e.stack || e.message}`)
  process.exit(2)
}
const names = Object.entries(stats.byName).map(([k, v]) => `${k} ${v}`).join(', ')
console.log(`decode-check: ${stats.frames} frames, ${stats.entries} entries, ${stats.decoded} decoded (${names})`)
if (failures.length) {
  for (const f of failures.slice(0, 50)) console.error(`FAIL ${f}`)
  if (failures.length > 50) console.error(`... and ${failures.length - 50} more`)
  console.error(`decode-check: ${failures.length} mismatches`)
  process.exit(1)
}
console.log('decode-check: PASS')
process.exit(0)
