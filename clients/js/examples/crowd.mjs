#!/usr/bin/env node
// A crowd of players playing random emotes (docs/guide/bots.md).
//
//   node clients/js/examples/crowd.mjs --connect 127.0.0.1:25580 --players 20 --seconds 30
//
// Joins PLAYERS players on a grid (3 blocks apart, so no two-player matches happen by accident)
// at a spot of its own; every half second (10 ticks) each player starts a random standalone emote
// with probability --rate, and now and then jumps (which stops emotes that stop on jump). Safe on
// a shared server: it hears only about its own players (subscribe `players`), stops only their
// emotes and makes them leave at the end. Prints plays accepted, refusals by error code,
// playbacks started and stopped by reason. Works on either clock.

import { EmoteSimError } from '../index.js'
import { join, open, options, run } from './bot.mjs'

run(async () => {
  const args = options({
    players: { type: 'string', default: '20' },
    seconds: { type: 'string', default: '30' },
    rate: { type: 'string', default: '0.2' }
  })
  const rng = args.rng
  const rate = Number(args.rate)
  const sim = await open(args, 'crowd.mjs/1')
  console.log(`connected: ${sim.welcome.server}, tick ${sim.welcome.tick}, clock ${sim.welcome.clock}, ${sim.welcome.emotes} emotes`)
  const emotes = (await sim.listEmotes()).filter((e) => e.standalone && !e.two_player).map((e) => e.id)
  if (!emotes.length) {
    console.error('the server has no standalone emotes to play')
    return 1
  }
  const n = Number(args.players)
  const side = Math.max(1, Math.ceil(Math.sqrt(n)))
  const [x0, y0, z0] = args.origin
  const players = []
  try {
    for (let i = 0; i < n; i++) {
      players.push(await join(sim, `crowd${i}-${args.tag}`, {
        position: [x0 + (i % side) * 3, y0, z0 + Math.floor(i / side) * 3], yaw: rng() * 360 - 180
      }))
    }
  } catch (e) {
    for (const p of players) await p.leave()
    await sim.close()
    throw e
  }
  await sim.subscribe({ events: ['playback.'], players: 'own' })

  let started = 0
  const stopped = {}
  sim.on('playback.started', () => { started++ })
  sim.on('playback.stopped', (e) => { stopped[e.reason] = (stopped[e.reason] ?? 0) + 1 })
  let accepted = 0
  const refused = {}
  const refuse = (code) => { refused[code] = (refused[code] ?? 0) + 1 }
  sim.on('reply.error', (e) => refuse(e.code))

  for (let round = 0; round < Math.max(1, Math.round(Number(args.seconds) * 2)); round++) {
    const plays = []
    for (const p of players) {
      const roll = rng()
      if (roll < rate) {
        plays.push(p.play(emotes[Math.floor(rng() * emotes.length)]).then(() => { accepted++ }, (e) => {
          if (!(e instanceof EmoteSimError)) throw e
          refuse(e.code)
        }))
      } else if (roll < rate + 0.02) {
        await sim.send('player.event', { player: p.name, event: 'jump' })
      }
    }
    await Promise.all(plays)
    await sim.waitTicks(10)
  }

  // Only our own players' emotes: never emote.stop_all on a shared server.
  let stoppedNow = 0
  for (const p of players) {
    try {
      await p.stop()
      stoppedNow++
    } catch (e) {
      if (!(e instanceof EmoteSimError) || e.code !== 'not_playing') throw e
    }
  }
  await sim.waitTicks(1)
  for (const p of players) await p.leave()
  await sim.close()
  const total = Object.values(stopped).reduce((a, b) => a + b, 0)
  console.log(`plays accepted: ${accepted}`)
  console.log(`plays refused: ${JSON.stringify(refused)}`)
  console.log(`playbacks started: ${started}`)
  console.log(`playbacks stopped: ${JSON.stringify(stopped)} (stopped at the end: ${stoppedNow})`)
  if (started !== total) {
    console.error(`error: ${started} started but ${total} stopped`)
    return 1
  }
  return 0
})
