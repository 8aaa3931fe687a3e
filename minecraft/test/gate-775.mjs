#!/usr/bin/env node
// The gate (docs/spec/gate.md) on protocol 775, Minecraft 26.1: a bare minecraft-protocol server
// as the backend (compression on: it sets a threshold of 256), `emote-sim serve --gate` in front of
// it, minecraft-protocol clients connecting to the gate. No adapter and no plugin anywhere.
//   * alice sends `/emote mc:showcase`: alice and bob (next to her) decode the displays' spawns
//     with the frames' transforms; carol, joining late, gets the current pose; the backend never
//     sees the command; the displays follow alice and go when she jumps (JUMPED)
//   * `/emote stop` (MANUAL); a refused `/emote` comes back as system chat; tab completion is
//     answered by the gate; declare_commands carries the appended `emote` tree
//   * a socket client's player.update on a gate player is refused (forbidden)
//   * a return to configuration mid-emote: the client gets nothing of ours while configuring and
//     the displays again after it
//   * death mid-emote (PLAYER_UNAVAILABLE), then respawn: the emote plays and shows again
//   * refusals: an online-mode backend (encryption) and a backend that is down disconnect the
//     client with a message; a client on 1.20.4 (765) passes through without emotes, logged once
// Every packet a client receives is decoded by minecraft-protocol.
//
// Usage: node test/gate-775.mjs [path/to/emote-sim]   (or ESIM_BIN). Bounded to 80 s.

import { createRequire } from 'node:module'
import net from 'node:net'
import { EmoteSimConnection, emoteSimBinary, startServer, withTimeout } from './lib/emote-sim.mjs'
import { ENTITY_ID_BASE, FrameHistory, Player, checkTransformsSettled, sleep, waitFor } from './lib/e2e.mjs'
import { displayTypeId } from './lib/minecraft.mjs'

const require = createRequire(import.meta.url)
const mc = require('minecraft-protocol')
const minecraftData = require('minecraft-data')

const LIMIT_MS = 80_000
const VERSION = '26.1'
const PROTOCOL = 775
const failures = []
const check = (ok, what) => { if (!ok) failures.push(what) }
const cleanups = []
const step = (m) => console.log(`gate-775: ${m}`)

// A bare backend: login, a position, and a one-node command tree; it records what reaches it.
function startBackend (version, spawnAt, { online = false } = {}) {
  return new Promise((resolve, reject) => {
    const server = mc.createServer({ host: '127.0.0.1', port: 0, version, 'online-mode': online, keepAlive: false, hideErrors: true })
    const login = minecraftData(version).loginPacket
    const seen = { commands: [], tabs: [], clients: new Map(), login }
    let nextEntityId = 1
    server.on('playerJoin', (client) => {
      const [x, y, z] = spawnAt(client.username)
      seen.clients.set(client.username, client)
      client.write('login', { ...login, entityId: nextEntityId++, enforcesSecureChat: false })
      const flags = { unused: 0, has_custom_suggestions: 0, has_redirect_node: 0, has_command: 0, command_node_type: 0 }
      if (client.protocolVersion >= 771) flags.allows_restricted = 0
      client.write('declare_commands', { nodes: [{ flags, children: [] }], rootIndex: 0 })
      if (client.protocolVersion >= 768) {
        client.write('position', { teleportId: 1, x, y, z, dx: 0, dy: 0, dz: 0, yaw: 0, pitch: 0, flags: {} })
      } else {
        client.write('position', { x, y, z, yaw: 0, pitch: 0, flags: 0, teleportId: 1 })
      }
      client.on('chat_command', (p) => seen.commands.push(p.command))
      client.on('tab_complete', (p) => seen.tabs.push(p.text))
    })
    server.once('listening', () => resolve({ server, seen, port: server.socketServer.address().port }))
    server.once('error', reject)
  })
}

// A port nobody listens on (bound, then closed).
async function deadPort () {
  const s = net.createServer()
  await new Promise((resolve) => s.listen(0, '127.0.0.1', resolve))
  const port = s.address().port
  await new Promise((resolve) => s.close(resolve))
  return port
}

// Connects a client and resolves with why it was disconnected (the decoded reason's text).
function disconnectReason (port, version, username) {
  return new Promise((resolve) => {
    const client = mc.createClient({ host: '127.0.0.1', port, username, version, auth: 'offline', hideErrors: true })
    const done = (why) => { resolve(why); client.end() }
    client.on('disconnect', (p) => done(JSON.stringify(p.reason)))
    client.on('kick_disconnect', (p) => done(JSON.stringify(p.reason)))
    client.on('end', (why) => done(`ended: ${why}`))
    client.on('error', (e) => done(`error: ${e.message}`))
  })
}

async function inSim (observer, player) {
  const s = await observer.requestRaw('state.get', {})
  return s.ok && s.players.some((p) => p.player === player)
}

async function joinedInSim (observer, player) {
  await waitFor(() => inSim(observer, player), 5000, `${player} to join emote-sim`)
}

async function main () {
  const HOME = [8.5, 64, 8.5]
  const backend = await startBackend(VERSION, (name) => (name === 'bob' ? [HOME[0] + 5, 64, HOME[2]] : HOME))
  cleanups.push(() => backend.server.close())
  const online = await startBackend(VERSION, () => HOME, { online: true })
  cleanups.push(() => online.server.close())
  const old = await startBackend('1.20.4', () => HOME)
  cleanups.push(() => old.server.close())
  const dead = await deadPort()

  const sim = await startServer({
    bin: emoteSimBinary(),
    clock: 'realtime',
    gates: 4,
    args: ['--gate', `main=127.0.0.1:0=127.0.0.1:${backend.port}`, '--gate', `online=127.0.0.1:0=127.0.0.1:${online.port}`,
      '--gate', `old=127.0.0.1:0=127.0.0.1:${old.port}`, '--gate', `dead=127.0.0.1:0=127.0.0.1:${dead}`,
      '--limits-gate-connect-timeout-ms', '2000', '--metrics', '127.0.0.1:0']
  })
  cleanups.push(() => sim.stop())
  const [gatePort, onlineGate, oldGate, deadGate] = sim.gatePorts
  const observer = await EmoteSimConnection.connect(sim.port, { role: 'observer' })
  cleanups.push(() => observer.close())
  const history = new FrameHistory()
  observer.on('frame', (f) => history.apply(f))
  await observer.request('subscribe', {})
  step(`emote-sim :${sim.port}, gate :${gatePort} -> backend :${backend.port}`)

  const alice = new Player(gatePort, 'alice', VERSION)
  cleanups.push(() => alice.client.end())
  const bob = new Player(gatePort, 'bob', VERSION)
  cleanups.push(() => bob.client.end())
  let commandTree = null
  alice.client.on('declare_commands', (p) => { commandTree = p })
  const chat = []
  alice.client.on('system_chat', (p) => chat.push(JSON.stringify(p.content)))
  await alice.ready()
  await bob.ready()
  await joinedInSim(observer, alice.client.uuid)
  await joinedInSim(observer, bob.client.uuid)

  // declare_commands: the backend's root got the emote tree (decoded by minecraft-protocol).
  await waitFor(() => commandTree, 3000, 'alice\'s command tree')
  const names = commandTree.nodes.map((n) => n.extraNodeData?.name)
  const emoteNode = commandTree.nodes.findIndex((n) => n.extraNodeData?.name === 'emote')
  check(emoteNode > 0 && commandTree.nodes[commandTree.rootIndex].children.includes(emoteNode),
    `the command tree has no emote under the root: ${JSON.stringify(names)}`)
  check(names.includes('stop') && names.includes('list') && names.includes('id'), `emote's children: ${JSON.stringify(names)}`)

  // Tab completion is the gate's answer; the backend never sees the request.
  const completion = new Promise((resolve) => alice.client.once('tab_complete', resolve))
  alice.client.write('tab_complete', { transactionId: 9, text: '/emote mc:s' })
  const answer = await withTimeout(completion, 3000, 'the tab completion')
  const matches = answer.matches.map((m) => m.match)
  check(answer.transactionId === 9 && matches.includes('mc:showcase') && matches.includes('mc:sit') &&
    !matches.includes('stop'), `tab completion: ${JSON.stringify(answer)}`)

  // The emote: both players near each other see it; the backend never sees the command.
  alice.chatCommand('emote mc:showcase')
  const itemType = displayTypeId(PROTOCOL, 'item')
  const aliceSees = alice.watcher
  const bobSees = bob.watcher
  await waitFor(() => aliceSees.alive().filter(([, e]) => e.type === itemType).length >= 2 &&
    bobSees.alive().length === aliceSees.alive().length, 5000, 'alice and bob to see the item displays spawn')
  step(`alice and bob see ${aliceSees.alive().length} display entities`)
  for (const [id, e] of aliceSees.alive()) {
    check(history.hasPosition(id - ENTITY_ID_BASE, ...e.position), `alice: entity ${id} spawned at ${e.position}, not a frame position`)
  }
  await sleep(800)
  await checkTransformsSettled(history, aliceSees, failures)
  await checkTransformsSettled(history, bobSees, failures)
  check(backend.seen.commands.length === 0, `the backend saw commands: ${backend.seen.commands}`)
  check(backend.seen.tabs.length === 0, `the backend saw tab completions: ${backend.seen.tabs}`)

  // A late joiner gets the current pose.
  const carol = new Player(gatePort, 'carol', VERSION)
  cleanups.push(() => carol.client.end())
  await carol.ready()
  await waitFor(() => carol.watcher.alive().length === aliceSees.alive().length, 5000, 'carol to see the displays')
  await checkTransformsSettled(history, carol.watcher, failures)

  // A socket client may not change a gate's player.
  const controller = await EmoteSimConnection.connect(sim.port, { role: 'controller' })
  cleanups.push(() => controller.close())
  const refused = await controller.requestRaw('player.update', { player: alice.client.uuid, yaw: 10 })
  check(!refused.ok && refused.error.code === 'forbidden' && /gate/.test(refused.error.message),
    `player.update on a gate player: ${JSON.stringify(refused)}`)

  // alice walks: the displays follow her on every client; then she jumps (JUMPED).
  await alice.walkTo(HOME[0] + 2, HOME[2], 0.2)
  await sleep(400)
  for (const [id, e] of aliceSees.alive()) {
    check(Math.hypot(e.position[0] - alice.position[0], e.position[2] - alice.position[2]) < 0.6,
      `alice: entity ${id} at ${e.position} did not follow her to ${alice.position}`)
  }
  await alice.jump()
  await waitFor(() => history.stopped.some((e) => e.emote === 'mc:showcase'), 5000, 'the showcase to stop')
  check(history.stopped.at(-1).reason === 'JUMPED', `stopped with ${history.stopped.at(-1).reason}, not JUMPED`)
  await waitFor(() => [aliceSees, bobSees, carol.watcher].every((w) => w.alive().length === 0), 5000,
    'every client to lose the displays')
  step('JUMPED: displays removed on the three clients')

  // /emote stop.
  alice.chatCommand('emote mc:showcase')
  await waitFor(() => aliceSees.alive().length >= 2, 5000, 'the second showcase')
  alice.chatCommand('emote stop')
  await waitFor(() => history.stopped.length === 2, 5000, 'the stop')
  check(history.stopped.at(-1).reason === 'MANUAL', `/emote stop ended with ${history.stopped.at(-1).reason}`)
  await waitFor(() => aliceSees.alive().length === 0 && bobSees.alive().length === 0, 5000, 'the displays to go')

  // A refusal comes back as system chat.
  alice.chatCommand('emote nope:nothing')
  await waitFor(() => chat.some((c) => /nope:nothing|unknown|not/i.test(c)), 3000, 'the refusal in chat')
  alice.chatCommand('emote list')
  await waitFor(() => chat.some((c) => c.includes('mc:showcase')), 3000, 'the emote list in chat')
  check(backend.seen.commands.length === 0, `the backend saw commands: ${backend.seen.commands}`)

  // Return to configuration mid-emote: nothing of ours while configuring, everything again after.
  alice.chatCommand('emote mc:showcase')
  await waitFor(() => aliceSees.alive().length >= 2, 5000, 'the third showcase')
  const server = backend.seen.clients.get('alice')
  let spawnsWhileConfiguring = 0
  let configuring = false
  alice.client.on('spawn_entity', () => { if (configuring) spawnsWhileConfiguring++ })
  const acknowledged = new Promise((resolve) => server.once('configuration_acknowledged', () => {
    server.state = mc.states.CONFIGURATION // what the client sends next is configuration's
    resolve()
  }))
  configuring = true
  server.write('start_configuration', {})
  await withTimeout(acknowledged, 3000, 'the client to acknowledge the configuration')
  await sleep(300) // a few ticks of the running emote while the client configures
  const finished = new Promise((resolve) => server.once('finish_configuration', () => {
    server.state = mc.states.PLAY
    resolve()
  }))
  server.write('finish_configuration', {})
  await withTimeout(finished, 3000, 'the client to finish configuring')
  configuring = false
  check(spawnsWhileConfiguring === 0, `alice got ${spawnsWhileConfiguring} spawns while configuring`)
  for (const [, e] of aliceSees.entities) e.alive = false // her client dropped its entities
  await waitFor(() => aliceSees.alive().length >= 2, 5000, 'alice to get the displays again after configuring')
  step(`after the return to configuration alice sees ${aliceSees.alive().length} displays again`)
  alice.chatCommand('emote stop')

  // Death mid-emote stops it (PLAYER_UNAVAILABLE); after the respawn alice plays again and her new
  // world shows the displays.
  await waitFor(() => history.stopped.length >= 3, 5000, 'the stop after configuring')
  alice.chatCommand('emote mc:showcase')
  await waitFor(() => aliceSees.alive().length >= 2, 5000, 'the fourth showcase')
  server.write('update_health', { health: 0, food: 20, foodSaturation: 5 })
  await waitFor(() => history.stopped.length >= 4, 5000, 'the emote to stop at her death')
  check(history.stopped.at(-1).reason === 'PLAYER_UNAVAILABLE', `death stopped it with ${history.stopped.at(-1).reason}`)
  server.write('respawn', { worldState: backend.seen.login.worldState, copyMetadata: 0 })
  server.write('update_health', { health: 20, food: 20, foodSaturation: 5 })
  server.write('position', { teleportId: 2, x: HOME[0], y: 64, z: HOME[2], dx: 0, dy: 0, dz: 0, yaw: 0, pitch: 0, flags: {} })
  await sleep(300)
  for (const [, e] of aliceSees.entities) e.alive = false // a respawn drops the client's entities
  const stoppedBefore = history.stopped.length
  alice.chatCommand('emote mc:showcase')
  await waitFor(() => aliceSees.alive().length >= 2, 5000, 'alice to see the displays after respawning')
  await sleep(500)
  check(history.stopped.length === stoppedBefore, `after the respawn the emote stopped: ${history.stopped.at(-1)?.reason}`)
  alice.chatCommand('emote stop')
  step('death stopped the emote; after the respawn it plays and shows again')

  // Refusals and pass-through.
  const encryption = await withTimeout(disconnectReason(onlineGate, VERSION, 'dave'), 5000, 'the encryption refusal')
  check(/offline-mode backend/.test(encryption), `encryption refusal: ${encryption}`)
  const down = await withTimeout(disconnectReason(deadGate, VERSION, 'erin'), 8000, 'the backend-down refusal')
  check(/not reachable/.test(down), `backend down: ${down}`)
  const frank = new Player(oldGate, 'frank', '1.20.4')
  cleanups.push(() => frank.client.end())
  await frank.ready()
  check(/protocol 765 is not supported/.test(sim.output()), 'the pass-through was not logged')
  check(/asks for encryption/.test(sim.output()), 'the encryption refusal was not logged')
  await sleep(300)
  check(!(await inSim(observer, frank.client.uuid)), 'a pass-through player joined emote-sim')
  check(await inSim(observer, alice.client.uuid), 'alice is not in emote-sim')
  step('encryption refused, backend down refused, 765 passed through')

  // gate.md §8: the forward delay of what the backend sent alice and bob, as /metrics shows it.
  const metricsPort = Number(/metrics at http:\/\/127\.0\.0\.1:(\d+)/.exec(sim.output())?.[1])
  check(metricsPort > 0, `no metrics address in the log:\n${sim.output()}`)
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text()
  const series = (suffix) => Number(new RegExp(`^emote_sim_gate_forward_delay_seconds${suffix} (\\S+)$`, 'm').exec(text)?.[1])
  const count = series('_count\\{gate="main"\\}')
  check(text.includes('# TYPE emote_sim_gate_forward_delay_seconds histogram'), 'no forward delay histogram')
  check(count > 10, `forward delay count for gate main: ${count}`)
  check(series('_bucket\\{gate="main",le="\\+Inf"\\}') === count, 'the +Inf bucket is not the count')
  check(series('_sum\\{gate="main"\\}') > 0, 'the forward delay sum is 0')
  step(`forward delay: ${count} writes, ${series('_bucket\\{gate="main",le="0.0005"\\}')} of them within 0.5 ms`)
}

try {
  await withTimeout(main(), LIMIT_MS, 'gate-775')
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
console.log('gate-775: PASS')
process.exit(0)
