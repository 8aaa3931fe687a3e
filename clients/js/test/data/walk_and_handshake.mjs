// The scenario walk_and_handshake.json beside it, as a client script: the same operations at the
// same ticks on a manual clock. Prints the frame lines it receives (subscribed like `emote-sim bot`:
// everything, with matrices). Usage: node walk_and_handshake.mjs ADDRESS

import { connect } from '../../index.js'

const sim = await connect(process.argv[2], { client: 'walk_and_handshake.mjs' })
await sim.subscribe({ matrix: true })
sim.on('frame', (f) => process.stdout.write(f.line + '\n'))

const script = {
  0: async () => {
    await sim.players.join('alice', { position: [0.5, 64, 0.5], yaw: 0 })
    await sim.players.join('bob', { position: [10.5, 64, 0.5], yaw: 0 })
    await sim.players.join('carol', { position: [10.5, 64, 1.7], yaw: 180 })
  },
  1: () => sim.players.get('alice').play('sample:wave'),
  2: () => sim.players.get('bob').play('sample:handshake'),
  6: async () => {
    const r = await sim.players.get('carol').play('sample:handshake')
    if (r.role !== 'partner') throw new Error(`carol is ${r.role}, not the partner`)
  },
  30: () => sim.players.get('alice').update({ position: [1.5, 64, 0.5] })
}
for (let tick = 0; tick < 120; tick++) {
  await script[tick]?.()
  await sim.step(1)
}
await sim.close()
