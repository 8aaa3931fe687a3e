#!/usr/bin/env node
// The Java client's forwarder output, decoded (render.md §7, §9): clients/java's ForwardingTest
// (scripts/test-java) writes, per scenario, the bytes its forwarder wrote into each player's channel
// to clients/java/target/forwarded/NAME.json:
//   two-viewers    alice on 769 and bob on 775 each play sample:wave, alice stops (manual clock)
//   server-switch  the same, but alice's connection leaves play for 4 ticks (her client loses its
//                  world) and comes back through a real render_reset, which sends her bob's
//                  hidden-player packets again (render.md §4 rule 4)
//   realtime       both play sample:wave on the realtime clock until everything stops
// Every packet is decoded with minecraft-protocol's client-side play deserializer for the player's
// version, all bytes consumed, and applied in order to the checks' model client (lib/model.mjs
// ViewerClient): spawns inside bundles, no entity spawned twice, metadata and destroys only for
// entities the client has, hidden-player packets of render.md §5.5. Where the scenario says the
// client lost its world (`lost_world`: before that packet index) the model client forgets every
// entity. At the end no bundle is open, each client holds exactly the displays the server listed
// (`entities_at_end`), and the `hidden_at_end` pairs [viewer, player] hold the player invisible.
//
// Usage: node test/java-forwarded.mjs [path/to/forwarded/two-viewers.json]
// Decodes that file and every other .json file in its folder; the three scenarios above must be
// there. Exits 0 when every packet decoded and applied cleanly, 1 otherwise, 2 when a file is missing.

import fs from 'node:fs'
import path from 'node:path'
import { repoRoot } from './lib/emote-sim.mjs'
import { PacketDecoder } from './lib/minecraft.mjs'
import { ViewerClient } from './lib/model.mjs'

const first = process.argv[2] ?? path.join(repoRoot, 'clients', 'java', 'target', 'forwarded', 'two-viewers.json')
const folder = path.dirname(first)
const required = ['two-viewers.json', 'server-switch.json', 'realtime.json']
if (!fs.existsSync(first)) {
  console.error(`java-forwarded: ${first} does not exist (scripts/test-java writes it)`)
  process.exit(2)
}
const missing = required.filter((f) => !fs.existsSync(path.join(folder, f)))
if (missing.length) {
  console.error(`java-forwarded: ${missing.join(', ')} missing in ${folder} (scripts/test-java writes them)`)
  process.exit(2)
}

// Decodes one scenario; returns its failures.
function check (file) {
  const name = path.basename(file, '.json')
  const scenario = JSON.parse(fs.readFileSync(file, 'utf8'))
  const failures = []
  const playersByEntityId = new Map(scenario.players.map((p) => [p.entity_id, p.player]))
  const clients = new Map()
  for (const p of scenario.players) {
    const decoder = new PacketDecoder(p.protocol)
    const client = new ViewerClient(p.player, p.protocol, null)
    const lost = new Set(p.lost_world ?? [])
    const names = {}
    for (const [i, hex] of p.packets.entries()) {
      if (lost.has(i)) client.reset()
      let packet
      try {
        packet = decoder.decode(Buffer.from(hex, 'hex'))
      } catch (e) {
        failures.push(`${name}: ${p.player} (${p.protocol}) packet ${i}: ${e.message}`)
        continue
      }
      names[packet.name] = (names[packet.name] ?? 0) + 1
      client.apply(packet, playersByEntityId)
    }
    if (lost.has(p.packets.length)) client.reset()
    if (client.inBundle) client.error('the last bundle never closed')
    if (!names.spawn_entity) client.error('no spawn_entity: the scenario spawns displays')
    if (p.entities_at_end) {
      const held = [...client.entities.keys()].sort((a, b) => a - b)
      const want = [...p.entities_at_end].sort((a, b) => a - b)
      if (JSON.stringify(held) !== JSON.stringify(want)) {
        client.error(`holds entities [${held}] at the end, the server lists [${want}]`)
      }
    }
    failures.push(...client.errors.map((e) => `${name}: ${e}`))
    clients.set(p.player, client)
    console.log(`java-forwarded: ${name}: ${p.player} (${p.protocol}) ${p.packets.length} packets decoded` +
      (lost.size ? ` (world lost before ${[...lost]})` : '') + ': ' +
      Object.entries(names).map(([n, c]) => `${n} ${c}`).join(', '))
  }
  for (const [viewer, player] of scenario.hidden_at_end ?? []) {
    const client = clients.get(viewer)
    const target = scenario.players.find((p) => p.player === player)
    if (!client || !target) {
      failures.push(`${name}: hidden_at_end names ${viewer} and ${player}, not both players`)
    } else if (((client.playerFlags.get(target.entity_id) ?? 0) & 0x20) === 0) {
      failures.push(`${name}: ${viewer}'s client does not hold ${player} (${target.entity_id}) invisible at the end (render.md §5.5)`)
    }
  }
  return failures
}

const files = fs.readdirSync(folder).filter((f) => f.endsWith('.json')).sort()
const failures = files.flatMap((f) => check(path.join(folder, f)))
if (failures.length) {
  for (const f of failures) console.error(`FAIL ${f}`)
  process.exit(1)
}
console.log(`java-forwarded: PASS (${files.length} scenarios)`)
