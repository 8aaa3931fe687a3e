#!/usr/bin/env node
// End-to-end on protocol 769 (render.md §9): a flying-squid 1.21.4 backend, the example adapter
// (examples/node-adapter), a real `emote-sim serve` and two mineflayer 4.39 clients, all on
// loopback. alice types `/emote mc:showcase`: her client sees the item displays spawn with the
// frames' transforms, follow her as she walks, and go when she jumps (JUMPED). bob starts 300
// blocks away and sees nothing until he comes back and walks into range, then gets the current pose.
//
// Usage: node test/e2e-769.mjs [path/to/emote-sim]   (or ESIM_BIN). Bounded to 60 s.

import { createRequire } from 'node:module'
import { EmoteSimConnection, emoteSimBinary, startServer, withTimeout } from './lib/emote-sim.mjs'
import { DisplayWatcher, ENTITY_ID_BASE, FrameHistory, adapterModule, checkTransforms, sleep, waitFor } from './lib/e2e.mjs'
import { displayTypeId } from './lib/minecraft.mjs'

const require = createRequire(import.meta.url)
const mineflayer = require('mineflayer')
const flyingSquid = require('flying-squid')

const LIMIT_MS = 60_000
const VERSION = '1.21.4'
const DISPLAY_RANGE = 16 // render.display_range for this test (see bob's walk)
const failures = []
const check = (ok, what) => { if (!ok) failures.push(what) }
const cleanups = []
const step = (m) => console.log(`e2e-769: ${m}`)

function startBackend (spawns) {
  return new Promise((resolve, reject) => {
    const serv = flyingSquid.createMCServer({
      motd: 'emote-sim e2e', host: '127.0.0.1', port: 0, 'max-players': 10, 'online-mode': false,
      logging: false, gameMode: 1, difficulty: 0, worldFolder: undefined,
      generation: { name: 'superflat', options: { worldHeight: 80 } },
      kickTimeout: 10000, plugins: {}, modpe: false, 'view-distance': 4,
      'player-list-text': { header: { text: '' }, footer: { text: '' } },
      'everybody-op': true, 'max-entities': 100, version: VERSION
    })
    // Players spawn where the test says (flying-squid picks a random point near 0,0 otherwise),
    // on the superflat ground found by its own search.
    const findSpawn = serv.getSpawnPoint
    serv.getSpawnPoint = async (world) => {
      const p = await findSpawn(world)
      const [x, z] = spawns.shift() ?? [p.x, p.z]
      return p.set(x, p.y, z)
    }
    serv.once('listening', () => resolve({ serv, port: serv._server.socketServer.address().port }))
    serv.once('error', reject)
  })
}

function joinBot (port, username) {
  return new Promise((resolve, reject) => {
    const bot = mineflayer.createBot({ host: '127.0.0.1', port, username, version: VERSION, auth: 'offline', viewDistance: 'far' })
    bot.once('spawn', () => resolve(bot))
    bot.once('error', reject)
    bot.once('kicked', (reason) => reject(new Error(`${username} kicked: ${JSON.stringify(reason)}`)))
  })
}

// Moves a bot with its own physics until `done()` or `ms` pass.
async function walk (bot, yaw, ms, done = () => false) {
  await bot.look(yaw, 0, true)
  bot.setControlState('forward', true)
  try {
    await waitFor(done, ms, 'walking').catch(() => {})
  } finally {
    bot.setControlState('forward', false)
  }
}

async function main () {
  const sim = await startServer({ bin: emoteSimBinary(), clock: 'realtime', args: ['--render-display-range', String(DISPLAY_RANGE)] })
  cleanups.push(() => sim.stop())
  const observer = await EmoteSimConnection.connect(sim.port, { role: 'observer' })
  cleanups.push(() => observer.close())
  const history = new FrameHistory()
  observer.on('frame', (f) => {
    history.apply(f)
    if (process.env.E2E_VERBOSE) {
      const types = f.events.map((e) => e.type).filter((t) => !t.startsWith('display.update'))
      if (types.length) console.log(`[frame ${f.tick}] ${types.join(' ')}`)
    }
  })
  await observer.request('subscribe', {})

  const backend = await startBackend([[8, 8], [8, 308]]) // alice, then bob 300 blocks away
  cleanups.push(() => backend.serv.quit ? backend.serv.quit() : backend.serv._server.close())
  const { startAdapter } = await import(adapterModule)
  const adapter = await startAdapter({
    listenPort: 0, backendPort: backend.port, emoteSimPort: sim.port, version: VERSION,
    log: (m) => process.env.E2E_VERBOSE && console.log(`[adapter] ${m}`)
  })
  cleanups.push(() => adapter.close())
  step(`emote-sim :${sim.port}, flying-squid :${backend.port}, adapter :${adapter.port}`)

  const alice = await joinBot(adapter.port, 'alice')
  cleanups.push(() => alice.quit())
  const bob = await joinBot(adapter.port, 'bob')
  cleanups.push(() => bob.quit())
  const aliceSees = new DisplayWatcher(alice._client, 'alice')
  const bobSees = new DisplayWatcher(bob._client, 'bob')
  // alice's shared flags as bob's client last got them (render.md §5.5: the showcase hides her).
  let aliceFlagsAtBob
  bob._client.on('entity_metadata', (p) => {
    if (p.entityId !== alice.entity.id) return
    for (const m of p.metadata) if (m.key === 0) aliceFlagsAtBob = m.value
  })
  step(`alice at ${alice.entity.position}, bob at ${bob.entity.position}`)

  // bob spawned 300 blocks away (with his chunks there).
  const home = alice.entity.position.clone()
  check(Math.abs(bob.entity.position.z - home.z - 300) < 1, `bob spawned at ${bob.entity.position}, alice at ${home}`)
  await sleep(500)

  // alice plays the emote by chat command.
  alice.chat('/emote mc:showcase')
  const itemType = displayTypeId(769, 'item')
  await waitFor(() => aliceSees.alive().filter(([, e]) => e.type === itemType).length >= 2, 5000,
    'alice to see the item displays spawn')
  step(`alice sees ${aliceSees.alive().length} display entities`)
  const started = history.spawned.filter((e) => e.kind === 'item')
  check(started.length >= 2, `the frames spawned ${started.length} item displays`)
  for (const [id, e] of aliceSees.alive()) {
    const h = id - ENTITY_ID_BASE
    check(history.displays.has(h), `alice sees entity ${id}, which is no display of the frames`)
    check(history.hasPosition(h, ...e.position), `alice: entity ${id} spawned at ${e.position}, not a frame position`)
  }
  await sleep(1000) // the showcase animates: transforms flow
  for (const [id] of aliceSees.alive()) checkTransforms(history, aliceSees, id, failures)
  const updates = aliceSees.alive().reduce((n, [, e]) => n + e.transforms.length, 0)
  check(updates > 8, `alice received only ${updates} transform entries in a second of animation`)
  check(bobSees.spawns === 0, `bob, 300 blocks away, saw ${bobSees.spawns} spawns`)

  // bob comes to 24 blocks from alice, still out of range (this test's display range is 16 blocks,
  // so that he can walk in, which takes seconds), and walks in.
  const back = home.offset(0, 0, 24)
  bob.chat(`/tp ${back.x.toFixed(2)} ${back.y.toFixed(2)} ${back.z.toFixed(2)}`)
  await waitFor(() => bob.entity.position.distanceTo(back) < 1.5, 10000, 'bob teleported to 24 blocks')
  // flying-squid sends chunks when a player moves 16 blocks from where it last sent them, not on a
  // teleport, and mineflayer does not move without them: a tiny step on bob's connection asks.
  await waitFor(() => {
    if (bob.blockAt(bob.entity.position.offset(0, -1, 0))) return true
    const p = bob.entity.position
    bob._client.write('position', { x: p.x, y: p.y, z: p.z - 0.01, flags: { onGround: true } })
    return false
  }, 8000, 'bob\'s chunks')
  await sleep(700)
  check(bobSees.spawns === 0, `bob, 24 blocks away at ${bob.entity.position}, saw ${bobSees.spawns} spawns`)
  await bob.lookAt(home.offset(0, 1.6, 0), true)
  bob.setControlState('forward', true)
  let seenAt = null
  await waitFor(() => {
    if (bobSees.alive().length >= aliceSees.alive().length) seenAt = bob.entity.position.clone()
    return seenAt
  }, 10000, 'bob to walk into range').catch(() => {})
  bob.setControlState('forward', false)
  check(seenAt, `bob walked to ${bob.entity.position} and saw ${bobSees.alive().length} displays`)
  if (seenAt) {
    const d = Math.hypot(seenAt.x - home.x, seenAt.z - home.z)
    step(`bob walked in and saw the displays ${d.toFixed(2)} blocks from alice`)
    check(d <= DISPLAY_RANGE, `bob got the displays ${d} blocks away (range ${DISPLAY_RANGE})`)
  }
  await sleep(300)
  for (const [id, e] of bobSees.alive()) {
    checkTransforms(history, bobSees, id, failures)
    check(history.hasPosition(id - ENTITY_ID_BASE, ...e.position), `bob: entity ${id} at ${e.position}, not a frame position`)
  }

  check(aliceFlagsAtBob !== undefined && (aliceFlagsAtBob & 0x20) !== 0,
    `bob does not see alice invisible while she emotes (flags ${aliceFlagsAtBob})`)

  // alice walks towards bob: the displays follow her (the showcase has movement_distance 0), on
  // both clients.
  const before = alice.entity.position.clone()
  await walk(alice, Math.PI, 1200) // mineflayer's yaw π faces +Z
  await sleep(400)
  const moved = alice.entity.position.distanceTo(before)
  check(moved > 1, `alice walked only ${moved.toFixed(2)} blocks`)
  for (const [id, e] of aliceSees.alive()) {
    const h = id - ENTITY_ID_BASE
    const latest = history.latestPosition.get(h)
    check(latest && latest.join() === e.position.join(), `alice: entity ${id} at ${e.position}, frames say ${latest}`)
    const dx = e.position[0] - alice.entity.position.x
    const dz = e.position[2] - alice.entity.position.z
    check(Math.hypot(dx, dz) < 0.6, `alice: entity ${id} at ${e.position} did not follow her to ${alice.entity.position}`)
  }
  check(bobSees.alive().length === aliceSees.alive().length,
    `bob sees ${bobSees.alive().length} displays after alice walked towards him, alice ${aliceSees.alive().length}`)
  for (const [id, e] of bobSees.alive()) {
    const latest = history.latestPosition.get(id - ENTITY_ID_BASE)
    check(latest && latest.join() === e.position.join(), `bob: entity ${id} at ${e.position}, frames say ${latest}`)
  }

  // alice jumps: the emote stops with JUMPED and both clients lose the displays.
  const aliceIds = aliceSees.alive().map(([id]) => id)
  alice.setControlState('jump', true)
  await sleep(300)
  alice.setControlState('jump', false)
  await waitFor(() => history.stopped.some((e) => e.emote === 'mc:showcase'), 5000, 'the showcase to stop')
  const stop = history.stopped.find((e) => e.emote === 'mc:showcase')
  check(stop.reason === 'JUMPED', `the showcase stopped with ${stop.reason}, not JUMPED`)
  await waitFor(() => aliceSees.alive().length === 0 && bobSees.alive().length === 0, 5000,
    'both clients to lose the displays')
  check(aliceIds.every((id) => !aliceSees.entities.get(id).alive), 'alice still has displays')
  await waitFor(() => (aliceFlagsAtBob & 0x20) === 0, 3000, 'bob to see alice visible again').catch((e) => failures.push(e.message))
  step(`stopped ${stop.reason}; displays removed on both clients`)
}

let code = 0
try {
  await withTimeout(main(), LIMIT_MS, 'e2e-769')
} catch (e) {
  failures.push(e.stack || e.message)
}
for (const c of cleanups.reverse()) {
  try { await withTimeout(Promise.resolve(c()), 3000, 'cleanup') } catch {}
}
if (failures.length) {
  for (const f of failures) console.error(`FAIL ${f}`)
  code = 1
} else {
  console.log('e2e-769: PASS')
}
process.exit(code)
