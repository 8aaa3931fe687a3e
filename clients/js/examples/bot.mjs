// What the example bots share: the command line, a spot away from other bots, and clear messages
// for the failures a shared server produces (a taken name, a lost or refused connection).

import { parseArgs } from 'node:util'
import { randomBytes } from 'node:crypto'
import { connect, ConnectionClosedError, EmoteSimError } from '../index.js'

// A small seeded generator (mulberry32), so --seed repeats a bot's choices.
export function random (seed) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

export function options (extra = {}) {
  const { values } = parseArgs({
    options: {
      connect: { type: 'string', default: '127.0.0.1:25580' },
      token: { type: 'string' },
      seed: { type: 'string' },
      tag: { type: 'string' },
      ...extra
    }
  })
  const rng = random(values.seed != null ? Number(values.seed) : randomBytes(4).readUInt32LE())
  values.rng = rng
  values.tag ??= randomBytes(2).toString('hex')
  // Far from other bots: two-player emotes match the nearest offer, so keep to our own spot.
  values.origin = [Math.floor(rng() * 40000) - 20000 + 0.5, 64, Math.floor(rng() * 40000) - 20000 + 0.5]
  return values
}

let opened = null

export async function open (args, client) {
  try {
    opened = await connect(args.connect, { token: args.token, client })
    return opened
  } catch (e) {
    if (e.code === 'ECONNREFUSED' || e.code === 'ENOENT') throw new BotError(`cannot connect to ${args.connect}: is the server running (scripts/serve)?`)
    if (e instanceof EmoteSimError) throw new BotError(`the server refused the connection: ${e.message}`)
    throw e
  }
}

export class BotError extends Error {}

/** Join a player, explaining a taken name instead of a stack trace. */
export async function join (sim, name, fields) {
  try {
    return await sim.players.join(name, fields)
  } catch (e) {
    if (e instanceof EmoteSimError && e.code === 'player_exists') {
      throw new BotError(`player '${name}' is already on this server (another bot, or an earlier run that kept it): pick other names with --tag`)
    }
    throw e
  }
}

/** Run main() and turn the failures above into one clear line and exit status 1. */
export function run (main) {
  main().then((code) => { process.exitCode = code ?? 0 }, async (e) => {
    if (e instanceof BotError) console.error(e.message)
    else if (e instanceof ConnectionClosedError) console.error(`lost the connection to the server (${e.message}); is it still running?`)
    else console.error(e)
    process.exitCode = 1
    await opened?.close() // say bye, so nothing keeps the process alive
  })
}
