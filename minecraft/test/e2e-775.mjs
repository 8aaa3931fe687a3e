#!/usr/bin/env node
// End-to-end on protocol 775, Minecraft 26.1 (render.md §9): a bare minecraft-protocol server as
// the backend, the example adapter (examples/node-adapter), a real `emote-sim serve` and two
// minecraft-protocol clients, all on loopback. alice sends `/emote mc:showcase`: her client decodes
// the item displays' spawns with the frames' transforms, sees them follow her as she walks, and
// lose them when she jumps (JUMPED). bob is placed 300 blocks away and sees nothing until he
// walks into range, then gets the current pose.
//
// Usage: node test/e2e-775.mjs [path/to/emote-sim]   (or ESIM_BIN). Bounded to 60 s.

import { EmoteSimConnection, emoteSimBinary, startServer, withTimeout } from './lib/emote-sim.mjs'
import { ENTITY_ID_BASE, FrameHistory, Player, adapterModule, checkTransforms, sleep, startBareBackend, waitFor } from './lib/e2e.mjs'
import { displayTypeId } from './lib/minecraft.mjs'

const LIMIT_MS = 60_000
const VERSION = '26.1'
const PROTOCOL = 775
const failures = []
const check = (ok, what) => { if (!ok) failures.push(what) }
const cleanups = []
const step = (m) => console.log(`e2e-775: ${m}`)

async function main () {
  const sim = await startServer({ bin: emoteSimBinary(), clock: 'realtime' })
  cleanups.push(() => sim.stop())
  const observer = await EmoteSimConnection.connect(sim.port, { role: 'observer' })
  cleanups.push(() => observer.close())
  const history = new FrameHistory()
  observer.on('frame', (f) => history.apply(f))
  await observer.request('subscribe', {})

  const HOME = [8.5, 64, 8.5]
  const backend = await startBareBackend(VERSION, (name) => (name === 'bob' ? [HOME[0] + 300, 64, HOME[2]] : HOME))
  cleanups.push(() => backend.server.close())
  const { startAdapter } = await import(adapterModule)
  const adapter = await startAdapter({
    listenPort: 0, backendPort: backend.port, emoteSimPort: sim.port, version: VERSION,
    log: (m) => process.env.E2E_VERBOSE && console.log(`[adapter] ${m}`)
  })
  cleanups.push(() => adapter.close())
  step(`emote-sim :${sim.port}, backend :${backend.port}, adapter :${adapter.port}`)

  const alice = new Player(adapter.port, 'alice', VERSION)
  cleanups.push(() => alice.client.end())
  const bob = new Player(adapter.port, 'bob', VERSION)
  cleanups.push(() => bob.client.end())
  await alice.ready()
  await bob.ready()
  await waitFor(() => adapter.players.size === 2 && [...adapter.players.values()].every((b) => b.joined), 5000,
    'the adapter to mirror both players')
  await sleep(200)

  alice.chatCommand('emote mc:showcase')
  const itemType = displayTypeId(PROTOCOL, 'item')
  const aliceSees = alice.watcher
  const bobSees = bob.watcher
  await waitFor(() => aliceSees.alive().filter(([, e]) => e.type === itemType).length >= 2, 5000,
    'alice to see the item displays spawn')
  step(`alice sees ${aliceSees.alive().length} display entities`)
  for (const [id, e] of aliceSees.alive()) {
    const h = id - ENTITY_ID_BASE
    check(history.displays.has(h), `alice sees entity ${id}, which is no display of the frames`)
    check(history.hasPosition(h, ...e.position), `alice: entity ${id} spawned at ${e.position}, not a frame position`)
  }
  await sleep(1000)
  for (const [id] of aliceSees.alive()) checkTransforms(history, aliceSees, id, failures)
  const updates = aliceSees.alive().reduce((n, [, e]) => n + e.transforms.length, 0)
  check(updates > 8, `alice received only ${updates} transform entries in a second of animation`)
  check(bobSees.spawns === 0, `bob, 300 blocks away, saw ${bobSees.spawns} spawns`)

  // bob steps to 170 blocks (still out of range) and walks in.
  bob.move(HOME[0] + 170, 64, HOME[2])
  await sleep(500)
  check(bobSees.spawns === 0, `bob, 170 blocks away, saw ${bobSees.spawns} spawns`)
  await bob.walkTo(HOME[0] + 100, HOME[2], 1.0, () => bobSees.alive().length >= 4)
  step(`bob walked to x − home = ${(bob.position[0] - HOME[0]).toFixed(1)} and sees ${bobSees.alive().length} displays`)
  await sleep(300)
  check(bobSees.alive().length === aliceSees.alive().length,
    `bob sees ${bobSees.alive().length} displays in range, alice ${aliceSees.alive().length}`)
  // He stops stepping once he has them, so this is where he was when they arrived (range 160).
  check(bob.position[0] - HOME[0] <= 160, `bob got the displays ${bob.position[0] - HOME[0]} blocks away`)
  for (const [id, e] of bobSees.alive()) {
    checkTransforms(history, bobSees, id, failures)
    check(history.hasPosition(id - ENTITY_ID_BASE, ...e.position), `bob: entity ${id} at ${e.position}, not a frame position`)
  }

  // alice walks 3 blocks towards bob: the displays follow, on both clients.
  await alice.walkTo(HOME[0] + 3, HOME[2], 0.2)
  await sleep(400)
  for (const [id, e] of aliceSees.alive()) {
    const latest = history.latestPosition.get(id - ENTITY_ID_BASE)
    check(latest && latest.join() === e.position.join(), `alice: entity ${id} at ${e.position}, frames say ${latest}`)
    check(Math.hypot(e.position[0] - alice.position[0], e.position[2] - alice.position[2]) < 0.6,
      `alice: entity ${id} at ${e.position} did not follow her to ${alice.position}`)
  }
  check(bobSees.alive().length === aliceSees.alive().length,
    `bob sees ${bobSees.alive().length} displays after alice walked towards him, alice ${aliceSees.alive().length}`)
  for (const [id, e] of bobSees.alive()) {
    const latest = history.latestPosition.get(id - ENTITY_ID_BASE)
    check(latest && latest.join() === e.position.join(), `bob: entity ${id} at ${e.position}, frames say ${latest}`)
  }

  // alice jumps.
  await alice.jump()
  await waitFor(() => history.stopped.some((e) => e.emote === 'mc:showcase'), 5000, 'the showcase to stop')
  const stop = history.stopped.find((e) => e.emote === 'mc:showcase')
  check(stop.reason === 'JUMPED', `the showcase stopped with ${stop.reason}, not JUMPED`)
  await waitFor(() => aliceSees.alive().length === 0 && bobSees.alive().length === 0, 5000,
    'both clients to lose the displays')
  step(`stopped ${stop.reason}; displays removed on both clients`)
}

try {
  await withTimeout(main(), LIMIT_MS, 'e2e-775')
} catch (e) {
  failures.push(e.stack || e.message)
}
for (const c of cleanups.reverse()) {
  try { await withTimeout(Promise.resolve(c()), 3000, 'cleanup') } catch {}
}
if (failures.length) {
  for (const f of failures) console.error(`FAIL ${f}`)
  process.exit(1)
}
console.log('e2e-775: PASS')
process.exit(0)
