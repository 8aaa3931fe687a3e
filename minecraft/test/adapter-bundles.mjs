#!/usr/bin/env node
// The example adapter never writes emote-sim's packets inside a backend bundle (render.md §7: the
// client treats bundle_delimiter as a toggle, so an entry written between an opening and a closing
// delimiter would join the backend's bundle and the entry's own delimiters would break both).
//
// A bare minecraft-protocol 26.1 backend opens a bundle of 40 packets (minecraft-protocol passes
// bundles of more than 32 packets on one by one, so the adapter sees it open) and keeps it open
// while emote-sim (manual clock) spawns displays for the player; the backend closes it 400 ms
// later. The client must receive the closing delimiter before any display spawn.
//
// Usage: node test/adapter-bundles.mjs [path/to/emote-sim]   (or ESIM_BIN). Bounded to 30 s.

import { EmoteSimConnection, emoteSimBinary, startServer, withTimeout } from './lib/emote-sim.mjs'
import { Player, adapterModule, sleep, startBareBackend, waitFor } from './lib/e2e.mjs'

const VERSION = '26.1'
const failures = []
const cleanups = []

async function main () {
  const sim = await startServer({ bin: emoteSimBinary(), clock: 'manual' })
  cleanups.push(() => sim.stop())
  const control = await EmoteSimConnection.connect(sim.port)
  cleanups.push(() => control.close())

  const backend = await startBareBackend(VERSION, () => [0.5, 64, 0.5])
  cleanups.push(() => backend.server.close())
  const { startAdapter } = await import(adapterModule)
  const adapter = await startAdapter({ listenPort: 0, backendPort: backend.port, emoteSimPort: sim.port, version: VERSION })
  cleanups.push(() => adapter.close())

  const alice = new Player(adapter.port, 'alice', VERSION)
  cleanups.push(() => alice.client.end())
  const received = [] // packet names in the order alice's client got them
  alice.client.on('packet', (data, meta) => received.push(meta.name))
  await alice.ready()
  await waitFor(() => [...adapter.players.values()].some((b) => b.joined), 5000, 'the adapter to mirror alice')
  await control.request('clock.step', { ticks: 1 }) // the join is applied

  const onBackend = Object.values(backend.server.clients).find((c) => c.username === 'alice')
  const start = received.length
  onBackend.write('bundle_delimiter', {})
  for (let i = 0; i < 40; i++) onBackend.write('entity_head_rotation', { entityId: 7, headYaw: i })
  await waitFor(() => received.filter((n) => n === 'entity_head_rotation').length === 40, 5000, 'the open bundle to arrive')

  // While the backend's bundle is open, emote-sim spawns alice's displays.
  const play = await control.request('emote.play', { player: adapter.players.values().next().value.key, emote: 'mc:showcase' })
  await control.request('clock.step', { ticks: 2 })
  await sleep(400)
  const early = received.slice(start).filter((n) => n === 'spawn_entity').length
  if (early) failures.push(`${early} display spawns reached the client while the backend's bundle was open`)

  onBackend.write('bundle_delimiter', {})
  await waitFor(() => alice.watcher.alive().length > 0, 5000, 'the displays after the bundle closed')
  const tail = received.slice(start)
  const close = tail.indexOf('bundle_delimiter', 1)
  const firstSpawn = tail.indexOf('spawn_entity')
  if (!(close > 0 && firstSpawn > close)) {
    failures.push(`order at the client: ${tail.slice(0, 50).join(' ')}`)
  }
  console.log(`adapter-bundles: session ${play.session}; the backend's bundle closed at packet ${close}, ` +
    `the first display spawn at ${firstSpawn}`)
}

try {
  await withTimeout(main(), 30_000, 'adapter-bundles')
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
console.log('adapter-bundles: PASS')
process.exit(0)
