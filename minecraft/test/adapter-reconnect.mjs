#!/usr/bin/env node
// The example adapter survives emote-sim being absent, killed and restarted (its link reconnects
// with backoff, examples/node-adapter/emote-sim-link.mjs):
//
// 1. The adapter starts while nothing listens on emote-sim's port: it runs, logs one line for the
//    outage (not one per attempt, no stack trace), and alice's `/emote` gets a chat line saying
//    emotes are unavailable instead of nothing.
// 2. emote-sim starts on that port: the adapter subscribes, joins alice (already playing on the
//    backend) and resyncs; her `/emote mc:showcase` shows its displays.
// 3. emote-sim is killed mid-emote: the adapter removes the displays it can no longer update from
//    alice's client, logs one line, and `/emote` says unavailable again.
// 4. emote-sim restarts: alice is joined again and `/emote` works.
//
// Usage: node test/adapter-reconnect.mjs [path/to/emote-sim]   (or ESIM_BIN). Bounded to 60 s.

import net from 'node:net'
import { EmoteSimConnection, emoteSimBinary, startServer, withTimeout } from './lib/emote-sim.mjs'
import { Player, adapterModule, sleep, startBareBackend, waitFor } from './lib/e2e.mjs'
import { displayTypeId } from './lib/minecraft.mjs'

const VERSION = '1.21.4'
const PROTOCOL = 769
const failures = []
const check = (ok, what) => { if (!ok) failures.push(what) }
const cleanups = []
const step = (m) => console.log(`adapter-reconnect: ${m}`)

// A loopback port nothing listens on (the system's choice, released at once).
function freePort () {
  return new Promise((resolve, reject) => {
    const s = net.createServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address()
      s.close(() => resolve(port))
    })
  })
}

async function main () {
  const port = await freePort()
  const backend = await startBareBackend(VERSION, () => [0.5, 64, 0.5])
  cleanups.push(() => backend.server.close())
  const logs = []
  const { startAdapter } = await import(adapterModule)
  const adapter = await startAdapter({
    listenPort: 0,
    backendPort: backend.port,
    emoteSimPort: port,
    emoteSimOptions: { initialDelay: 50, maxDelay: 200 },
    version: VERSION,
    log: (m) => { logs.push(m); if (process.env.E2E_VERBOSE) console.log(`[adapter] ${m}`) }
  })
  cleanups.push(() => adapter.close())
  let ready = 0
  adapter.link.on('ready', () => ready++)
  const unreachable = () => logs.filter((l) => /is unreachable \(ECONNREFUSED\)|the connection was lost/.test(l)).length

  // 1. No emote-sim.
  const alice = new Player(adapter.port, 'alice', VERSION)
  cleanups.push(() => alice.client.end())
  const chat = []
  alice.client.on('system_chat', (p) => chat.push(JSON.stringify(p.content)))
  await alice.ready()
  await waitFor(() => [...adapter.players.values()].some((b) => b.joined), 5000, 'the adapter to place alice')
  await sleep(600) // several reconnect attempts
  check(unreachable() === 1, `expected one "unreachable" log line for the outage, got: ${JSON.stringify(logs)}`)
  alice.chatCommand('emote mc:showcase')
  await waitFor(() => chat.some((c) => c.includes('unavailable')), 5000, 'alice to be told emotes are unavailable')
  step(`without emote-sim: ${logs.length} log line(s), alice told "${chat[0]}"`)

  // 2. emote-sim comes up on the port.
  let sim = await startServer({ bin: emoteSimBinary(), clock: 'realtime', port })
  cleanups.push(() => sim.stop())
  await waitFor(() => ready === 1, 5000, 'the adapter to connect, subscribe and join alice')
  let observer = await EmoteSimConnection.connect(port, { role: 'observer' })
  const key = [...adapter.players.keys()][0]
  check((await observer.request('state.get', {})).players.some((p) => p.player === key), 'alice was not joined after emote-sim came up')
  await observer.close()
  const itemType = displayTypeId(PROTOCOL, 'item')
  alice.chatCommand('emote mc:showcase')
  await waitFor(() => alice.watcher.alive().filter(([, e]) => e.type === itemType).length >= 2, 5000,
    'alice to see the showcase after emote-sim came up')
  step(`emote-sim up: alice joined, sees ${alice.watcher.alive().length} displays`)

  // 3. emote-sim dies mid-emote.
  sim.process.kill('SIGKILL')
  await waitFor(() => alice.watcher.alive().length === 0, 5000, 'the adapter to remove the displays emote-sim left')
  await waitFor(() => unreachable() === 2, 5000, 'one log line for the second outage')
  const told = chat.length
  alice.chatCommand('emote mc:showcase')
  await waitFor(() => chat.length > told && chat.at(-1).includes('unavailable'), 5000,
    'alice to be told emotes are unavailable after emote-sim died')
  step('emote-sim killed: displays removed, one log line, alice told')

  // 4. emote-sim restarts.
  sim = await startServer({ bin: emoteSimBinary(), clock: 'realtime', port })
  cleanups.push(() => sim.stop())
  await waitFor(() => ready === 2, 5000, 'the adapter to reconnect and join alice again')
  observer = await EmoteSimConnection.connect(port, { role: 'observer' })
  check((await observer.request('state.get', {})).players.some((p) => p.player === key), 'alice was not joined after the restart')
  await observer.close()
  const before = alice.watcher.spawns
  alice.chatCommand('emote mc:showcase')
  await waitFor(() => alice.watcher.spawns > before && alice.watcher.alive().length >= 2, 5000,
    'alice to see the showcase after the restart')
  check(!logs.some((l) => /\n\s+at /.test(l)), `a log line holds a stack trace: ${JSON.stringify(logs)}`)
  check(unreachable() === 2, `expected one log line per outage (2), got: ${JSON.stringify(logs)}`)
  step(`restarted: alice joined again, sees ${alice.watcher.alive().length} displays; ${logs.length} log lines in all`)
}

try {
  await withTimeout(main(), 60_000, 'adapter-reconnect')
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
console.log('adapter-reconnect: PASS')
process.exit(0)
