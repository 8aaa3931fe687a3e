#!/usr/bin/env node
// Versions as data (render/tables/README.md, "Adding a version"): tables generated from a copy of
// minecraft-data in which one version's display metadata moved must move what the renderer writes
// for that version, and only for it.
//
//  1. A minecraft-data folder whose 1.21.4 (protocol 769) entities.json has one more metadata key
//     before `translation` in item_display, block_display and text_display (as a release that adds
//     an entity field would have); every other file is the npm package's (symbolic links).
//  2. generate-tables.mjs --data <it> --namespace shifted --versions 769,775 into a scratch folder.
//  3. tests/render/shifted/probe.cpp compiled with those tables against the built render library
//     (the preset's own compile flags, from its compile_commands.json), run: one item display spawn
//     and one transform update, seen by a viewer on 769 and one on 775.
//  4. Every packet decoded with minecraft-protocol for its version (all bytes consumed): on 769 the
//     translation is at index 12 and everything from it on one later; on 775 at 11, as the
//     unshifted tables have it; the decoded values are the probe's.
//
// Usage: node test/shifted-index.mjs [path/to/emote-sim]   (its build folder has the libraries)
// Exits 0 on success, 1 on a mismatch, 2 on a setup failure.

import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createRequire } from 'node:module'
import { emoteSimBinary, repoRoot } from './lib/emote-sim.mjs'
import { PacketDecoder } from './lib/minecraft.mjs'

const require = createRequire(import.meta.url)
const buildDir = path.dirname(path.dirname(emoteSimBinary()))
const mcdData = path.join(path.dirname(require.resolve('minecraft-data/package.json')), 'minecraft-data', 'data')
const SHIFTED = 769
const SHIFTED_VERSION = '1.21.4'
const INSERTED = 'field_added_by_the_shifted_index_test'

function setupFail (message) {
  console.error(`shifted-index: ${message}`)
  process.exit(2)
}

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'emote-sim-shifted-'))
process.on('exit', () => fs.rmSync(work, { recursive: true, force: true }))

// 1. The data folder.
const data = path.join(work, 'data')
fs.mkdirSync(path.join(data, 'pc'), { recursive: true })
for (const entry of fs.readdirSync(path.join(mcdData, 'pc'))) {
  fs.symlinkSync(path.join(mcdData, 'pc', entry), path.join(data, 'pc', entry))
}
const dataPaths = JSON.parse(fs.readFileSync(path.join(mcdData, 'dataPaths.json'), 'utf8'))
const entitiesFolder = dataPaths.pc[SHIFTED_VERSION].entities
const entities = JSON.parse(fs.readFileSync(path.join(mcdData, entitiesFolder, 'entities.json'), 'utf8'))
let moved = 0
for (const e of entities) {
  if (['item_display', 'block_display', 'text_display'].includes(e.name)) {
    const at = e.metadataKeys.indexOf('translation')
    if (at !== 11) setupFail(`${SHIFTED_VERSION} ${e.name}: translation is at ${at} in minecraft-data, not 11`)
    e.metadataKeys.splice(at, 0, INSERTED)
    ++moved
  }
}
if (moved !== 3) setupFail(`${SHIFTED_VERSION}: found ${moved} display entities`)
fs.mkdirSync(path.join(data, 'pc', 'shifted'))
fs.writeFileSync(path.join(data, 'pc', 'shifted', 'entities.json'), JSON.stringify(entities))
dataPaths.pc[SHIFTED_VERSION].entities = 'pc/shifted'
fs.writeFileSync(path.join(data, 'dataPaths.json'), JSON.stringify(dataPaths))

// 2. The tables.
const gen = path.join(work, 'generated')
execFileSync(process.execPath, [path.join(repoRoot, 'minecraft', 'generate-tables.mjs'), '--data', data,
  '--out', gen, '--namespace', 'shifted', '--versions', `${SHIFTED},775`], { stdio: 'inherit' })

// 3. The probe, compiled with the preset's flags for render/renderer.cpp.
const commandsFile = path.join(buildDir, 'compile_commands.json')
if (!fs.existsSync(commandsFile)) setupFail(`${commandsFile} does not exist (build the preset first)`)
const command = JSON.parse(fs.readFileSync(commandsFile, 'utf8'))
  .find((c) => c.file.endsWith(path.join('render', 'renderer.cpp')))
if (!command) setupFail('compile_commands.json has no render/renderer.cpp')
// A shell command line: words split at spaces, \" is a quote inside a word (a -D value).
const words = command.command.split(/\s+/).map((w) => w.replaceAll('\\"', '"'))
const compiler = words[0]
const flags = []
for (let i = 1; i < words.length; ++i) {
  const w = words[i]
  if (w === '-o' || w === '-c' || w === '-MF' || w === '-MT') { ++i; continue }
  if (w === '-MD' || w.endsWith('renderer.cpp')) continue
  flags.push(w.startsWith('-I') && !path.isAbsolute(w.slice(2)) ? `-I${path.resolve(command.directory, w.slice(2))}` : w)
}
const libs = []
for (const dir of ['render', 'engine']) {
  for (const f of fs.readdirSync(path.join(buildDir, dir))) {
    if (/^lib.*\.a$/.test(f)) libs.push(path.join(buildDir, dir, f))
  }
}
libs.sort()
const objects = []
for (const source of [path.join(repoRoot, 'tests', 'render', 'shifted', 'probe.cpp'),
  ...fs.readdirSync(gen).filter((f) => f.endsWith('.cpp')).sort().map((f) => path.join(gen, f))]) {
  const object = path.join(work, path.basename(source) + '.o')
  // The tables are data: compiled without optimisation (the probe is not timed).
  const opt = source.startsWith(gen) ? ['-O0', '-g0'] : []
  execFileSync(compiler, [...flags, ...opt, `-I${gen}`, '-c', source, '-o', object], { stdio: 'inherit' })
  objects.push(object)
}
const probe = path.join(work, 'probe')
const linkFlags = flags.filter((f) => f.startsWith('-fsanitize') || f === '-pthread')
execFileSync(compiler, [...linkFlags, ...objects, '-Wl,--start-group', ...libs, '-Wl,--end-group',
  '-ldeflate', '-o', probe], { stdio: 'inherit' })
const lines = execFileSync(probe, { encoding: 'utf8' }).trim().split('\n')

// 4. Decode and compare.
const failures = []
const decoders = new Map()
const metadata = new Map() // protocol -> [entity_metadata params]
for (const line of lines) {
  const [protocol, viewer, hex] = line.split(' ')
  const p = Number(protocol)
  if (!decoders.has(p)) decoders.set(p, new PacketDecoder(p))
  let packet
  try {
    packet = decoders.get(p).decode(Buffer.from(hex, 'hex'))
  } catch (e) {
    failures.push(`${viewer}: ${e.message}`)
    continue
  }
  if (packet.name === 'entity_metadata') {
    if (!metadata.has(p)) metadata.set(p, [])
    metadata.get(p).push(packet.params.metadata)
  }
}
const expect = (what, actual, expected) => {
  if (JSON.stringify(actual) !== JSON.stringify(expected)) failures.push(`${what}: ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)}`)
}
for (const [p, shift] of [[SHIFTED, 1], [775, 0]]) {
  const [spawn, update] = metadata.get(p) ?? []
  if (!spawn || !update) {
    failures.push(`${p}: expected the spawn's and the update's entity_metadata, got ${metadata.get(p)?.length ?? 0}`)
    continue
  }
  // The spawn carries the non-default entries: translation (0,1,0), the item, the mode (head 5).
  expect(`${p} spawn keys`, spawn.map((e) => e.key), [11 + shift, 22 + 1 + shift, 23 + 1 + shift])
  expect(`${p} spawn translation`, spawn[0].value, { x: 0, y: 1, z: 0 })
  expect(`${p} spawn mode`, spawn[2].value, 5)
  // The update: interpolation start (8, before the insertion: unmoved), duration 9, translation.
  expect(`${p} update keys`, update.map((e) => e.key), [8, 9, 11 + shift])
  expect(`${p} update duration`, update[1].value, 3)
  expect(`${p} update translation`, update[2].value, { x: 0, y: 2, z: 0 })
}

if (failures.length > 0) {
  console.error(`shifted-index: ${failures.length} failures\n  ${failures.join('\n  ')}`)
  process.exit(1)
}
console.log(`shifted-index: ${lines.length} packets decoded; translation at ${11 + 1} on ${SHIFTED} (shifted data) and 11 on 775`)
