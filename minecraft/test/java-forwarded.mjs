#!/usr/bin/env node
// The Java client's forwarder output, decoded (render.md §7, §9): clients/java's ForwardingTest
// (scripts/test-java) writes the bytes its forwarder wrote into each player's channel for one
// scenario — alice on 769 and bob on 775 each play sample:wave, alice stops — to
// clients/java/target/forwarded/two-viewers.json. Every packet is decoded with minecraft-protocol's
// client-side play deserializer for the player's version, all bytes consumed, and applied in order
// to the checks' model client (lib/model.mjs ViewerClient): spawns inside bundles, no entity
// spawned twice, metadata and destroys only for entities the client has, hidden-player packets of
// render.md §5.5. At the end no bundle is open and bob is still hidden from alice.
//
// Usage: node test/java-forwarded.mjs [path/to/two-viewers.json]
// Exits 0 when every packet decoded and applied cleanly, 1 otherwise, 2 when the file is missing.

import fs from 'node:fs'
import path from 'node:path'
import { repoRoot } from './lib/emote-sim.mjs'
import { PacketDecoder } from './lib/minecraft.mjs'
import { ViewerClient } from './lib/model.mjs'

const file = process.argv[2] ?? path.join(repoRoot, 'clients', 'java', 'target', 'forwarded', 'two-viewers.json')
if (!fs.existsSync(file)) {
  console.error(`java-forwarded: ${file} does not exist (scripts/test-java writes it)`)
  process.exit(2)
}
const scenario = JSON.parse(fs.readFileSync(file, 'utf8'))
const failures = []
const playersByEntityId = new Map(scenario.players.map((p) => [p.entity_id, p.player]))
const clients = new Map()
for (const p of scenario.players) {
  const decoder = new PacketDecoder(p.protocol)
  const client = new ViewerClient(p.player, p.protocol, null)
  const names = {}
  for (const [i, hex] of p.packets.entries()) {
    let packet
    try {
      packet = decoder.decode(Buffer.from(hex, 'hex'))
    } catch (e) {
      failures.push(`${p.player} (${p.protocol}) packet ${i}: ${e.message}`)
      continue
    }
    names[packet.name] = (names[packet.name] ?? 0) + 1
    client.apply(packet, playersByEntityId)
  }
  if (client.inBundle) client.error('the last bundle never closed')
  if (!names.spawn_entity) client.error('no spawn_entity: the scenario spawns displays')
  failures.push(...client.errors)
  clients.set(p.player, client)
  console.log(`java-forwarded: ${p.player} (${p.protocol}) ${p.packets.length} packets decoded: ` +
    Object.entries(names).map(([n, c]) => `${n} ${c}`).join(', '))
}
const alice = clients.get('alice')
const bob = scenario.players.find((p) => p.player === 'bob')
if (!alice || !bob) {
  failures.push('the scenario needs players alice and bob')
} else if (((alice.playerFlags.get(bob.entity_id) ?? 0) & 0x20) === 0) {
  failures.push(`alice's client does not hold bob (${bob.entity_id}) invisible at the end (render.md §5.5)`)
}
if (failures.length) {
  for (const f of failures) console.error(`FAIL ${f}`)
  process.exit(1)
}
console.log('java-forwarded: PASS')
