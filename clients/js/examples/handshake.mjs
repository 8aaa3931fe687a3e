#!/usr/bin/env node
// Two players shaking hands (docs/guide/bots.md).
//
//   node clients/js/examples/handshake.mjs --connect 127.0.0.1:25580
//
// Two players join 1.2 blocks apart, facing each other, at a spot of their own. The first starts
// a two-player Sequence (an offer: role "initiator"), five ticks later the second requests the
// same emote and becomes the partner (role "partner"); the server reports partner.reserved and
// partner.matched. Prints its players' events and exits 0 once the match happened and both
// playbacks ended. Safe on a shared server: it hears only about its own players.

import { EmoteSimError, TimeoutError } from '../index.js'
import { join, open, options, run } from './bot.mjs'

run(async () => {
  const args = options({ emote: { type: 'string' }, ticks: { type: 'string', default: '400' } })
  const sim = await open(args, 'handshake.mjs/1')
  let emote = args.emote
  if (!emote) {
    emote = (await sim.listEmotes()).find((e) => e.two_player)?.id
    if (!emote) {
      console.error('the server has no two-player emote')
      await sim.close()
      return 1
    }
  }
  console.log(`connected to ${sim.welcome.server} (${sim.welcome.clock} clock); emote ${emote}`)
  const [x, y, z] = args.origin
  // Facing each other: yaw 0 looks towards +z, yaw 180 towards -z.
  const a = await join(sim, `alice-${args.tag}`, { position: [x, y, z], yaw: 0 })
  let b
  try {
    b = await join(sim, `bob-${args.tag}`, { position: [x, y, z + 1.2], yaw: 180 })
  } catch (e) {
    await a.leave()
    await sim.close()
    throw e
  }
  await sim.subscribe({ events: ['playback.', 'partner.'], players: 'own' })
  sim.on('frame', (f) => { for (const e of f.events) console.log(`tick ${f.tick}: ${JSON.stringify(e)}`) })

  let ok = true
  try {
    console.log(`${a.name}: ${JSON.stringify(await a.play(emote))}`)
    await sim.waitTicks(5)
    const matched = sim.waitFor('partner.matched', { ticks: 60 })
    console.log(`${b.name}: ${JSON.stringify(await b.play(emote))}`)
    await matched
    const ticks = Number(args.ticks)
    const ends = await Promise.all([a.waitFor('playback.stopped', { ticks }), b.waitFor('playback.stopped', { ticks })])
    ok = ends.every((e) => e.reason === 'FINISHED')
  } catch (e) {
    if (!(e instanceof EmoteSimError) && !(e instanceof TimeoutError)) throw e
    console.error(`no match: ${e.message}`)
    ok = false
  }
  await a.leave()
  await b.leave()
  await sim.close()
  console.log(ok ? 'matched' : 'no match')
  return ok ? 0 : 1
})
