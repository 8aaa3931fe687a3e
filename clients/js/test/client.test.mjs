// The JavaScript client against the real server (docs/guide/bots.md): every op, every error code a
// client can provoke as a typed error, waiting on both clocks, handlers, async iteration, the
// players filter, packets, reconnecting after a restart. Run: node --test test/ (CTest: client.js).

import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import {
  connect, Client, ConnectionClosedError, EmoteSimError, ERROR_CODES, TimeoutError, entryRecipients, facingPartner,
  packetId, parseAddress, readVarInt, viewerPackets
} from '../index.js'
import { ROOT, startServer, Server } from './server.mjs'

// A runtime emote: the sample wave, played once under another id.
const blink = JSON.parse(readFileSync(path.join(ROOT, 'config', 'emotes', 'wave', 'sample.wave.json'), 'utf8'))
blink.id = 'test:blink'
blink.settings.cooldown = '0t'
blink.settings.playback = { mode: 'once', loop_delay: '0t' }

async function rejects (promise, code, pathExpected) {
  const err = await promise.then(() => null, (e) => e)
  assert.ok(err instanceof EmoteSimError, `expected EmoteSimError ${code}, got ${err}`)
  assert.equal(err.code, code)
  if (pathExpected !== undefined) assert.equal(err.path, pathExpected)
  return err
}

test('addresses and varints', () => {
  assert.deepEqual(parseAddress('127.0.0.1:25580'), { host: '127.0.0.1', port: 25580 })
  assert.deepEqual(parseAddress('[::1]:7'), { host: '::1', port: 7 })
  assert.deepEqual(parseAddress('unix:/tmp/s.sock'), { path: '/tmp/s.sock' })
  assert.throws(() => parseAddress('localhost'), /HOST:PORT/)
  assert.deepEqual(readVarInt(Buffer.from([0xdd, 0xc7, 0x01])), [25565, 3])
  assert.deepEqual(readVarInt(Buffer.from([0xff, 0xff, 0xff, 0xff, 0x0f])), [-1, 5])
  assert.throws(() => readVarInt(Buffer.from([0x80])), /truncated/)
})

test('the error object: the names of the Python and Java clients (clients/error-replies.json)', () => {
  // docs/guide/bots.md, Errors: the same literal replies the other clients' tests read.
  const { cases } = JSON.parse(readFileSync(path.join(ROOT, 'clients', 'error-replies.json'), 'utf8'))
  for (const c of cases) {
    const e = new EmoteSimError(c.reply)
    assert.deepEqual(
      [e.code, e.text, e.detail, e.message, e.path, e.op, e.player, e.emote, e.remainingTicks],
      [c.code, c.text, c.detail, c.string, c.path, c.op, c.player, c.emote, c.remaining_ticks], c.code)
    assert.equal(e.reply, c.reply)
  }
})

test('viewer packets: audiences and to lists give the same packets (render.md §6.1)', () => {
  const data = [Buffer.from([0x00]), Buffer.from([0x5c, 0x01]), Buffer.from([0x2f, 0x02, 0x03]), Buffer.from([0x00])]
    .map((b) => b.toString('base64'))
  const toForm = {
    op: 'frame', tick: 7, events: [],
    packets: [
      { to: ['alice', 'bob'], protocol: 769, data: data[0] },
      { to: ['carol'], protocol: 775, data: data[1] },
      { to: ['alice', 'bob'], protocol: 769, data: data[2] },
      { to: ['bob', 'carol'], protocol: 769, data: data[3] }
    ]
  }
  const audienceForm = {
    op: 'frame', tick: 7, events: [],
    audiences: [['alice', 'bob'], ['carol'], ['bob', 'carol']],
    packets: [
      { audience: 0, protocol: 769, data: data[0] },
      { audience: 1, protocol: 775, data: data[1] },
      { audience: 0, protocol: 769, data: data[2] },
      { audience: 2, protocol: 769, data: data[3] }
    ]
  }
  for (const player of ['alice', 'bob', 'carol', 'dave']) {
    assert.deepEqual(viewerPackets(audienceForm, player), viewerPackets(toForm, player), player)
  }
  assert.deepEqual(viewerPackets(audienceForm, 'bob').map((x) => [...x.data]), [[0x00], [0x2f, 0x02, 0x03], [0x00]])
  assert.deepEqual(entryRecipients(audienceForm, audienceForm.packets[3]), ['bob', 'carol'])
  for (const audience of [3, -1, 0.5, '0']) {
    const bad = { ...audienceForm, packets: [{ audience, protocol: 769, data: data[0] }] }
    assert.throws(() => viewerPackets(bad, 'alice'), (e) => e instanceof RangeError &&
      e.message.includes('tick 7') && e.message.includes(`audience ${JSON.stringify(audience)}`))
  }
  assert.throws(() => viewerPackets({ tick: 8, packets: [{ audience: 0, protocol: 769, data: data[0] }] }, 'a'),
    /tick 8.*audience 0.*0 audiences/)
})

describe('a manual-clock server', () => {
  let server
  const clients = []
  const open = async (address, options) => {
    const c = await connect(address ?? server.tcp, { client: 'js-test', ...options })
    clients.push(c)
    return c
  }
  before(async () => { server = await startServer({ clock: 'manual' }) })
  after(async () => {
    await Promise.all(clients.map((c) => c.close()))
    await server.dispose()
  })

  test('every op', async () => {
    const c = await open(server.unix)
    assert.equal(c.manualClock, true)
    assert.equal((await c.ping()).ok, true)
    assert.equal((await c.subscribe({ events: ['playback.'], players: 'own' })).ok, true)
    const p = await c.players.join('op-alice', { position: [0, 64, 0], yaw: 0, protocol: 769, entity_id: 7 })
    assert.deepEqual(c.players.names(), ['op-alice'])
    assert.equal((await p.update({ yaw: 90 })).ok, true)
    assert.ok((await c.listEmotes()).some((e) => e.id === 'sample:wave'))
    assert.equal((await c.info('sample:handshake')).two_player, true)
    assert.equal(await c.register(blink), 'test:blink')
    const r = await p.play('test:blink')
    assert.deepEqual(r, { session: r.session, emote: 'test:blink', role: 'solo' })
    assert.equal((await p.waitFor('playback.stopped', { ticks: 30 })).reason, 'FINISHED')
    await p.play('sample:wave')
    assert.equal((await p.stop()).ok, true)
    assert.equal((await p.event('jump')).ok, true)
    assert.equal(await c.cooldownClear('op-alice'), 1)
    assert.equal(await c.worldBlocks([{ at: [0, 70, 0], block: 'solid' }]), 1)
    assert.equal(await c.worldClear(), 1)
    assert.equal(await c.resync(['op-alice']), 1)
    assert.equal((await p.state()).players[0].player, 'op-alice')
    await c.players.join('op-bob', { position: [50, 64, 0] })
    await c.players.join('op-carol', { position: [60, 64, 0] })
    const pages = []
    for await (const page of c.statePages(2)) pages.push(page.players.map((e) => e.player))
    assert.deepEqual(pages, [['op-alice', 'op-bob'], ['op-carol']])
    await c.leave('op-bob')
    await c.leave('op-carol')
    assert.equal((await c.unregister('test:blink')).ok, true)
    assert.ok((await c.reload()).loaded >= 10)
    const before = c.tick
    assert.equal(await c.step(3), before + 3)
    assert.equal((await p.leave()).ok, true)
    assert.equal(c.players.size, 0)
  })

  test('emote.stop_all (on a server of its own)', async () => {
    const c = await open()
    await (await c.players.join('sa-1', { position: [100, 64, 0] })).play('sample:wave')
    assert.ok(await c.stopAll() >= 1)
    await c.leave('sa-1')
  })

  test('error codes are typed errors', async () => {
    const c = await open()
    const obs = await open(undefined, { role: 'observer' })
    await rejects(c.request('nope'), 'unknown_op')
    await rejects(c.request('player.join', { player: 'x' }), 'bad_request', '$.position')
    await rejects(obs.request('player.join', { player: 'x', position: [0, 0, 0] }), 'forbidden')
    await rejects(c.play('nobody', 'sample:wave'), 'unknown_player')
    await c.players.join('err-a', { position: [200, 64, 0] })
    await rejects(c.join('err-a', { position: [0, 64, 0] }), 'player_exists')
    await rejects(c.play('err-a', 'nope:nothing'), 'unknown_emote')
    await rejects(c.play('err-a', 'sample:sit_down'), 'not_standalone')
    await rejects(c.stop('err-a'), 'not_playing')
    await c.play('err-a', 'sample:wave')
    const cd = await rejects(c.play('err-a', 'sample:wave'), 'cooldown')
    assert.ok(cd.remainingTicks > 0)
    await c.players.join('err-np', { position: [210, 64, 0], permissions: { 'emote.default': false } })
    await rejects(c.play('err-np', 'sample:wave'), 'no_permission')
    // A number beyond binary64 is a bad_request with its path and the request's id.
    const big = new Promise((resolve) => c.once('reply.error', resolve))
    c.sendRaw('{"op":"player.update","player":"x","yaw":1e400}')
    assert.equal((await big).path, '$.yaw')
    // Failures of requests without an id reach 'reply.error'.
    const got = []
    c.on('reply.error', (e) => got.push(e))
    c.sendRaw('{not json')
    await c.send('emote.stop', { player: 'err-np' })
    await c.ping()
    assert.deepEqual(got.map((e) => e.code), ['bad_json', 'not_playing'])
    assert.ok(got.every((e) => e instanceof EmoteSimError && ERROR_CODES.includes(e.code)))
  })

  test('waitTicks and waitFor on a manual clock', async () => {
    const c = await open()
    const start = (await c.ping()).tick
    assert.equal(await c.waitTicks(5), start + 5)
    await c.subscribe({ events: ['playback.'], players: 'own' })
    const p = await c.players.join('wt-a', { position: [300, 64, 0] })
    await p.play('sample:wave')
    await p.update({ position: [302, 64, 0] })
    assert.equal((await p.waitFor('playback.stopped', { ticks: 3 })).reason, 'MOVED')
    const t = c.tick
    await assert.rejects(c.waitFor('playback.started', { ticks: 4 }), TimeoutError)
    assert.equal(c.tick, t + 4)
    await assert.rejects(c.waitFor('playback.started', { timeout: 200 }), TimeoutError)
    await p.leave()
  })

  test('handlers, prefixes, predicates and async iteration over frames', async () => {
    const c = await open()
    await c.subscribe({ events: ['playback.', 'display.spawn'], players: 'own' })
    const p = await c.players.join('h-a', { position: [400, 64, 0] })
    const started = []
    const spawns = []
    const mine = []
    const off = c.on('playback.started', (e) => started.push(e))
    c.on('display.', (e) => spawns.push(e))
    p.on((e) => e.type.startsWith('playback.'), (e) => mine.push(e.type))
    const frames = []
    const reading = (async () => { for await (const f of c.frames({ timeout: 300 })) frames.push(f) })()
    await p.play('sample:wave')
    await c.step(1)
    assert.deepEqual(started.map((e) => e.player), ['h-a'])
    assert.equal(spawns.length, 6)
    off()
    await p.stop()
    await p.play('sample:wave', { bypass: true })
    await c.step(1)
    assert.equal(started.length, 1)
    assert.deepEqual(mine, ['playback.started', 'playback.stopped', 'playback.started'])
    await reading
    assert.equal(frames.length, 2)
    assert.ok(typeof frames[0].line === 'string' && frames[0].line.startsWith('{"op":"frame"'))
    // A player's frames: only its events (the other player's wave is left out).
    const q = await c.players.join('h-b', { position: [410, 64, 0] })
    const own = []
    const mineReading = (async () => { for await (const f of p.frames({ timeout: 300 })) own.push(f.events.map((e) => e.type)) })()
    await q.play('sample:wave')
    await p.stop()
    await c.step(1)
    await mineReading
    assert.deepEqual(own, [['playback.stopped']])
    await q.leave()
    await p.leave()
  })

  test('the players filter keeps two bots apart', async () => {
    const one = await open()
    const two = await open()
    await one.subscribe({ events: ['playback.'], players: 'own' })
    await two.subscribe({ events: ['playback.'], players: 'own' })
    const a = await one.players.join('pf-one', { position: [500, 64, 0] })
    const b = await two.players.join('pf-two', { position: [510, 64, 0] })
    const ones = []
    const twos = []
    one.on('playback.', (e) => ones.push(e.player))
    two.on('playback.', (e) => twos.push(e.player))
    await a.play('sample:wave')
    await b.play('sample:wave')
    await one.step(2)
    await two.ping()
    assert.deepEqual(ones, ['pf-one'])
    assert.deepEqual(twos, ['pf-two'])
    await a.leave()
    await b.leave()
  })

  test('viewer packets', async () => {
    const c = await open()
    await c.subscribe({ packets: true, players: ['vp-a'] })
    const p = await c.players.join('vp-a', { position: [600, 64, 0], protocol: 769, entity_id: 42 })
    const packets = []
    c.on('frame', (f) => packets.push(...viewerPackets(f, 'vp-a')))
    await p.play('sample:wave')
    await c.step(2)
    assert.ok(packets.length > 0)
    assert.ok(packets.every((x) => x.protocol === 769 && Buffer.isBuffer(x.data)))
    assert.equal(packetId(packets[0].data), 0x00) // a spawn bundle opens
    await p.leave()
  })

  test('viewer packets with audiences', async () => {
    const c = await open()
    await c.subscribe({ packets: true, audiences: true, players: ['va-a'] })
    const p = await c.players.join('va-a', { position: [650, 64, 0], protocol: 769, entity_id: 43 })
    const packets = []
    const frames = []
    c.on('frame', (f) => {
      if (f.packets?.length) frames.push(f)
      packets.push(...viewerPackets(f, 'va-a'))
    })
    await p.play('sample:wave')
    await c.step(2)
    assert.ok(frames.length > 0)
    for (const f of frames) {
      assert.ok(Array.isArray(f.audiences))
      assert.ok(f.packets.every((e) => e.to === undefined && Number.isInteger(e.audience)))
    }
    assert.ok(packets.length > 0)
    assert.ok(packets.every((x) => x.protocol === 769 && Buffer.isBuffer(x.data)))
    assert.equal(packetId(packets[0].data), 0x00) // a spawn bundle opens
    await p.leave()
  })
})

describe('a realtime server with a token and small limits', () => {
  let server
  const clients = []
  const open = async (options) => {
    const c = await connect(server.tcp, { client: 'js-test', token: 's3cret', ...options })
    clients.push(c)
    return c
  }
  before(async () => {
    server = await startServer({
      clock: 'realtime',
      extra: ['--auth-controller-token', 's3cret', '--limits-max-line-bytes', '4096',
        '--disabled', 'sample:sit', '--cooldown-mode', 'stop', '--max-active-display-entities', '6']
    })
  })
  after(async () => {
    await Promise.all(clients.map((c) => c.close()))
    await server.dispose()
  })

  test('hello errors', async () => {
    await rejects(connect(server.tcp), 'unauthorized')
    await rejects(connect(server.tcp, { token: 'wrong' }), 'unauthorized')
    await rejects(connect(server.tcp, { token: 's3cret', protocol: 2 }), 'unsupported_protocol')
    await (await connect(server.tcp, { role: 'observer' })).close()
  })

  test('limits and rules', async () => {
    const c = await open()
    const tooLong = new Promise((resolve) => c.once('reply.error', resolve))
    c.sendRaw('{"op":"ping","pad":"' + 'x'.repeat(5000) + '"}')
    assert.equal((await tooLong).code, 'line_too_long')
    await rejects(c.step(1), 'clock_not_manual')
    const a = await c.players.join('st-a', { position: [0, 64, 0] })
    const b = await c.players.join('st-b', { position: [50, 64, 0] })
    await rejects(a.play('sample:sit'), 'disabled')
    await a.play('sample:wave')
    await rejects(a.play('sample:wave'), 'already_playing')
    await rejects(b.play('sample:wave'), 'display_limit')
    await a.stop()
    await a.leave()
    await b.leave()
  })

  test('waitTicks and waitFor on a realtime clock', async () => {
    const c = await open()
    const start = (await c.ping()).tick
    const t0 = Date.now()
    const now = await c.waitTicks(10)
    const elapsed = Date.now() - t0
    assert.ok(now >= start + 10, `${now} < ${start} + 10`)
    assert.ok(elapsed >= 200 && elapsed < 3000, `${elapsed} ms`)
    await c.subscribe({ events: ['playback.'], players: 'own' })
    const p = await c.players.join('rt-a', { position: [100, 64, 0] })
    await p.play('sample:wave')
    await p.update({ position: [102, 64, 0] })
    assert.equal((await p.waitFor('playback.stopped', { ticks: 20 })).reason, 'MOVED')
    const before = (await c.ping()).tick
    await assert.rejects(p.waitFor('playback.started', { ticks: 6 }), TimeoutError)
    assert.ok(c.tick >= before + 6)
    await p.leave()
  })
})

test('content_unavailable and shutting_down', async () => {
  // content_unavailable: a reload whose content folder is gone (the running catalog stays).
  const emotes = path.join(mkdtempSync(path.join(tmpdir(), 'emote-sim-js-')), 'emotes')
  cpSync(path.join(ROOT, 'config', 'emotes'), emotes, { recursive: true })
  const server = await startServer({ clock: 'manual', extra: ['--emotes', emotes] })
  const c = await connect(server.tcp)
  rmSync(emotes, { recursive: true })
  await rejects(c.reload(), 'content_unavailable')
  // shutting_down: a long clock.step cut short by SIGTERM (50 waving players make the 72000
  // ticks take seconds; the signal comes after 200 ms).
  for (let i = 0; i < 50; i++) await (await c.players.join(`sd-${i}`, { position: [i * 3, 64, 0] })).play('sample:wave')
  const before = c.tick
  setTimeout(() => server.proc.kill('SIGTERM'), 200)
  const err = await rejects(c.step(72000), 'shutting_down')
  assert.ok(err.reply.tick < before + 72000)
  await c.close()
  await server.dispose()
})

test('reconnect after the server restarts', async () => {
  const server = new Server({ clock: 'manual' })
  await server.start()
  const c = new Client(server.unix, { reconnect: { initialDelay: 20, maxDelay: 200 } })
  await c.connect()
  const events = []
  c.on('disconnect', () => events.push('disconnect'))
  const reconnected = new Promise((resolve) => c.on('reconnect', resolve))
  await c.subscribe({ events: ['playback.'], players: 'own' })
  await c.players.join('rc-a', { position: [0, 64, 0] })
  await c.step(5)
  await server.restart()
  await reconnected
  assert.deepEqual(events, ['disconnect'])
  assert.equal((await c.ping()).tick, 0) // a new server, from tick 0
  assert.deepEqual(c.players.names(), []) // the server forgot them
  const p = await c.players.join('rc-a', { position: [0, 64, 0] }) // subscribed again, filter included
  await p.play('sample:wave')
  assert.equal((await p.waitFor('playback.started', { ticks: 2 })).player, 'rc-a')
  await c.close()
  await server.dispose()
  // Without reconnect, a request on a closed connection fails at once.
  const gone = new Client(server.unix)
  await assert.rejects(gone.ping(), ConnectionClosedError)
})

test('reconnect with rejoin: the players come back with their last state', async () => {
  const server = new Server({ clock: 'manual' })
  await server.start()
  const c = new Client(server.unix, { reconnect: { initialDelay: 20, maxDelay: 200, rejoin: true } })
  await c.connect()
  const reconnected = new Promise((resolve) => c.on('reconnect', resolve))
  await c.subscribe({ events: ['playback.'], players: 'own' })
  const a = await c.players.join('rj-a', { position: [0, 64, 0], yaw: 10 })
  await a.update({ position: [3, 64, 4] })
  await server.restart()
  await reconnected
  assert.deepEqual(c.players.names(), ['rj-a'])
  assert.equal((await c.state('rj-a')).players[0].player, 'rj-a')
  // Its position and yaw are the last sent: a partner placed facing it there joins.
  assert.equal((await a.play('sample:handshake')).role, 'initiator')
  assert.equal((await a.waitFor('playback.started', { ticks: 2 })).player, 'rj-a') // 'own' again
  const b = await c.players.join('rj-b', facingPartner([3, 64, 4], 10))
  assert.equal((await b.play('sample:handshake')).role, 'partner')
  await c.close()
  await server.dispose()
})

test('errors and timeouts name what failed; facingPartner places a partner that joins', async () => {
  const server = new Server({ clock: 'manual' })
  await server.start()
  const c = await connect(server.unix)
  const errors = []
  c.on('reply.error', (e) => errors.push(e))
  // protocol.md §3: a failed request without an id names its op and player.
  await c.send('player.update', { player: 'nobody', yaw: 3 })
  await c.ping()
  assert.equal(errors.length, 1)
  assert.deepEqual([errors[0].code, errors[0].op, errors[0].player], ['unknown_player', 'player.update', 'nobody'])
  assert.match(errors[0].detail, /player\.update player "nobody"/)
  const e = await rejects(c.play('nobody', 'sample:nope'), 'unknown_player')
  assert.deepEqual([e.op, e.player, e.emote, e.text], ['emote.play', 'nobody', 'sample:nope', 'Player is not online.'])
  const alice = await c.players.join('fp-alice', { position: [0.5, 64, 0.5], yaw: 30 })
  await assert.rejects(alice.waitFor('playback.stopped', { ticks: 2 }),
    (err) => err instanceof TimeoutError && /"playback\.stopped" event about player "fp-alice"/.test(err.message))
  // players.md §7.3/§7.4: a partner placed by facingPartner joins; one turned away does not,
  // and the reply says why.
  assert.equal((await alice.play('sample:handshake')).role, 'initiator')
  const away = await c.players.join('fp-away', { ...facingPartner([0.5, 64, 0.5], 30), yaw: 30 })
  const r = await away.play('sample:handshake')
  assert.equal(r.role, 'initiator')
  assert.equal(r.unmatched.reason, 'partner_facing')
  assert.equal(r.unmatched.initiator, 'fp-alice')
  await away.leave()
  const bob = await c.players.join('fp-bob', facingPartner([0.5, 64, 0.5], 30))
  assert.equal((await bob.play('sample:handshake')).role, 'partner')
  assert.throws(() => facingPartner([0, 0, 0], 0, 2.5), RangeError)
  await c.close()
  await server.dispose()
})
