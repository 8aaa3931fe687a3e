#!/usr/bin/env node
// Walk away to break the emote (docs/guide/bots.md).
//
//   node clients/js/examples/walk-away.mjs --connect 127.0.0.1:25580
//
// A player joins at a spot of its own, plays a looping emote (sample:wave), lets it run for a
// second and steps one block aside. The emote's stop conditions end it with reason MOVED; the bot
// waits for its own playback.stopped and exits 0 when the reason is the expected one.

import { join, open, options, run } from './bot.mjs'

run(async () => {
  const args = options({ emote: { type: 'string', default: 'sample:wave' }, expect: { type: 'string', default: 'MOVED' } })
  const sim = await open(args, 'walk-away.mjs/1')
  const [x, y, z] = args.origin
  const me = await join(sim, `walker-${args.tag}`, { position: [x, y, z], yaw: 0 })
  await sim.subscribe({ events: ['playback.'], players: 'own' })
  const started = await me.play(args.emote)
  console.log(`playing ${started.emote} (session ${started.session})`)
  await sim.waitTicks(20)
  await me.update({ position: [x + 1, y, z] })
  const stopped = await me.waitFor('playback.stopped', { ticks: 5 })
  await me.leave()
  await sim.close()
  console.log(`stopped: ${stopped.reason}`)
  if (stopped.reason !== args.expect) {
    console.error(`expected ${args.expect}`)
    return 1
  }
  return 0
})
