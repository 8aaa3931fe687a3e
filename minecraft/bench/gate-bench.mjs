#!/usr/bin/env node
// The gate's benchmark (docs/guide/performance.md, "The gate"; docs/spec/gate.md): N Minecraft
// clients (minecraft-protocol, protocol 775) walk through one `emote-sim serve --gate` in front of
// a backend that sends ordinary play traffic, against the same clients connected directly and
// through socat (a plain TCP forwarder), in the same run. It prints, per phase:
//   * the forwarder's CPU time per second of the measured window: emote-sim's threads' run time
//     (/proc/PID/task/*/schedstat), or socat's listener and its forked children (utime + stime
//     from /proc/PID/stat, which also counts the children already reaped);
//   * the latency of a timestamped packet the backend writes each tick to each client: the
//     backend puts CLOCK_MONOTONIC (process.hrtime) into an update_time's world age (or, with
//     --probe-packet keep_alive, a keep_alive's id) just before it writes, the client reads it when
//     minecraft-protocol has decoded the packet; percentiles per phase;
//     the gate's and socat's added latency are their percentiles minus the direct phase's;
//   * the gate's own forward delay (gate.md §8, emote_sim_gate_forward_delay_seconds from /metrics
//     over the window: from a backend read to the completed write of its bytes to the client),
//     p99 interpolated inside its bucket;
//   * the engine's tick (emote_sim_tick_duration_seconds from /metrics over the window: mean, and
//     p95 interpolated inside the histogram's bucket as Prometheus' histogram_quantile does) with
//     the gate's players, against the same players and emotes driven over the socket protocol.
// Phases, repeated `--rounds` times in this order: direct, socat, gate (forwarding only: the same
// bytes reach the clients as in direct and socat), gate+emotes and socket+emotes (one player per
// group plays a looping emote, so the renderer makes packets for the players who see it; the gate
// writes them into the players' connections, in the socket phase a `subscribe` with `packets`
// receives them as a proxy plugin would, while a controller mirrors the players' joins, positions
// and plays and the clients connect to the backend directly).
//
// The backend (a child process: its CPU is not on the clients' event loop) is minecraft-protocol's
// server with compression at 256 bytes. Players are in groups (--group, default 10) 1000 blocks
// apart; each tick every client gets one timestamped update_time, then entity_move_look and
// entity_head_rotation for each other member of its group that moved (the clients walk in
// circles, 0.2 blocks a tick, sending position_look 20 times a second), and `--chunks` map_chunk
// packets a second (12 KiB of chunk data, compressed) as a walking player's view brings in chunks.
// A keep_alive goes to each client every 15 s, as a vanilla server sends it.
//
// Usage: node bench/gate-bench.mjs [path/to/emote-sim] [--clients N] [--seconds S] [--rounds R]
//          [--group G] [--chunks C] [--pin] [--priority] [--sweep] [--probe-packet update_time|keep_alive]
//          [--json FILE] [--smoke]
// --probe-packet: the timestamped packet of each tick (default update_time, which a client does
// not answer). keep_alive is how runs before V measured: every client answers each one, 2,000
// packets a second to the backend that ordinary traffic does not have (a vanilla server sends a
// keep_alive every 15 s), all in the burst of the backend's tick.
// --sweep: the backend ticks every 50 ms × (1 + 1/(20 × S)) instead of every 50 ms, so over each
// S-second window its tick slides once through every phase of emote-sim's tick: a real backend's
// clock is not emote-sim's, and where a burst falls against the gate's tick moves what it waits.
// Without it the phase is whatever the two processes' start gave, the same for a whole run.
// --pin: the forwarders (emote-sim, socat and its children) on the last CPU, the benchmark's own
// processes (this one, the backend, the probe clients) on the others (taskset), so that a
// forwarder's latency and the engine's tick are not its share of cores the load generator fills:
// the sidecar with a core of its own that a pod's CPU request gives it. Needs 2 CPUs or more.
// --priority: the forwarders run SCHED_FIFO 1 (chrt; root or CAP_SYS_NICE), so that the machine's
// other tasks (on a shared VM: its agent, kernel threads) do not hold them off their CPU for
// milliseconds: with --pin, the core reserved for the sidecar that Kubernetes' static CPU manager
// gives a Guaranteed pod.
// --smoke: 3 clients, 1 s windows, one round, and a check that every phase delivered traffic
// (scripts/test-minecraft runs it so the benchmark keeps working); the figures mean nothing then.
// The socat binary must be on PATH (scripts/setup installs it).

import { createRequire } from 'node:module'
import { execFileSync, fork, spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import zlib from 'node:zlib'
import { fileURLToPath } from 'node:url'
import { EmoteSimConnection, emoteSimBinary, fixtureEmotes, startServer, stopChild, withTimeout } from '../test/lib/emote-sim.mjs'

const require = createRequire(import.meta.url)
const mc = require('minecraft-protocol')
const minecraftData = require('minecraft-data')
const { createSerializer } = require('minecraft-protocol/src/transforms/serializer')

const VERSION = '26.1'
const PROTOCOL = 775
const THRESHOLD = 256 // minecraft-protocol's server default
const EMOTE = 'mc:showcase' // a looping emote that movement does not stop (tests/data/minecraft/emotes)
const TICK_MS = 50

function options (argv) {
  const o = { clients: 100, seconds: 20, rounds: 2, group: 10, chunks: 5, json: null, smoke: false, pin: false, priority: false, sweep: false, probePacket: 'update_time', bin: null }
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    const value = () => {
      const v = argv[++i]
      if (v === undefined) throw new Error(`${a} needs a value`)
      return v
    }
    const count = (min, max) => {
      const v = Number(value())
      if (!Number.isInteger(v) || v < min || v > max) throw new Error(`${a}: an integer ${min}..${max}`)
      return v
    }
    if (a === '--clients') o.clients = count(1, 1000)
    else if (a === '--seconds') o.seconds = count(1, 3600)
    else if (a === '--rounds') o.rounds = count(1, 100)
    else if (a === '--group') o.group = count(1, 1000)
    else if (a === '--chunks') o.chunks = count(0, 100)
    else if (a === '--json') o.json = value()
    else if (a === '--smoke') o.smoke = true
    else if (a === '--pin') o.pin = true
    else if (a === '--sweep') o.sweep = true
    else if (a === '--priority') o.priority = true
    else if (a === '--probe-packet') {
      o.probePacket = value()
      if (!['update_time', 'keep_alive'].includes(o.probePacket)) throw new Error(`--probe-packet: update_time or keep_alive, not ${o.probePacket}`)
    }
    else if (a === '--backend') o.backend = true
    else if (a === '--probe') o.probe = true
    else if (a.startsWith('-')) throw new Error(`unknown option ${a}`)
    else o.bin = a
  }
  if (o.smoke) Object.assign(o, { clients: 3, seconds: 1, rounds: 1, group: 3 })
  return o
}

// ---------------------------------------------------------------------------------------------
// Frames as minecraft-protocol's compressor and framer write them (threshold 256).

function varint (n) {
  const bytes = []
  do {
    let b = n & 0x7f
    n >>>= 7
    if (n !== 0) b |= 0x80
    bytes.push(b)
  } while (n !== 0)
  return Buffer.from(bytes)
}

function frame (packet) {
  if (packet.length >= THRESHOLD) {
    const body = Buffer.concat([varint(packet.length), zlib.deflateSync(packet)])
    return Buffer.concat([varint(body.length), body])
  }
  return Buffer.concat([varint(packet.length + 1), Buffer.from([0]), packet])
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

// ---------------------------------------------------------------------------------------------
// The backend (runs in a child process: `--backend`).

function groupCenter (group) {
  return [group * 1000 + 8.5, 64, 8.5]
}

function playerIndex (username) {
  return Number(/(\d+)$/.exec(username)[1])
}

async function runBackend (o) {
  const serializer = createSerializer({ state: mc.states.PLAY, isServer: true, version: VERSION })
  const packet = (name, params) => serializer.createPacketBuffer({ name, params })
  const login = minecraftData(VERSION).loginPacket
  // Chunk data: 12 KiB of palette indices from a small alphabet (compresses about as real chunk
  // sections do), a few chunks made once and reused.
  let seed = 12345
  const random = () => { seed = (seed * 1103515245 + 12345) & 0x7fffffff; return seed }
  const chunkFrames = []
  for (let c = 0; c < 8; c++) {
    const data = Buffer.alloc(12288)
    for (let i = 0; i < data.length; i++) data[i] = (random() >> 8) % 5 === 0 ? random() & 0xff : 0x11 * (c + 1)
    chunkFrames.push(frame(packet('map_chunk', {
      x: c, z: 0, heightmaps: [], chunkData: data, blockEntities: [], skyLightMask: [], blockLightMask: [],
      emptySkyLightMask: [], emptyBlockLightMask: [], skyLight: [], blockLight: []
    })))
  }
  // The probe (PROBES): the backend's clock in a keep_alive's id, or in an update_time's world age
  // followed by an empty clock list; the timestamp is the first 8 bytes of the payload.
  const keepAlive = frame(packet('keep_alive', { keepAliveId: 0n }))
  const probeFrame = o.probePacket === 'keep_alive' ? keepAlive : frame(packet('update_time', { age: 0n, clockUpdates: [] }))
  const probeStampAt = probeFrame.length - PROBES[o.probePacket].size
  const server = mc.createServer({ host: '127.0.0.1', port: 0, version: VERSION, 'online-mode': false, keepAlive: false, hideErrors: true, maxPlayers: 10000 })
  const players = new Map() // client -> {index, group, entityId, pos, yaw, sent: [pos, yaw], live}
  const stats = { bytes: 0, writes: 0, frames: 0, skipped: 0 }
  server.on('playerJoin', (client) => {
    const index = playerIndex(client.username)
    const group = Math.floor(index / o.group)
    const [cx, cy, cz] = groupCenter(group)
    const slot = index % o.group
    const angle = (2 * Math.PI * slot) / o.group
    const pos = [cx + 6 * Math.cos(angle), cy, cz + 6 * Math.sin(angle)]
    const p = { index, group, entityId: index + 1, pos, yaw: 0, sent: null, live: false, chunkAt: 0, keepAliveAt: 0 }
    players.set(client, p)
    client.write('login', { ...login, entityId: p.entityId, enforcesSecureChat: false })
    const flags = { unused: 0, has_custom_suggestions: 0, has_redirect_node: 0, has_command: 0, command_node_type: 0, allows_restricted: 0 }
    client.write('declare_commands', { nodes: [{ flags, children: [] }], rootIndex: 0 })
    client.write('position', { teleportId: 1, x: pos[0], y: pos[1], z: pos[2], dx: 0, dy: 0, dz: 0, yaw: 0, pitch: 0, flags: {} })
    const moved = (m) => { p.pos = [m.x, m.y, m.z]; if (m.yaw !== undefined) p.yaw = m.yaw }
    client.on('position', moved)
    client.on('position_look', moved)
    client.on('end', () => players.delete(client))
    client.on('error', () => {})
    // What minecraft-protocol writes itself has left its streams by then; after this only whole
    // frames of ours go to the socket.
    setTimeout(() => { p.live = true; p.chunkAt = Date.now() + (index * 97) % 1000; p.keepAliveAt = Date.now() + 15000 }, 300)
  })
  const angleByte = (deg) => Math.floor((deg * 256) / 360) << 24 >> 24
  const tick = () => {
    const now = Date.now()
    const byGroup = new Map()
    for (const [client, p] of players) {
      if (!p.live) continue
      let g = byGroup.get(p.group)
      if (!g) byGroup.set(p.group, (g = []))
      g.push([client, p])
    }
    for (const members of byGroup.values()) {
      // Each member's movement this tick, framed once for the whole group.
      const moves = members.map(([, p]) => {
        const last = p.sent || p.pos
        const d = p.pos.map((v, i) => Math.round((v - last[i]) * 4096))
        p.sent = p.pos
        if (d.every((v) => v === 0)) return null
        const clamp = (v) => Math.max(-32768, Math.min(32767, v))
        return Buffer.concat([
          frame(packet('entity_move_look', { entityId: p.entityId, dX: clamp(d[0]), dY: clamp(d[1]), dZ: clamp(d[2]), yaw: angleByte(p.yaw), pitch: 0, onGround: true })),
          frame(packet('entity_head_rotation', { entityId: p.entityId, headYaw: angleByte(p.yaw) }))
        ])
      })
      for (let i = 0; i < members.length; i++) {
        const [client, p] = members[i]
        const socket = client.socket
        if (socket.destroyed) continue
        if (socket.writableLength > 4 * 1024 * 1024) { stats.skipped++; continue } // a client behind
        const parts = [Buffer.from(probeFrame)]
        let frames = 1
        if (o.probePacket !== 'keep_alive' && now >= p.keepAliveAt) {
          parts.push(keepAlive) // a vanilla server's keep_alive, every 15 s (its id 0)
          frames++
          p.keepAliveAt += 15000
        }
        for (let j = 0; j < members.length; j++) {
          if (j !== i && moves[j]) { parts.push(moves[j]); frames += 2 }
        }
        if (o.chunks > 0 && now >= p.chunkAt) {
          parts.push(chunkFrames[p.index % chunkFrames.length])
          frames++
          p.chunkAt += 1000 / o.chunks
          if (p.chunkAt < now) p.chunkAt = now + 1000 / o.chunks
        }
        const buf = Buffer.concat(parts)
        buf.writeBigInt64BE(process.hrtime.bigint(), probeStampAt)
        socket.write(buf)
        stats.bytes += buf.length
        stats.writes++
        stats.frames += frames
      }
    }
  }
  // Ticks on absolute deadlines: every 50 ms, or (--sweep) a little more, so that the phase
  // against emote-sim's tick moves by one tick per measured window.
  const period = o.sweep ? TICK_MS * (1 + 1 / (20 * o.seconds)) : TICK_MS
  let due = performance.now() + period
  const loop = () => {
    tick()
    due += period
    const now = performance.now()
    if (due < now) due = now
    setTimeout(loop, due - now)
  }
  server.once('listening', () => {
    process.send({ op: 'listening', port: server.socketServer.address().port })
    setTimeout(loop, period)
  })
  process.on('message', (m) => {
    if (m.op === 'stats') process.send({ op: 'stats', players: players.size, names: [...players.keys()].slice(0, 5).map((c) => `${c.username}:${c.socket.readyState}`), live: [...players.values()].filter((p) => p.live).length, ...stats })
  })
  process.on('disconnect', () => process.exit(0))
}

// ---------------------------------------------------------------------------------------------
// Processes and their CPU.

const CLK_TCK = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' })) // /proc's time unit

function procStat (pid) {
  try {
    const text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
    const f = text.slice(text.lastIndexOf(')') + 2).split(' ') // fields from 3 (state) on
    return { ppid: Number(f[1]), utime: Number(f[11]), stime: Number(f[12]), cutime: Number(f[13]), cstime: Number(f[14]) }
  } catch {
    return null
  }
}

// CPU seconds of a process and its live children (socat forks one child per connection) plus what
// its reaped children used (cutime, cstime).
function treeCpu (pid) {
  const self = procStat(pid)
  if (!self) return NaN
  let ticks = self.utime + self.stime + self.cutime + self.cstime
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    const s = procStat(entry)
    if (s && s.ppid === pid) ticks += s.utime + s.stime + s.cutime + s.cstime
  }
  return ticks / CLK_TCK
}

// CPU seconds of one live process: the sum over its threads of the scheduler's run time
// (/proc/PID/task/TID/schedstat, nanoseconds), so a short window with a few milliseconds of work
// is not rounded to a whole clock tick; /proc/PID/stat's ticks where schedstat is not there.
function processCpu (pid) {
  try {
    let ns = 0
    for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
      ns += Number(fs.readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0])
    }
    if (Number.isFinite(ns)) return ns / 1e9
  } catch {}
  const s = procStat(pid)
  return s ? (s.utime + s.stime) / CLK_TCK : NaN
}

// Per CPU, the time the hypervisor ran something else while this CPU had work (/proc/stat's
// steal column), in seconds: a virtual CPU that is not running holds every packet queued on it.
function stealByCpu () {
  const out = {}
  for (const line of fs.readFileSync('/proc/stat', 'utf8').split('\n')) {
    const m = /^cpu(\d+) (.*)$/.exec(line)
    if (m) out[m[1]] = Number(m[2].trim().split(/\s+/)[7] ?? 0) / CLK_TCK
  }
  return out
}

function selfCpu () {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1e6
}

// The TCP port process `pid` listens on (socat is told port 0; the kernel picks it).
function listeningPort (pid) {
  const inodes = new Set()
  for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`))
      if (m) inodes.add(m[1])
    } catch {}
  }
  for (const line of fs.readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
    const f = line.trim().split(/\s+/)
    if (f.length > 9 && f[3] === '0A' && inodes.has(f[9])) return parseInt(f[1].split(':')[1], 16)
  }
  return null
}

async function startSocat (backendPort) {
  const child = spawn('socat', [`TCP4-LISTEN:0,bind=127.0.0.1,fork,reuseaddr,nodelay`, `TCP4:127.0.0.1:${backendPort},nodelay`],
    { stdio: ['ignore', 'ignore', 'pipe'] })
  let err = ''
  child.stderr.on('data', (d) => { err += d })
  const started = Date.now()
  for (;;) {
    if (child.exitCode !== null) throw new Error(`socat exited (${child.exitCode}): ${err}`)
    const port = fs.existsSync(`/proc/${child.pid}/fd`) ? listeningPort(child.pid) : null
    if (port) return { child, port }
    if (Date.now() - started > 5000) throw new Error('socat did not listen within 5 s')
    await sleep(50)
  }
}

async function startBackendProcess (o) {
  const child = fork(fileURLToPath(import.meta.url), ['--backend', '--group', String(o.group), '--chunks', String(o.chunks),
    '--seconds', String(o.seconds), '--probe-packet', o.probePacket, ...(o.sweep ? ['--sweep'] : [])],
    { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  const port = await withTimeout(new Promise((resolve, reject) => {
    child.once('message', (m) => resolve(m.port))
    child.once('exit', (code) => reject(new Error(`the backend exited (${code})`)))
  }), 10000, 'the backend to listen')
  const stats = () => withTimeout(new Promise((resolve) => {
    const on = (m) => { if (m.op === 'stats') { child.off('message', on); resolve(m) } }
    child.on('message', on)
    child.send({ op: 'stats' })
  }), 5000, 'the backend\'s stats')
  return { child, port, stats }
}

// ---------------------------------------------------------------------------------------------
// /metrics: the tick histogram.

// The engine's tick histogram and the gate's forward delay histogram (gate.md §8), from one read
// of /metrics.
async function histograms (metricsPort) {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text()
  const read = (name, labels) => {
    const buckets = []
    let sum = 0
    let count = 0
    const bucket = new RegExp(`^${name}_bucket\\{${labels ? `${labels},` : ''}le="([^"]+)"\\} (\\d+)`)
    const total = (what) => new RegExp(`^${name}_${what}${labels ? `\\{${labels}\\}` : ''} (\\S+)`)
    for (const line of text.split('\n')) {
      let m = bucket.exec(line)
      if (m) buckets.push([m[1] === '+Inf' ? Infinity : Number(m[1]), Number(m[2])])
      m = total('sum').exec(line)
      if (m) sum = Number(m[1])
      m = total('count').exec(line)
      if (m) count = Number(m[1])
    }
    return { buckets, sum, count }
  }
  return { tick: read('emote_sim_tick_duration_seconds', ''), forward: read('emote_sim_gate_forward_delay_seconds', 'gate="bench"') }
}

// The engine's load and the gate's traffic (gauges and counters of /metrics).
async function gauges (metricsPort) {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text()
  const value = (name) => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)`, 'm').exec(text)?.[1] ?? NaN)
  return {
    players: value('emote_sim_players'),
    sessions: value('emote_sim_sessions'),
    displays: value('emote_sim_displays'),
    gate_to_client: value('emote_sim_gate_bytes_to_client_total'),
    gate_to_backend: value('emote_sim_gate_bytes_to_backend_total')
  }
}

// A histogram's window (b minus a): count, mean and the q quantile interpolated linearly inside
// its bucket, as Prometheus' histogram_quantile does. `key` names the quantile's members.
function histogramWindow (a, b, q, key) {
  const count = b.count - a.count
  const buckets = b.buckets.map(([le, n], i) => [le, n - (a.buckets[i]?.[1] ?? 0)])
  const out = { count, mean_ms: count ? ((b.sum - a.sum) / count) * 1000 : NaN, [`${key}_ms`]: NaN, [`${key}_bucket`]: null }
  const rank = q * count
  let lower = 0
  let below = 0
  for (const [le, n] of buckets) {
    if (n >= rank && count > 0) {
      if (le === Infinity) { out[`${key}_ms`] = lower * 1000; out[`${key}_bucket`] = `>${lower * 1000}`; break }
      out[`${key}_ms`] = (lower + ((le - lower) * (rank - below)) / Math.max(1, n - below)) * 1000
      out[`${key}_bucket`] = `${lower * 1000}..${le * 1000}`
      break
    }
    lower = le
    below = n
  }
  return out
}

// The window's ticks: count, mean and the p95.
function tickWindow (a, b) {
  const { count, ...rest } = histogramWindow(a, b, 0.95, 'p95')
  return { ticks: count, ...rest }
}

// ---------------------------------------------------------------------------------------------
// The clients (this process).

function percentile (sorted, q) {
  if (sorted.length === 0) return NaN
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]
}

// Reads a client connection's bytes as they arrive, before minecraft-protocol's streams: frames
// split by their VarInt length, compression from the login's `compress` on; every uncompressed
// probe packet (its PROBES entry: the id and the payload's size) carries the backend's clock. Only
// the arrival time counts, so the probe measures the network path (and the forwarder) without the
// decoding queue of the process.
class ProbeReader {
  constructor (probe, onProbe) {
    this.probe = probe
    this.onProbe = onProbe
    this.buffer = Buffer.alloc(0)
    this.compressed = false
  }

  static varint (buf, at) {
    let value = 0
    for (let i = 0; i < 3; i++) {
      if (at + i >= buf.length) return null
      const b = buf[at + i]
      value |= (b & 0x7f) << (7 * i)
      if ((b & 0x80) === 0) return [value, i + 1]
    }
    return [-1, 3]
  }

  feed (chunk, now) {
    this.buffer = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : chunk
    let at = 0
    for (;;) {
      const len = ProbeReader.varint(this.buffer, at)
      if (!len || at + len[1] + len[0] > this.buffer.length) break
      const body = this.buffer.subarray(at + len[1], at + len[1] + len[0])
      at += len[1] + len[0]
      if (!this.compressed) {
        if (body[0] === 0x03) this.compressed = true // login compress (before it, only login packets)
        continue
      }
      const dataLength = ProbeReader.varint(body, 0)
      if (!dataLength || dataLength[0] !== 0) continue
      const id = ProbeReader.varint(body, dataLength[1])
      if (id && id[0] === this.probe.id && body.length === dataLength[1] + id[1] + this.probe.size) {
        this.onProbe(now - body.readBigInt64BE(dataLength[1] + id[1]))
      }
    }
    this.buffer = this.buffer.subarray(at)
  }
}

const playId = (name) => Number(Object.entries(minecraftData(VERSION).protocol.play.toClient.types.packet[1][0].type[1].mappings)
  .find(([, n]) => n === name)[0])
// The probe packets: the id, the payload's size (the timestamp is its first 8 bytes) and the field
// minecraft-protocol decodes it into.
const PROBES = {
  update_time: { id: playId('update_time'), size: 9, field: 'age' },
  keep_alive: { id: playId('keep_alive'), size: 8, field: 'keepAliveId' }
}

class Clients {
  constructor (o, indices) {
    this.o = o
    this.indices = indices
    this.list = []
    this.socketSamples = null // the same probes' latency at the socket, in ms (ProbeReader)
    this.samples = null // latency in ms, while measuring
    this.received = 0
    this.walker = setInterval(() => this.#walk(), TICK_MS)
    this.mirror = null // a socket controller copying the players' state (socket phase)
    this.errors = [] // the mirror's refused requests
    this.plugin = null // the socket phase's packets subscriber
    this.pluginPackets = 0 // packets it got, times their recipients
  }

  async connect (port) {
    const { o } = this
    for (const i of this.indices) {
      const username = `b${String(i).padStart(3, '0')}`
      const client = mc.createClient({ host: '127.0.0.1', port, username, version: VERSION, auth: 'offline', hideErrors: true })
      const probe = PROBES[o.probePacket]
      const reader = new ProbeReader(probe, (ns) => { if (this.socketSamples) this.socketSamples.push(Number(ns) / 1e6) })
      client.once('connect', () => client.socket.prependListener('data', (chunk) => reader.feed(chunk, process.hrtime.bigint())))
      const c = { client, username, index: i, pos: null, angle: (2 * Math.PI * (i % o.group)) / o.group, entityId: null, ended: false }
      client.on('login', (p) => { c.entityId = p.entityId })
      client.on('position', (p) => {
        if (!c.pos) {
          c.pos = [p.x, p.y, p.z]
          if (this.mirror) this.#mirrorJoin(c)
        }
        client.write('teleport_confirm', { teleportId: p.teleportId })
      })
      client.on(o.probePacket, (p) => {
        this.received++
        if (this.samples) this.samples.push(Number(process.hrtime.bigint() - p[probe.field].valueOf()) / 1e6)
      })
      client.on('end', () => { c.ended = true })
      client.on('error', () => {})
      this.list.push(c)
      if (this.list.length % 10 === 0) await sleep(100) // a login burst, not a flood
    }
    await withTimeout((async () => {
      while (this.list.some((c) => !c.pos)) {
        if (this.list.some((c) => c.ended)) throw new Error('a client was disconnected while joining')
        await sleep(50)
      }
    })(), 30000 + 200 * o.clients, 'the clients to be placed by the backend')
  }

  #walk () {
    for (const c of this.list) {
      if (!c.pos || c.ended) continue
      const center = groupCenter(Math.floor(c.index / this.o.group))
      c.angle += 0.2 / 6 // 0.2 blocks a tick on a circle of radius 6
      const x = center[0] + 6 * Math.cos(c.angle)
      const z = center[2] + 6 * Math.sin(c.angle)
      const yaw = ((Math.atan2(-(x - c.pos[0]), z - c.pos[2]) * 180) / Math.PI + 360) % 360
      c.pos = [x, center[1], z]
      c.client.write('position_look', { x, y: center[1], z, yaw, pitch: 0, flags: { onGround: true } })
      if (this.mirror) this.mirror.send({ op: 'player.update', player: c.client.uuid, position: c.pos, yaw })
    }
  }

  #mirrorJoin (c) {
    this.mirror.send({
      op: 'player.join', player: c.client.uuid, uuid: c.client.uuid, name: c.username, position: c.pos, yaw: 0, pitch: 0,
      protocol: PROTOCOL, entity_id: c.entityId, view_distance: 10, dimension: 'minecraft:overworld', game_mode: 'survival'
    })
  }

  // One player per group plays the looping emote: by its `/emote` command, or over the socket.
  playEmotes () {
    for (const c of this.list) {
      if (c.index % this.o.group !== 0) continue
      if (this.mirror) this.mirror.send({ op: 'emote.play', player: c.client.uuid, emote: EMOTE })
      else c.client.write('chat_command', { command: `emote ${EMOTE}` })
    }
  }

  disconnect () {
    for (const c of this.list) {
      c.client.end()
      setTimeout(() => c.client.socket?.destroy(), 200) // the end of a client whose streams still hold bytes
    }
    if (this.mirror) for (const c of this.list) this.mirror.send({ op: 'player.leave', player: c.client.uuid })
    this.list = []
  }
}

// ---------------------------------------------------------------------------------------------

// The probe clients: the last few of the N, in a process of their own, so that what they measure
// is the path through the forwarder, not the queue of a busy event loop holding the other clients.
function probeIndices (o) {
  const count = Math.max(1, Math.min(5, Math.floor(o.clients / 20)))
  return [...Array(count).keys()].map((k) => o.clients - count + k)
}

async function runProbe (o) {
  const clients = new Clients(o, probeIndices(o))
  process.on('message', async (m) => {
    try {
      if (m.op === 'connect') {
        if (m.mirrorPort) {
          clients.mirror = await EmoteSimConnection.connect(m.mirrorPort, { role: 'controller', client: 'gate-bench-probe' })
          clients.mirror.on('error', (e) => clients.errors.push(e.message))
        }
        await clients.connect(m.port)
        process.send({ op: 'connected' })
      } else if (m.op === 'start') {
        clients.samples = []
        clients.socketSamples = []
        process.send({ op: 'started' })
      } else if (m.op === 'stop') {
        process.send({ op: 'stopped', samples: clients.samples, socketSamples: clients.socketSamples, errors: clients.errors.length })
        clients.samples = null
        clients.socketSamples = null
      } else if (m.op === 'disconnect') {
        clients.disconnect()
        if (clients.mirror) { await clients.mirror.close(); clients.mirror = null }
        clients.errors = []
        process.send({ op: 'disconnected' })
      }
    } catch (e) {
      process.send({ op: 'failed', message: e.stack || e.message })
    }
  })
  process.on('disconnect', () => process.exit(0))
}

function startProbeProcess (o) {
  const child = fork(fileURLToPath(import.meta.url), ['--probe', '--clients', String(o.clients), '--group', String(o.group), '--probe-packet', o.probePacket],
    { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  const ask = (message, answer, ms = 60000) => withTimeout(new Promise((resolve, reject) => {
    const on = (m) => {
      if (m.op === answer) { child.off('message', on); resolve(m) } else if (m.op === 'failed') { child.off('message', on); reject(new Error(`probe: ${m.message}`)) }
    }
    child.on('message', on)
    child.send(message)
  }), ms, `the probe clients' ${answer}`)
  return { child, ask }
}

async function waitUntil (test, ms, what) {
  const started = Date.now()
  while (!(await test())) {
    if (Date.now() - started > ms) throw new Error(`timed out after ${ms} ms waiting for ${what}`)
    await sleep(100)
  }
}

async function main () {
  const o = options(process.argv.slice(2))
  if (o.backend) return runBackend(o)
  if (o.probe) return runProbe(o)
  const bin = o.bin || emoteSimBinary([])
  const log = (m) => console.log(`gate-bench: ${m}`)
  const cleanups = []
  const result = { clients: o.clients, seconds: o.seconds, rounds: o.rounds, group: o.group, chunks_per_second: o.chunks, sweep: o.sweep, probe_packet: o.probePacket, phases: [] }
  try {
    const backend = await startBackendProcess(o)
    cleanups.push(() => backend.child.kill())
    const socat = await startSocat(backend.port)
    cleanups.push(() => socat.child.kill())
    const sim = await startServer({
      bin,
      emotes: fixtureEmotes,
      clock: 'realtime',
      gates: 1,
      args: ['--gate', `bench=127.0.0.1:0=127.0.0.1:${backend.port}`, '--metrics', '127.0.0.1:0']
    })
    cleanups.push(() => sim.stop())
    // The metrics line may follow the lines startServer waits for.
    const metricsLine = () => /metrics at http:\/\/127\.0\.0\.1:(\d+)/.exec(sim.output())
    await waitUntil(async () => metricsLine(), 5000, `the metrics address in emote-sim's log:\n${sim.output()}`)
    const metricsPort = Number(metricsLine()[1])
    const simPid = sim.process.pid
    log(`backend :${backend.port} (pid ${backend.child.pid}), socat :${socat.port} (pid ${socat.child.pid}), ` +
      `gate :${sim.gatePorts[0]} (emote-sim pid ${simPid}), ${o.clients} clients in groups of ${o.group}`)
    const probes = probeIndices(o)
    const clients = new Clients(o, [...Array(o.clients).keys()].filter((i) => !probes.includes(i)))
    cleanups.push(() => clearInterval(clients.walker))
    const probe = startProbeProcess(o)
    cleanups.push(() => probe.child.kill())
    if (o.pin) {
      const cpus = os.cpus().length
      if (cpus < 2) throw new Error('--pin needs 2 CPUs or more')
      const last = String(cpus - 1)
      const rest = cpus === 2 ? '0' : `0-${cpus - 2}`
      const pin = (cpu, pid) => execFileSync('taskset', ['-a', '-p', '-c', cpu, String(pid)], { stdio: 'ignore' })
      for (const pid of [simPid, socat.child.pid]) pin(last, pid)
      for (const pid of [process.pid, backend.child.pid, probe.child.pid]) pin(rest, pid)
      result.pinned = { forwarders: last, benchmark: rest }
      log(`pinned: emote-sim and socat on CPU ${last}, the benchmark's processes on CPU ${rest}`)
    }
    if (o.priority) {
      // SCHED_FIFO 1 for every thread of the forwarders (socat's children inherit it when they
      // fork): the machine's other tasks wait for them on their CPU, not the other way round.
      for (const pid of [simPid, socat.child.pid]) {
        try {
          execFileSync('chrt', ['-a', '-f', '-p', '1', String(pid)], { stdio: ['ignore', 'ignore', 'pipe'] })
        } catch (e) {
          throw new Error(`--priority: chrt -f 1 on pid ${pid} failed (it needs root or CAP_SYS_NICE): ${String(e.stderr || e.message).trim()}`)
        }
      }
      result.priority = 'SCHED_FIFO 1'
      log('priority: emote-sim and socat run SCHED_FIFO 1')
    }
    const phases = ['direct', 'socat', 'gate', 'gate+emotes', 'socket+emotes']
    const gateConnections = async () => {
      const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text()
      return Number(/^emote_sim_gate_connections\{gate="bench"\} (\d+)/m.exec(text)?.[1] ?? NaN)
    }
    for (let round = 1; round <= o.rounds; round++) {
      for (const phase of phases) {
        const port = phase.startsWith('gate') ? sim.gatePorts[0] : phase === 'socat' ? socat.port : backend.port
        if (phase.startsWith('socket')) {
          clients.mirror = await EmoteSimConnection.connect(sim.port, { role: 'controller', client: 'gate-bench' })
          clients.errors = []
          clients.mirror.on('error', (e) => clients.errors.push(e.message))
          // Where the renderer's packets go without a gate: a plugin's packets subscription.
          clients.plugin = await EmoteSimConnection.connect(sim.port, { role: 'observer', client: 'gate-bench-plugin' })
          clients.plugin.on('error', (e) => clients.errors.push(e.message))
          clients.plugin.on('frame', (f) => { for (const pk of f.packets || []) clients.pluginPackets += pk.to.length })
          await clients.plugin.request('subscribe', { packets: true, events: [] })
        }
        const t0 = performance.now()
        await Promise.all([clients.connect(port),
          probe.ask({ op: 'connect', port, mirrorPort: phase.startsWith('socket') ? sim.port : null }, 'connected', 60000 + 200 * o.clients)])
        const t1 = performance.now()
        await waitUntil(async () => (await backend.stats()).live >= o.clients, 15000, 'the backend to send to every client')
        const t2 = performance.now()
        if (phase.endsWith('emotes')) clients.playEmotes()
        await sleep(o.smoke ? 500 : 3000) // warm-up: emotes spawned, buffers grown
        const before = {
          sim: processCpu(simPid), socat: treeCpu(socat.child.pid), backend: processCpu(backend.child.pid),
          clients: selfCpu(), metrics: await histograms(metricsPort), stats: await backend.stats(), load: os.loadavg()[0], steal: stealByCpu(),
          gauges: await gauges(metricsPort), at: performance.now()
        }
        clients.samples = []
        await probe.ask({ op: 'start' }, 'started')
        const received0 = clients.received
        const pluginPackets0 = clients.pluginPackets
        await sleep(o.seconds * 1000)
        const probed = await probe.ask({ op: 'stop' }, 'stopped')
        const samples = clients.samples.concat(probed.samples)
        clients.samples = null
        const socketSamples = probed.socketSamples.sort((a, b) => a - b)
        const after = {
          sim: processCpu(simPid), socat: treeCpu(socat.child.pid), backend: processCpu(backend.child.pid),
          clients: selfCpu(), metrics: await histograms(metricsPort), stats: await backend.stats(), load: os.loadavg()[0], steal: stealByCpu(),
          gauges: await gauges(metricsPort), at: performance.now()
        }
        const wall = (after.at - before.at) / 1000
        samples.sort((a, b) => a - b)
        const r = {
          round,
          phase,
          wall_s: Number(wall.toFixed(2)),
          cpu_ms_per_s: {
            emote_sim: (after.sim - before.sim) / wall * 1000,
            socat: (after.socat - before.socat) / wall * 1000,
            backend: (after.backend - before.backend) / wall * 1000,
            clients: (after.clients - before.clients) / wall * 1000
          },
          latency_ms: { samples: samples.length, p50: percentile(samples, 0.5), p90: percentile(samples, 0.9), p99: percentile(samples, 0.99), max: samples.at(-1) ?? NaN },
          probe_latency_ms: {
            samples: socketSamples.length, p50: percentile(socketSamples, 0.5), p90: percentile(socketSamples, 0.9),
            p99: percentile(socketSamples, 0.99), max: socketSamples.at(-1) ?? NaN
          },
          backend: { writes: after.stats.writes - before.stats.writes, frames: after.stats.frames - before.stats.frames, mbytes: (after.stats.bytes - before.stats.bytes) / 1e6, skipped: after.stats.skipped - before.stats.skipped },
          tick: tickWindow(before.metrics.tick, after.metrics.tick),
          // gate.md §8: from a backend read to the completed write of its bytes to the client.
          forward_delay: histogramWindow(before.metrics.forward, after.metrics.forward, 0.99, 'p99'),
          engine: { players: before.gauges.players, sessions: before.gauges.sessions, displays: before.gauges.displays },
          gate_mbytes: {
            to_client: (after.gauges.gate_to_client - before.gauges.gate_to_client) / 1e6,
            to_backend: (after.gauges.gate_to_backend - before.gauges.gate_to_backend) / 1e6
          },
          socket_errors: clients.errors.length + probed.errors,
          plugin_packets: clients.pluginPackets - pluginPackets0,
          load1: [before.load, after.load],
          // ms of hypervisor steal per CPU over the window (the forwarders' CPU under --pin: result.pinned)
          steal_ms: Object.fromEntries(Object.keys(after.steal).map((c) => [c, Math.round((after.steal[c] - before.steal[c]) * 1000)])),
          probes_received: clients.received - received0
        }
        result.phases.push(r)
        const c = r.cpu_ms_per_s
        const l = r.latency_ms
        log(`round ${round} ${phase.padEnd(13)} cpu ms/s: emote-sim ${c.emote_sim.toFixed(1)} socat ${c.socat.toFixed(1)} ` +
          `backend ${c.backend.toFixed(0)} clients ${c.clients.toFixed(0)} | latency ms p50 ${l.p50.toFixed(3)} p90 ${l.p90.toFixed(3)} ` +
          `p99 ${l.p99.toFixed(3)} (${l.samples}) | probe p50 ${r.probe_latency_ms.p50.toFixed(3)} p90 ${r.probe_latency_ms.p90.toFixed(3)} ` +
          `p99 ${r.probe_latency_ms.p99.toFixed(3)} (${r.probe_latency_ms.samples}) | ${r.backend.mbytes.toFixed(1)} MB, ${r.backend.frames} frames, ${r.backend.skipped} skipped | ` +
          `tick mean ${r.tick.mean_ms.toFixed(3)} p95 ${r.tick.p95_ms.toFixed(3)} ms (${r.tick.p95_bucket}) | ` +
          (r.forward_delay.count ? `forward delay p99 ${r.forward_delay.p99_ms.toFixed(3)} ms (${r.forward_delay.p99_bucket}, ${r.forward_delay.count} writes) | ` : '') +
          `steal ms ${Object.entries(r.steal_ms).map(([c, v]) => `cpu${c} ${v}`).join(' ')} | ` +
          `players ${r.engine.players} sessions ${r.engine.sessions} displays ${r.engine.displays} plugin packets ${r.plugin_packets} | load ${r.load1.map((x) => x.toFixed(2)).join('→')}`)
        clients.disconnect()
        await probe.ask({ op: 'disconnect' }, 'disconnected')
        if (clients.mirror) { await clients.mirror.close(); clients.mirror = null }
        if (clients.plugin) { await clients.plugin.close(); clients.plugin = null }
        let open = null
        await waitUntil(async () => {
          const st = await backend.stats()
          open = { backend: st.players, names: st.names, gate: await gateConnections() }
          return open.backend === 0 && open.gate === 0
        }, 15000, 'every connection to close').catch((e) => { throw new Error(`${e.message}: ${JSON.stringify(open)}`) })
        if (process.env.GATE_BENCH_TRACE) log(`${phase}: joined ${(t1 - t0).toFixed(0)} ms, live ${(t2 - t1).toFixed(0)} ms, closed ${(performance.now() - t2).toFixed(0)} ms after`)
        if (!o.smoke) await sleep(500)
      }
    }
    // Summary: medians over the rounds.
    const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s.length ? s[Math.floor((s.length - 1) / 2)] : NaN }
    const of = (phase, f) => median(result.phases.filter((p) => p.phase === phase).map(f))
    const summary = {
      cpu_gate_ms_per_s: of('gate', (p) => p.cpu_ms_per_s.emote_sim),
      cpu_socat_ms_per_s: of('socat', (p) => p.cpu_ms_per_s.socat),
      cpu_gate_over_socat: median(o.rounds > 0 ? [...Array(o.rounds).keys()].map((i) => {
        const g = result.phases.find((p) => p.round === i + 1 && p.phase === 'gate')
        const s = result.phases.find((p) => p.round === i + 1 && p.phase === 'socat')
        return g.cpu_ms_per_s.emote_sim / s.cpu_ms_per_s.socat
      }) : []),
      latency_p99_ms: Object.fromEntries(['direct', 'socat', 'gate'].map((ph) => [ph, of(ph, (p) => p.latency_ms.p99)])),
      latency_p50_ms: Object.fromEntries(['direct', 'socat', 'gate'].map((ph) => [ph, of(ph, (p) => p.latency_ms.p50)])),
      probe_p99_ms: Object.fromEntries(['direct', 'socat', 'gate', 'gate+emotes'].map((ph) => [ph, of(ph, (p) => p.probe_latency_ms.p99)])),
      probe_p50_ms: Object.fromEntries(['direct', 'socat', 'gate', 'gate+emotes'].map((ph) => [ph, of(ph, (p) => p.probe_latency_ms.p50)])),
      forward_delay_p99_ms: Object.fromEntries(['gate', 'gate+emotes'].map((ph) => [ph, of(ph, (p) => p.forward_delay.p99_ms)])),
      tick_gate_emotes: { mean_ms: of('gate+emotes', (p) => p.tick.mean_ms), p95_ms: of('gate+emotes', (p) => p.tick.p95_ms) },
      tick_socket_emotes: { mean_ms: of('socket+emotes', (p) => p.tick.mean_ms), p95_ms: of('socket+emotes', (p) => p.tick.p95_ms) }
    }
    summary.gate_added_probe_p99_ms = summary.probe_p99_ms.gate - summary.probe_p99_ms.direct
    summary.socat_added_probe_p99_ms = summary.probe_p99_ms.socat - summary.probe_p99_ms.direct
    summary.gate_added_p99_ms = summary.latency_p99_ms.gate - summary.latency_p99_ms.direct
    summary.socat_added_p99_ms = summary.latency_p99_ms.socat - summary.latency_p99_ms.direct
    summary.tick_p95_gate_over_socket = summary.tick_gate_emotes.p95_ms / summary.tick_socket_emotes.p95_ms
    result.summary = summary
    result.machine = { cpu: os.cpus()[0]?.model, cpus: os.cpus().length, load_end: os.loadavg() }
    log(`summary: ${JSON.stringify(summary)}`)
    if (o.json) fs.writeFileSync(o.json, JSON.stringify(result, null, 2) + '\n')
    if (o.smoke) {
      // The benchmark still measures something: every phase's clients got the probes and the
      // backend's traffic, and the gate and socat each carried theirs.
      const bad = result.phases.filter((p) => p.latency_ms.samples < o.clients * o.seconds * 10 || p.backend.writes === 0 ||
        p.probe_latency_ms.samples < o.seconds * 10 ||
        p.socket_errors > 0 || (p.phase.endsWith('emotes') && !(p.engine.sessions >= 1 && p.engine.displays >= 1)) ||
        (p.phase !== 'direct' && p.phase !== 'socat' && p.engine.players !== o.clients))
      if (bad.length) throw new Error(`phases without traffic: ${bad.map((p) => p.phase).join(', ')}`)
      if (!(summary.cpu_gate_ms_per_s > 0)) throw new Error('no CPU time measured for emote-sim')
      log('smoke PASS')
    }
  } finally {
    for (const c of cleanups.reverse()) {
      try { await withTimeout(Promise.resolve(c()), 5000, 'cleanup') } catch {}
    }
  }
}

main().then(() => {
  if (!process.argv.includes('--backend') && !process.argv.includes('--probe')) process.exit(0)
}, (e) => {
  console.error(`gate-bench: ${e.stack || e.message}`)
  process.exit(1)
})
