// `emote-sim bot` and the clients agree: the scenario data/walk_and_handshake.json and the client
// script data/walk_and_handshake.mjs give the same frame lines, byte for byte — the script
// against a fresh manual-clock server, the scenario in process (`emote-sim run`) and against
// another fresh server (`emote-sim bot`).

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { BINARY, ROOT, startServer } from './server.mjs'

const run = promisify(execFile)
const here = path.dirname(fileURLToPath(import.meta.url))
const scenario = path.join(here, 'data', 'walk_and_handshake.json')
const frames = (text) => text.split('\n').filter((l) => l.startsWith('{"op":"frame"'))
const fresh = () => startServer({ args: ['serve', '--clock', 'manual', '--listen', '127.0.0.1:0', '--emotes', path.join(ROOT, 'config', 'emotes')] })

test('a scenario file and a client script give the same frames', async () => {
  const out = path.join(mkdtempSync(path.join(tmpdir(), 'emote-sim-js-')), 'run.ndjson')
  const ran = await run(BINARY, ['run', scenario, '--out', out])
  assert.match(ran.stdout, /1 passed, 0 failed/)
  const expected = frames(readFileSync(out, 'utf8'))
  assert.ok(expected.length > 50, `${expected.length} frames`)

  const s1 = await fresh()
  try {
    const script = await run(process.execPath, [path.join(here, 'data', 'walk_and_handshake.mjs'), s1.tcp])
    assert.deepEqual(frames(script.stdout), expected)
  } finally {
    await s1.dispose()
  }
  const s2 = await fresh()
  try {
    const bot = await run(BINARY, ['bot', '--connect', s2.tcp, scenario])
    assert.deepEqual(frames(bot.stdout), expected)
  } finally {
    await s2.dispose()
  }
})
