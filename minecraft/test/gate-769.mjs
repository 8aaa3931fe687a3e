#!/usr/bin/env node
// The gate (docs/spec/gate.md) on protocol 769: a flying-squid 1.21.4 backend (compression on: its
// minecraft-protocol server sets a threshold of 256), `emote-sim serve --gate` in front of it and
// mineflayer 4.39 bots connecting to the gate; no adapter, no plugin.
//   * alice types `/emote mc:showcase`: alice and bob (next to her) see the item displays spawn with
//     the frames' transforms; carol, joining late, gets them; alice's jump stops it (JUMPED) and
//     every client loses them
//   * `/emote stop` (MANUAL)
// (Death and respawn are in gate-775.mjs, whose backend sends them as vanilla does.)
//
// Usage: node test/gate-769.mjs [path/to/emote-sim]   (or ESIM_BIN). Bounded to 60 s.

import { createRequire } from 'node:module'
import { EmoteSimConnection, emoteSimBinary, startServer, withTimeout } from './lib/emote-sim.mjs'
import { DisplayWatcher, ENTITY_ID_BASE, FrameHistory, checkTransformsSettled, sleep, waitFor } from './lib/e2e.mjs'
import { displayTypeId } from './lib/minecraft.mjs'

const require = createRequire(import.meta.url)
const mineflayer = require('mineflayer')
const flyingSquid = require('flying-squid')

const LIMIT_MS = 60_000
const VERSION = '1.21.4'
const failures = []
const check = (ok, what) => { if (!ok) failures.push(what) }
const cleanups = []
const step = (m) => console.log(`gate-769: ${m}`)

function startBackend () {
  return new Promise((resolve, reject) => {
    const serv = flyingSquid.createMCServer({
      motd: 'emote-sim gate', host: '127.0.0.1', port: 0, 'max-players': 10, 'online-mode': false,
      logging: false, gameMode: 0, difficulty: 0, worldFolder: undefined,
      generation: { name: 'superflat', options: { worldHeight: 80 } },
      kickTimeout: 10000, plugins: {}, modpe: false, 'view-distance': 4,
      'player-list-text': { header: { text: '' }, footer: { text: '' } },
      'everybody-op': true, 'max-entities': 100, version: VERSION
    })
    const findSpawn = serv.getSpawnPoint
    serv.getSpawnPoint = async (world) => {
      const p = await findSpawn(world)
      return p.set(8, p.y, 8)
    }
    serv.once('listening', () => resolve({ serv, port: serv._server.socketServer.address().port }))
    serv.once('error', reject)
  })
}

function joinBot (port, username) {
  return new Promise((resolve, reject) => {
    const bot = mineflayer.createBot({ host: '127.0.0.1', port, username, version: VERSION, auth: 'offline', viewDistance: 'far' })
    // Watching from the first packet: the gate may show a late joiner the displays before
    // mineflayer's 'spawn'.
    bot.displays = new DisplayWatcher(bot._client, username)
    bot.once('spawn', () => resolve(bot))
    bot.once('error', reject)
    bot.once('kicked', (reason) => reject(new Error(`${username} kicked: ${JSON.stringify(reason)}`)))
  })
}

async function main () {
  const backend = await startBackend()
  cleanups.push(() => backend.serv.quit ? backend.serv.quit() : backend.serv._server.close())
  const sim = await startServer({ bin: emoteSimBinary(), clock: "realtime", gates: 1, log: !!process.env.E2E_VERBOSE, args: ['--gate', `127.0.0.1:0=127.0.0.1:${backend.port}`] })
  cleanups.push(() => sim.stop())
  const gatePort = sim.gatePorts[0]
  const observer = await EmoteSimConnection.connect(sim.port, { role: 'observer' })
  cleanups.push(() => observer.close())
  const history = new FrameHistory()
  observer.on('frame', (f) => history.apply(f))
  await observer.request('subscribe', {})
  step(`emote-sim :${sim.port}, gate :${gatePort} -> flying-squid :${backend.port}`)

  const alice = await joinBot(gatePort, 'alice')
  cleanups.push(() => alice.quit())
  const bob = await joinBot(gatePort, 'bob')
  cleanups.push(() => bob.quit())
  const aliceSees = alice.displays
  const bobSees = bob.displays
  const key = alice._client.uuid
  await waitFor(async () => {
    const s = await observer.requestRaw('state.get', {})
    return s.ok && s.players.some((p) => p.player === key)
  }, 5000, 'alice to join emote-sim')
  await sleep(500)

  alice.chat('/emote mc:showcase')
  const itemType = displayTypeId(769, 'item')
  await waitFor(() => aliceSees.alive().filter(([, e]) => e.type === itemType).length >= 2 &&
    bobSees.alive().length === aliceSees.alive().length, 5000, 'alice and bob to see the item displays spawn')
  step(`alice and bob see ${aliceSees.alive().length} display entities`)
  await sleep(800)
  for (const [id, e] of aliceSees.alive()) {
    check(history.hasPosition(id - ENTITY_ID_BASE, ...e.position), `alice: entity ${id} at ${e.position}, not a frame position`)
  }
  await checkTransformsSettled(history, aliceSees, failures)
  await checkTransformsSettled(history, bobSees, failures)

  const carol = await joinBot(gatePort, 'carol')
  cleanups.push(() => carol.quit())
  const carolSees = carol.displays
  await waitFor(() => carolSees.alive().length === aliceSees.alive().length, 5000, 'carol (late) to see the displays')

  alice.setControlState('jump', true)
  await sleep(300)
  alice.setControlState('jump', false)
  await waitFor(() => history.stopped.length >= 1, 5000, 'the showcase to stop')
  check(history.stopped[0].reason === 'JUMPED', `the showcase stopped with ${history.stopped[0].reason}, not JUMPED`)
  await waitFor(() => [aliceSees, bobSees, carolSees].every((w) => w.alive().length === 0), 5000, 'every client to lose the displays')
  step('JUMPED: displays removed on the three clients')

  await sleep(300)
  alice.chat('/emote mc:showcase')
  await waitFor(() => aliceSees.alive().length >= 2, 5000, 'the second showcase')
  alice.chat('/emote stop')
  await waitFor(() => history.stopped.length >= 2, 5000, 'the stop')
  check(history.stopped[1].reason === 'MANUAL', `/emote stop ended with ${history.stopped[1].reason}`)
  await waitFor(() => aliceSees.alive().length === 0 && bobSees.alive().length === 0, 5000, 'the displays to go')

}

try {
  await withTimeout(main(), LIMIT_MS, 'gate-769')
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
console.log('gate-769: PASS')
process.exit(0)
