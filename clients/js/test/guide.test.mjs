// docs/guide/bots.md's JavaScript as a reader runs it: each program is read from the guide, only
// the server address is replaced, and it runs with node in a bot project where 'emote-sim-client'
// is this package (what the guide's install block makes with `npm install ../clients/js`). What
// it prints must be what the guide's comments say. Run: node --test test/ (CTest: client.js).

import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { connect, EmoteSimError } from '../index.js'
import { ROOT, Server } from './server.mjs'

const GUIDE = readFileSync(path.join(ROOT, 'docs', 'guide', 'bots.md'), 'utf8')
const ADDRESS = '127.0.0.1:25580' // the address the guide's programs connect to (scripts/serve)

/** The first ```lang block after the heading `## title` of the guide (its text). */
export function guideBlock (markdown, title, lang) {
  const at = markdown.indexOf(`\n## ${title}\n`)
  assert.ok(at >= 0, `the guide has no section "${title}"`)
  const m = new RegExp('\\n```' + lang + '\\n([\\s\\S]*?)\\n```\\n').exec(markdown.slice(at))
  assert.ok(m, `the section "${title}" has no ${lang} block`)
  return m[1]
}

// A bot project: node_modules/emote-sim-client is this package, as `npm install <folder>` links it.
const project = mkdtempSync(path.join(tmpdir(), 'emote-sim-guide-'))
mkdirSync(path.join(project, 'node_modules'))
symlinkSync(path.join(ROOT, 'clients', 'js'), path.join(project, 'node_modules', 'emote-sim-client'))

/** Runs `code` as project/NAME.mjs; resolves with {status, stdout, stderr} (killed after 60 s). */
function runBot (name, code) {
  const file = path.join(project, `${name}.mjs`)
  writeFileSync(file, code)
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [file], { cwd: project, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => { stdout += d })
    child.stderr.on('data', (d) => { stderr += d })
    const bound = setTimeout(() => child.kill('SIGKILL'), 60000)
    child.on('exit', (status) => { clearTimeout(bound); resolve({ status, stdout, stderr }) })
  })
}

after(() => rmSync(project, { recursive: true, force: true }))

const firstBot = guideBlock(GUIDE, 'A first bot', 'js')

for (const clock of ['realtime', 'manual']) {
  describe(`the guide's bots on a ${clock} server`, () => {
    let server
    before(async () => { server = await new Server({ clock }).start() })
    after(() => server.dispose())

    test('"A first bot" prints MOVED', async () => {
      assert.ok(firstBot.includes(`'${ADDRESS}'`), firstBot)
      const r = await runBot(`first-${clock}`, firstBot.replace(ADDRESS, server.tcp))
      assert.equal(r.status, 0, r.stderr)
      assert.equal(r.stdout, 'MOVED\n', r.stderr)
    })

    test('"Two-player emotes": bob, placed by facingPartner, joins as the partner', async () => {
      const block = guideBlock(GUIDE, 'Two-player emotes', 'js')
      const program = `import { connect } from 'emote-sim-client'\n` +
        `const sim = await connect('${server.tcp}')\n${block}\nawait sim.close()\n`
      const r = await runBot(`partner-${clock}`, program)
      assert.equal(r.status, 0, r.stderr)
      assert.equal(r.stdout, 'partner\n', r.stderr)
    })
  })
}

test('"Errors": the texts the guide quotes are those of a refused play', async () => {
  const flat = GUIDE.replace(/\s+/g, ' ')
  const text = /`err\.text` is the message for a person \(.*?e\.g\. "([^"]+)"\)/.exec(flat)?.[1]
  const detail = /`err\.detail` the one for a developer \(`([^`]+)`\)/.exec(flat)?.[1]
  const message = /the error's `message` is the code and the detail \(`unknown_emote: ([^`]+)…`\)/.exec(flat)?.[1]
  assert.ok(text && detail && message && detail.startsWith(message), 'the guide quotes err.text, err.detail and err.message')
  const emote = /emote "([^"]+)"/.exec(detail)[1]
  const player = /player "([^"]+)"/.exec(detail)[1]
  const server = await new Server({ clock: 'manual' }).start()
  try {
    const sim = await connect(server.tcp)
    const p = await sim.players.join(player, { position: [0.5, 64, 0.5] })
    const err = await p.play(emote).then(() => null, (e) => e)
    assert.ok(err instanceof EmoteSimError, String(err))
    assert.deepEqual([err.code, err.text, err.detail, err.message], ['unknown_emote', text, detail, `unknown_emote: ${detail}`])
    await sim.close()
  } finally {
    await server.dispose()
  }
})
