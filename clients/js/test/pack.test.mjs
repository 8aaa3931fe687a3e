// `npm pack` gives an installable tarball: packed, installed offline into an empty project and
// imported from there by name, types included.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

const exec = promisify(execFile)
const pkg = path.join(path.dirname(fileURLToPath(import.meta.url)), '..')

test('npm pack, then npm install of the tarball, offline', { timeout: 60000 }, async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'emote-sim-pack-'))
  const env = { ...process.env, npm_config_cache: path.join(dir, 'cache'), npm_config_update_notifier: 'false' }
  const { stdout } = await exec('npm', ['pack', '--silent', '--pack-destination', dir, pkg], { env })
  const tarball = path.join(dir, stdout.trim().split('\n').pop())
  assert.ok(existsSync(tarball), tarball)
  const app = path.join(dir, 'app')
  await exec('mkdir', ['-p', app])
  writeFileSync(path.join(app, 'package.json'), '{"name":"app","version":"1.0.0","type":"module"}\n')
  await exec('npm', ['install', '--offline', '--no-audit', '--no-fund', tarball], { cwd: app, env })
  const installed = path.join(app, 'node_modules', 'emote-sim-client')
  for (const f of ['index.js', 'index.d.ts', 'package.json', 'examples/crowd.mjs']) {
    assert.ok(existsSync(path.join(installed, f)), f)
  }
  writeFileSync(path.join(app, 'check.mjs'),
    "import { connect, EmoteSimError, ERROR_CODES } from 'emote-sim-client'\n" +
    "if (typeof connect !== 'function' || !ERROR_CODES.includes('cooldown') || !EmoteSimError) process.exit(1)\n" +
    "console.log('imported')\n")
  const r = await exec(process.execPath, ['check.mjs'], { cwd: app })
  assert.equal(r.stdout.trim(), 'imported')
})
