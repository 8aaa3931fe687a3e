// The example bots run green against a manual-clock server and against a realtime one configured
// like scripts/serve, twice in a row on the same server (their players, events and stops are
// their own), and explain a taken name or a missing server in one line.

import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { execFile, spawn } from 'node:child_process'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { connect } from '../index.js'
import { startServer } from './server.mjs'

const exec = promisify(execFile)
const examples = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'examples')
const runs = [
  ['crowd.mjs', ['--players', '6', '--seconds', '1', '--rate', '0.5'], /plays accepted: [1-9]/],
  ['handshake.mjs', [], /^matched$/m],
  ['walk-away.mjs', [], /stopped: MOVED/]
]
const bot = (name, args) => exec(process.execPath, [path.join(examples, name), ...args], { timeout: 60000 })
  .then((r) => ({ code: 0, ...r }), (e) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }))

for (const clock of ['manual', 'realtime']) {
  describe(`the examples on a ${clock} clock`, () => {
    test('each twice in a row', async () => {
      const server = await startServer({ clock })
      try {
        for (const [name, args, expected] of runs) {
          for (const attempt of [1, 2]) {
            const r = await bot(name, [...args, '--connect', server.tcp])
            assert.equal(r.code, 0, `${name} #${attempt}: ${r.stdout}${r.stderr}`)
            assert.match(r.stdout, expected)
          }
        }
      } finally {
        await server.dispose()
      }
    })
  })
}

test('a server that goes away is explained', async () => {
  const server = await startServer({ clock: 'realtime' })
  try {
    const child = spawn(process.execPath, [path.join(examples, 'crowd.mjs'), '--connect', server.tcp, '--players', '4', '--seconds', '30'])
    let stdout = ''
    let stderr = ''
    child.stderr.on('data', (d) => { stderr += d })
    const exited = new Promise((resolve) => child.on('exit', resolve))
    await new Promise((resolve) => child.stdout.on('data', (d) => { stdout += d; if (stdout.includes('connected')) resolve() }))
    await new Promise((resolve) => setTimeout(resolve, 500))
    await server.stop()
    assert.equal(await exited, 1, stdout + stderr)
    assert.match(stderr, /lost the connection to the server/)
    assert.doesNotMatch(stderr, /at .*\.mjs:\d+/) // no stack trace
  } finally {
    await server.dispose()
  }
})

test('a taken name and a missing server are explained', async () => {
  const server = await startServer({ clock: 'manual' })
  const address = server.tcp
  try {
    const sim = await connect(address)
    await sim.join('walker-taken', { position: [0, 64, 0] })
    const r = await bot('walk-away.mjs', ['--connect', address, '--tag', 'taken'])
    assert.equal(r.code, 1)
    assert.match(r.stderr, /already on this server/)
    assert.doesNotMatch(r.stderr, /at .*\.mjs:\d+/) // no stack trace
    await sim.close()
  } finally {
    await server.dispose()
  }
  const r = await bot('handshake.mjs', ['--connect', address])
  assert.equal(r.code, 1)
  assert.match(r.stderr, /cannot connect/)
})
