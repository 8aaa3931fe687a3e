// Browser tests of the viewer (issue 15) in headless Chromium (Debian's `chromium`) driven by
// puppeteer-core: `node test/browser.mjs EMOTE_SIM ARTIFACTS_DIR`. Each scenario is served by
// `emote-sim view`; the page must load without console errors and, at the ticks checked, (a) draw
// as many display meshes as there are live visible displays (counted here from the timeline,
// independently of the page's model), (b) list that tick's events in the panel, (c) show a block
// display's colour at its projected position, (d) not be blank. A scenario whose expectation
// fails gets a red mark and the page says what failed. A 12,000-tick scenario and a 12,000-tick
// recording check seek times; a live `serve --http` page must receive frames over the WebSocket
// while a bot plays and mark the playback's start and stop on its timeline, and that session's
// recording, viewed, passes the checks above, as does the recording cut mid-line (the page notes
// it). Screenshots go to ARTIFACTS_DIR, and ARTIFACTS_DIR/result says whether the run passed.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';
import puppeteer from 'puppeteer-core';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
const exe = resolve(process.argv[2] ?? join(root, 'build/release/server/emote-sim'));
const artifacts = resolve(process.argv[3] ?? join(root, 'build/release/viewer-test'));
mkdirSync(artifacts, { recursive: true });
// Whether this run passed, for scripts/viewer-pictures (the guide shows only a passing run's shots).
const resultFile = join(artifacts, 'result');
writeFileSync(resultFile, 'running\n');
const chromiumPath = process.env.CHROMIUM ?? '/usr/bin/chromium';

let failures = 0;
function check(ok, what) {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
  if (!ok) failures += 1;
}

const children = [];
/** Start emote-sim and wait for the line matching `re` on stdout or stderr. */
function start(args, re, timeoutMs = 20000) {
  return new Promise((resolveStart, reject) => {
    const child = spawn(exe, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let text = '';
    const timer = setTimeout(() => reject(new Error(`no ${re} from ${args.join(' ')}:\n${text}`)), timeoutMs);
    const onData = (d) => {
      text += d;
      const m = re.exec(text);
      if (m) {
        clearTimeout(timer);
        resolveStart({ child, match: m, output: () => text });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => reject(new Error(`emote-sim ${args[0]} exited ${code}:\n${text}`)));
  });
}

/** What is live and visible at each tick, from the frames alone (not the page's model). */
function visibleAt(timeline, tick) {
  const live = new Map();
  for (const l of timeline.lines) {
    if (l.op !== 'frame' || l.tick > tick) continue;
    for (const e of l.events) {
      if (e.type === 'display.spawn') live.set(e.handle, { visible: e.visible !== false, kind: e.kind, block: e.block });
      else if (e.type === 'display.update' && live.has(e.handle) && typeof e.visible === 'boolean') live.get(e.handle).visible = e.visible;
      else if (e.type === 'display.remove') for (const h of e.handles) live.delete(h);
    }
  }
  return live;
}

/** The players joined and not left by `tick`, from the timeline's client messages. */
function playersAt(timeline, tick) {
  const present = new Set();
  for (const i of timeline.inputs) {
    if (i.tick > tick) continue;
    if (i.msg.op === 'player.join') present.add(i.msg.player);
    if (i.msg.op === 'player.leave') present.delete(i.msg.player);
  }
  return present;
}

// Every request a page makes must stay on loopback (the viewer ships no game assets and the tests
// fetch nothing from the network, e.g. no skin from Mojang): others are refused and listed here.
const offLoopback = [];
async function openPage(browser, url) {
  const page = await browser.newPage();
  await page.setViewport({ width: 1100, height: 700 });
  await page.setRequestInterception(true);
  page.on('request', (r) => {
    const u = new URL(r.url());
    if (u.protocol === 'data:' || ['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname)) r.continue();
    else {
      offLoopback.push(r.url());
      r.abort();
    }
  });
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(`${m.text()}${m.location()?.url ? ` (${m.location().url})` : ''}`); });
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(url, { waitUntil: 'load' });
  await page.waitForFunction(() => window.__viewer?.ready === true, { timeout: 15000 });
  return { page, errors };
}

/** `status`: what the page's status line must say (a RegExp) and whether it is an error;
 *  `block`: the last tick checked must show a visible block display (the pixel check (c)). */
/** The players an emote hides at `tick` (player.visibility records), from the frames alone. */
function hiddenAt(timeline, tick) {
  const hidden = new Set();
  for (const l of timeline.lines) {
    if (l.op !== 'frame' || l.tick > tick) continue;
    for (const e of l.events) if (e.type === 'player.visibility') (e.hidden ? hidden.add(e.player) : hidden.delete(e.player));
  }
  return hidden;
}

/** `hidden`: some tick checked must have a hidden player (the faint-figure check is not vacuous). */
async function viewScenario(browser, file, pickTicks, name, { status = null, block: needBlock = false, hidden: needHidden = false } = {}) {
  const { child, match } = await start(['view', file, '--http', '127.0.0.1:0'], /view: (http:\/\/\S+)\n/);
  const url = match[1];
  const timeline = await (await fetch(`${url}timeline.json`)).json();
  const ticks = typeof pickTicks === 'function' ? pickTicks(timeline) : pickTicks;
  const { page, errors } = await openPage(browser, url);
  if (status) {
    const shown = await page.evaluate(() => window.__viewer.status());
    check(status.text.test(shown.text) && shown.error === status.error,
      `${name}: the page says ${JSON.stringify(shown.text)}${shown.error ? ' as an error' : ''} (${status.text}${status.error ? ', an error' : ''})`);
  }
  let sawHidden = false;
  for (const t of ticks) {
    await page.evaluate((tt) => window.__viewer.seek(tt), t);
    const live = visibleAt(timeline, t);
    const expected = [...live.values()].filter((d) => d.visible).length;
    const drawn = await page.evaluate(() => window.__viewer.drawnDisplays());
    check(drawn === expected, `${name} tick ${t}: (a) drawn displays (mesh instances) ${drawn} == visible displays ${expected}`);
    const frame = timeline.lines.find((l) => l.op === 'frame' && l.tick === t);
    const types = frame ? frame.events.map((e) => e.type) : [];
    const panel = await page.evaluate(() => window.__viewer.panelEvents());
    check(JSON.stringify(panel) === JSON.stringify(types), `${name} tick ${t}: (b) the panel lists the tick's ${types.length} events`);
    const colours = await page.evaluate(() => window.__viewer.distinctColours());
    check(colours > 4, `${name} tick ${t}: (d) the canvas is not blank (${colours} colours sampled)`);
    const offers = new Set();
    for (const l of timeline.lines) {
      if (l.op !== 'frame' || l.tick > t) continue;
      for (const e of l.events) {
        if (e.type === 'playback.started' && e.role === 'initiator') offers.add(e.session);
        if (['partner.matched', 'partner.timeout', 'playback.stopped'].includes(e.type)) offers.delete(e.session);
      }
    }
    const rings = await page.evaluate(() => window.__viewer.offersDrawn());
    check(rings === offers.size, `${name} tick ${t}: ${rings} match-radius rings for ${offers.size} open offers`);
    const present = playersAt(timeline, t);
    const sight = await page.evaluate(() => window.__viewer.sightLinesDrawn());
    const sightWanted = present.size > 1 ? offers.size : 0;
    check(sight === sightWanted, `${name} tick ${t}: ${sight} line-of-sight lines for ${offers.size} open offers among ${present.size} players`);
    // A hidden player's figure is drawn faint (at most 20% opaque, not hiding what is behind it).
    const hidden = [...hiddenAt(timeline, t)].filter((p) => present.has(p)).length;
    const fig = await page.evaluate(() => window.__viewer.figures());
    check(fig.hidden === hidden && fig.hiddenHeads === hidden && fig.shown === present.size - hidden && (hidden === 0 || (fig.hiddenOpacity <= 0.2 && !fig.hiddenDepthWrite)),
      `${name} tick ${t}: ${fig.shown} figures shown, ${fig.hidden} faint (${fig.hiddenOpacity} opaque) for ${hidden} of ${present.size} players hidden`);
    sawHidden ||= hidden > 0;
    await page.screenshot({ path: join(artifacts, `${name}-tick${t}.png`) });
  }
  if (needHidden) check(sawHidden, `${name}: a tick checked has a hidden player`);
  // (c) a block display of a known colour at its projected position.
  const last = ticks[ticks.length - 1];
  const block = [...visibleAt(timeline, last)].find(([, d]) => d.kind === 'block' && d.visible);
  if (needBlock) check(block !== undefined, `${name} tick ${last}: a visible block display for the pixel check`);
  if (block) {
    const [handle, d] = block;
    const want = await page.evaluate((snbt) => window.__viewer.blockColour(snbt), d.block);
    await page.evaluate((h) => window.__viewer.lookAt(h), handle);
    const at = await page.evaluate((h) => window.__viewer.project(h), handle);
    const got = await page.evaluate((p) => window.__viewer.pixel(p.x, p.y), at);
    const rgb = [(want >> 16) & 255, (want >> 8) & 255, want & 255];
    const close = got.every((c, i) => Math.abs(c - rgb[i]) <= 12);
    check(close, `${name}: (c) block display ${handle} (${d.block}) at (${at.x}, ${at.y}) is rgb(${got}) ~ rgb(${rgb})`);
    // Click to inspect: the display under the pointer is the one shown.
    await page.mouse.click(at.x, at.y);
    const picked = await page.evaluate(() => window.__viewer.selection());
    check(new RegExp(`"handle": ${handle},`).test(picked), `${name}: clicking block display ${handle} selects it (${picked.split('\n').slice(0, 3).join(' ')})`);
    await page.screenshot({ path: join(artifacts, `${name}-block.png`) });
  }
  // Following a player moves the camera's target to it (1 block above its feet).
  const who = [...playersAt(timeline, last)][0];
  if (who) {
    await page.select('#follow', who);
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    const [target, feet] = await page.evaluate((n) => [window.__viewer.cameraTarget(), window.__viewer.playerPosition(n)], who);
    const near = feet && target.every((c, i) => Math.abs(c - feet[i] - (i === 1 ? 1 : 0)) < 1e-6);
    check(near, `${name}: following ${who} puts the camera's target at (${target.map((c) => c.toFixed(2))}), above its feet (${feet})`);
    await page.select('#follow', '');
  }
  const marks = await page.evaluate(() => window.__viewer.markers());
  const passes = timeline.expectations.filter((x) => x.pass).length;
  check(marks.filter((m) => m === 'pass').length === passes && marks.filter((m) => m === 'fail').length === timeline.expectations.length - passes,
    `${name}: the timeline marks ${passes} passed and ${timeline.expectations.length - passes} failed expectations`);
  check(errors.length === 0, `${name}: no console errors${errors.length ? `: ${errors.join(' | ')}` : ''}`);
  await page.close();
  // A deep link opens at its tick with the panel filtered to its session.
  const t = ticks[0];
  const linked = await openPage(browser, `${url}#tick=${t}&session=1`);
  const at = await linked.page.evaluate(() => window.__viewer.tick);
  const shown = await linked.page.evaluate(() => window.__viewer.panelEvents().length);
  const frame = timeline.lines.find((l) => l.op === 'frame' && l.tick === t);
  const session1 = frame.events.filter((e) => e.session === 1).length;
  check(at === t && shown === session1, `${name}: #tick=${t}&session=1 opens at tick ${at} with ${shown} events of session 1 (${session1} expected)`);
  await linked.page.close();
  child.kill('SIGTERM');
  return timeline;
}

/** A PNG of `width`×`height` RGBA pixels (`pixel(x, y)` -> [r, g, b, a]), written here. */
function png(width, height, pixel) {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; ++k) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (buf) => {
    let c = 0xffffffff;
    for (const b of buf) c = crcTable[(c ^ b) & 255] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type, data) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const sum = Buffer.alloc(4);
    sum.writeUInt32BE(crc(body));
    return Buffer.concat([len, body, sum]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 6, 0, 0, 0], 8); // 8 bits, RGBA
  const raw = Buffer.alloc(height * (1 + 4 * width));
  for (let y = 0; y < height; ++y) {
    for (let x = 0; x < width; ++x) raw.set(pixel(x, y), y * (1 + 4 * width) + 1 + 4 * x);
  }
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', header),
    chunk('IDAT', zlib.deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}

/** An sRGB colour as drawn after a linear shading factor (the figures' faces are shaded by face). */
function shadedSrgb(rgb, factor) {
  const lin = (c) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
  const srgb = (c) => (c <= 0.0031308 ? 12.92 * c : 1.055 * c ** (1 / 2.4) - 0.055);
  return rgb.map((c) => Math.round(255 * srgb(lin(c / 255) * factor)));
}
const near = (a, b, tolerance = 12) => a.every((c, i) => Math.abs(c - b[i]) <= tolerance);
const distinct = (texels) => new Set(texels.map((t) => t.join())).size;
const differing = (a, b) => a.filter((t, i) => !near(t, b[i], 24)).length;

async function players(browser) {
  // Players' heads (docs/guide/viewer.md, "Players"), name tags, the camera's first framing and a
  // long FAIL banner. A skin server on loopback: /skin.png (a 64×64 skin whose face is magenta
  // with two green eye pixels) with the cross-origin header a skin host sends; /nocors.png, the
  // same without it (the browser may not read it); anything else 404.
  const FACE = [200, 40, 150];
  const EYE = [20, 200, 60];
  const HAIR = [90, 60, 20];
  const TORSO = [40, 90, 200];
  const skin = png(64, 64, (x, y) => {
    if (y >= 8 && y < 16 && x >= 8 && x < 16) return (y === 12 && (x === 10 || x === 13)) ? [...EYE, 255] : [...FACE, 255];
    if (y < 16 && x < 32) return [...HAIR, 255];
    if (y >= 20 && y < 32 && x >= 20 && x < 28) return [...TORSO, 255];
    return [0, 0, 0, 0];
  });
  const hits = [];
  const skins = http.createServer((req, res) => {
    hits.push(req.url);
    if (req.url === '/skin.png') res.writeHead(200, { 'Content-Type': 'image/png', 'Access-Control-Allow-Origin': '*' }).end(skin);
    else if (req.url === '/nocors.png') res.writeHead(200, { 'Content-Type': 'image/png' }).end(skin);
    else res.writeHead(404).end();
  });
  await new Promise((r) => skins.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${skins.address().port}`;
  const textures = (url) => ({ default: { value: Buffer.from(JSON.stringify({ textures: { SKIN: { url } } })).toString('base64') } });
  const dir = mkdtempSync(join(tmpdir(), 'emote-sim-viewer-'));
  const file = join(dir, 'players.json');
  // Five players three blocks apart looking the same way (+Z), and one 200 blocks away; forty
  // expectations that cannot hold make a long FAIL verdict.
  const join_ = (player, x, extra) => ({ tick: 0, op: 'player.join', player, position: [x, 64, 0], yaw: 0, ...extra });
  writeFileSync(file, JSON.stringify({
    scenario: 1, name: 'players', emotes: [join(root, 'tests/data/viewer/emotes')], ticks: 5,
    script: [
      join_('0c4a3f7e-0000-4000-8000-00000000000a', 0, { name: 'Alice_A', skin_textures: textures(`${base}/skin.png`) }),
      join_('bob', 3, { skin_textures: textures(`${base}/missing.png`) }),
      join_('carol', 6, { skin_textures: textures(`${base}/nocors.png`) }),
      join_('dave', 9, { uuid: '00000000-0000-4000-8000-0000000000d1' }),
      join_('erin', 12, {}),
      join_('far', 200, {}),
    ],
    expect: Array.from({ length: 40 }, (_, i) => ({ event: 'playback.started', player: 'erin', tick: i % 5 })),
  }));
  const alice = '0c4a3f7e-0000-4000-8000-00000000000a';
  const { child, match } = await start(['view', file, '--http', '127.0.0.1:0'], /view: (http:\/\/\S+)\n/);
  const { page, errors } = await openPage(browser, match[1]);
  await page.waitForFunction((a) => window.__viewer.heads()[a] === 'skin' && !Object.values(window.__viewer.heads()).includes('loading'),
    { timeout: 5000 }, alice).catch(() => {});
  const heads = await page.evaluate(() => window.__viewer.heads());
  check(heads[alice] === 'skin' && heads.bob === 'generated' && heads.carol === 'generated' && heads.dave === 'generated' && heads.erin === 'generated',
    `players: the head is the skin where the browser could load it (a URL with the cross-origin header), else generated (404, no header, none): ${JSON.stringify(heads)}`);
  // The loaded skin's face, texel by texel: magenta with the two green eyes (shaded as a front face).
  const face = await page.evaluate((a) => window.__viewer.faceTexels(a), alice);
  const want = (i, j) => shadedSrgb(j === 4 && (i === 2 || i === 5) ? EYE : FACE, 0.88);
  const wrong = face.map((t, k) => [k % 8, Math.floor(k / 8), t]).filter(([i, j, t]) => !near(t, want(i, j)));
  check(wrong.length === 0, `players: Alice_A's face is her skin's (8,8)-(16,16), eyes included (${wrong.length} of 64 texels differ${wrong.length ? `, e.g. (${wrong[0][0]},${wrong[0][1]}) rgb(${wrong[0][2]}) for rgb(${want(wrong[0][0], wrong[0][1])})` : ''})`);
  // Generated faces: a pattern (skin, hair, eyes, mouth: several colours), one per player.
  const generated = {};
  for (const who of ['bob', 'carol', 'dave', 'erin']) generated[who] = await page.evaluate((n) => window.__viewer.faceTexels(n), who);
  const colours = Object.fromEntries(Object.entries(generated).map(([n, t]) => [n, distinct(t)]));
  check(Object.values(colours).every((n) => n >= 4), `players: each generated head has a face of several colours (${JSON.stringify(colours)})`);
  const names = Object.keys(generated);
  const pairs = [];
  for (let a = 0; a < names.length; ++a) for (let b = a + 1; b < names.length; ++b) pairs.push([names[a], names[b], differing(generated[names[a]], generated[names[b]])]);
  check(pairs.every(([, , n]) => n >= 8), `players: generated faces differ per player (texels differing: ${pairs.map(([a, b, n]) => `${a}/${b} ${n}`).join(', ')})`);
  check(differing(generated.carol, face) >= 32, 'players: a skin the browser may not read (no cross-origin header) is not drawn');
  // Name tags: the join's name, else the key; the key on hover.
  const labels = await page.evaluate(() => window.__viewer.labels());
  check(labels[alice]?.[0] === 'Alice_A' && labels[alice]?.[1] === alice && labels.bob?.[0] === 'bob',
    `players: tags show the name (${JSON.stringify(labels[alice])}), else the key (${JSON.stringify(labels.bob)})`);
  // The first framing: the first player's group (within 24 blocks), not the middle of the far one.
  const target = await page.evaluate(() => window.__viewer.cameraTarget());
  const inView = await page.evaluate((keys) => keys.map((k) => window.__viewer.onScreen(k)), [alice, 'bob', 'carol', 'dave', 'erin']);
  check(Math.abs(target[0] - 6) < 1 && Math.abs(target[2]) < 1 && inView.every(Boolean),
    `players: the camera looks at the first player's group (target ${target.map((c) => c.toFixed(1))}), not towards the player 200 blocks away, and sees all five whole (${inView})`);
  // The long FAIL banner: at most 30% of the scene, scrolled inside; a click collapses it to a line.
  const box = await page.evaluate(() => window.__viewer.statusBox());
  check(box.height <= 0.3 * box.scene + 1 && box.scrollHeight > box.height,
    `players: a 40-line FAIL banner takes ${box.height.toFixed(0)} of ${box.scene} px and scrolls (${box.scrollHeight} px of text)`);
  await page.click('#status');
  const folded = await page.evaluate(() => window.__viewer.statusBox());
  await page.click('#status');
  const unfolded = await page.evaluate(() => window.__viewer.statusBox());
  check(folded.collapsed && folded.height <= 24 && !unfolded.collapsed && unfolded.height === box.height,
    `players: a click collapses the banner to ${folded.height.toFixed(0)} px, another restores ${unfolded.height.toFixed(0)} px`);
  await page.screenshot({ path: join(artifacts, 'players.png') });
  // The browser reports each skin it could not load (bob's, carol's) as a console error; none other.
  const others = errors.filter((e) => !e.includes(`${base}/missing.png`) && !e.includes(`${base}/nocors.png`));
  check(others.length === 0, `players: no console errors but the two unreadable skins${others.length ? `: ${others.join(' | ')}` : ''}`);
  await page.close();
  // #skins=generated: no skin is fetched, every head is generated.
  const before = hits.length;
  const plain = await openPage(browser, `${match[1]}#skins=generated`);
  const plainHeads = await plain.page.evaluate(() => window.__viewer.heads());
  check(Object.values(plainHeads).every((h) => h === 'generated') && hits.length === before,
    `players: with #skins=generated every head is generated and no skin is requested (${hits.length - before} requests)`);
  await plain.page.close();
  child.kill('SIGTERM');
  skins.close();
}

/** How many pixels of the scene's part of a PNG screenshot (below the status line, left of the
 *  side panel, above the timeline) are not the scene's background colour (#1d2025), read by the
 *  browser: a blank canvas leaves the name tags only (about 1,500 pixels). */
async function scenePixels(browser, file) {
  const page = await browser.newPage();
  const b64 = readFileSync(file).toString('base64');
  const n = await page.evaluate(async (data) => {
    const img = new Image();
    img.src = `data:image/png;base64,${data}`;
    await img.decode();
    const c = document.createElement('canvas');
    c.width = img.width;
    c.height = img.height;
    const g = c.getContext('2d');
    g.drawImage(img, 0, 0);
    const d = g.getImageData(0, 60, Math.min(img.width - 320, 900), Math.min(img.height - 160, 600)).data;
    let drawn = 0;
    for (let i = 0; i < d.length; i += 4) if (Math.abs(d[i] - 0x1d) + Math.abs(d[i + 1] - 0x20) + Math.abs(d[i + 2] - 0x25) > 12) ++drawn;
    return drawn;
  }, b64);
  await page.close();
  return n;
}

async function screenshotRecipe(browser) {
  // The guide's screenshot recipe (docs/guide/viewer.md, "A screenshot without a screen") as
  // written, on a `view` of the two-player golden scenario: its address and file name replaced,
  // nothing else. Without the SwiftShader flags the scene would be blank.
  const guide = readFileSync(join(root, 'docs/guide/viewer.md'), 'utf8');
  const block = /### A screenshot without a screen[\s\S]*?```sh[^\n]*\n([\s\S]*?)```/.exec(guide)?.[1] ?? '';
  const { child, match } = await start(['view', join(root, 'tests/golden/two_player.json'), '--http', '127.0.0.1:0'], /view: (http:\/\/\S+)\n/);
  const shot = join(artifacts, 'recipe.png');
  const command = block.replace(/^chromium /, `${chromiumPath} `).replace('http://127.0.0.1:8080/', match[1]).replace('--screenshot=view.png', `--screenshot='${shot}'`);
  check(/^chromium /.test(block) && command.includes(match[1]) && command.includes(shot), `recipe: the guide's block runs chromium on a view's address (${JSON.stringify(block.split('\n')[0])})`);
  const status = await new Promise((done) => {
    const run = spawn('bash', ['-c', command], { stdio: 'ignore' });
    const timer = setTimeout(() => run.kill('SIGKILL'), 60000);
    run.on('exit', (code) => { clearTimeout(timer); done(code); });
  });
  let drawn = 0;
  try { drawn = await scenePixels(browser, shot); } catch { /* no picture: nothing drawn */ }
  check(status === 0 && drawn > 10000, `recipe: the guide's chromium line exits ${status} and its picture shows the scene (${drawn} pixels drawn, > 10,000)`);
  child.kill('SIGTERM');
}

async function manyDisplays(browser) {
  // 40 players play the showcase (5 displays each): 200 live displays in one scene.
  const dir = mkdtempSync(join(tmpdir(), 'emote-sim-viewer-'));
  const script = [];
  for (let i = 0; i < 40; ++i) {
    script.push({ tick: 0, op: 'player.join', player: `p${i}`, position: [(i % 8) * 3, 64, Math.floor(i / 8) * 3], yaw: 180 });
    script.push({ tick: 1, op: 'emote.play', player: `p${i}`, emote: 'viewer:showcase' });
  }
  const file = join(dir, 'crowd.json');
  writeFileSync(file, JSON.stringify({ scenario: 1, name: 'crowd', emotes: [join(root, 'tests/data/viewer/emotes')], ticks: 200, script }));
  const { child, match } = await start(['view', file, '--http', '127.0.0.1:0'], /view: (http:\/\/\S+)\n/);
  const { page, errors } = await openPage(browser, match[1]);
  await page.evaluate(() => window.__viewer.seek(5));
  const drawn = await page.evaluate(() => window.__viewer.drawnDisplays());
  const ms = await page.evaluate(() => window.__viewer.renderTime(30));
  check(drawn === 200, `200 displays drawn (${drawn}), ${ms.toFixed(1)} ms per render in software rendering`);
  // Frames per second while the crowd plays and the camera turns (every frame differs and is drawn),
  // counted with requestAnimationFrame over 3 s. Headless Chromium renders on the CPU (SwiftShader):
  // a lower bound for a desktop browser. A figure, not a verdict: speed is measured by benchmarks,
  // never by a timed test (a busy CI machine drew 28 frames/s where a quiet one draws 40), so the
  // figure is printed and written to the artifacts; what is checked is that frames keep coming.
  await page.evaluate(() => window.__viewer.seek(5));
  const fps = await page.evaluate(() => window.__viewer.measureFps(3000));
  writeFileSync(join(artifacts, 'crowd-fps.json'), JSON.stringify(fps, null, 2) + '\n');
  console.log(`note 200 displays: ${fps.renders.toFixed(1)} frames drawn per second while playing (${fps.fps.toFixed(1)} animation frames/s, slowest ${fps.worstMs.toFixed(0)} ms; also in crowd-fps.json beside the screenshots)`);
  check(fps.renders > 0, `200 displays: frames are drawn while playing (${fps.renders.toFixed(1)} per second)`);
  check(errors.length === 0, `crowd: no console errors${errors.length ? `: ${errors.join(' | ')}` : ''}`);
  await page.screenshot({ path: join(artifacts, 'crowd.png') });
  await page.close();
  child.kill('SIGTERM');
}

async function seekTimes(browser) {
  // A 12,000-tick scenario: alice waves, stops and waves again all along.
  const dir = mkdtempSync(join(tmpdir(), 'emote-sim-viewer-'));
  const script = [{ tick: 0, op: 'player.join', player: 'alice', position: [0, 64, 0], yaw: 180 }];
  for (let t = 1; t < 12000; t += 120) {
    script.push({ tick: t, op: 'emote.play', player: 'alice', emote: 'sample:wave', bypass: true });
    script.push({ tick: t + 100, op: 'emote.stop', player: 'alice' });
  }
  const file = join(dir, 'long.json');
  writeFileSync(file, JSON.stringify({ scenario: 1, name: 'long', emotes: [join(root, 'config/emotes')], ticks: 12000, script }));
  const { child, match } = await start(['view', file, '--http', '127.0.0.1:0'], /view: (http:\/\/\S+)\n/, 60000);
  const { page, errors } = await openPage(browser, match[1]);
  let worst = 0;
  for (const t of [11999, 5000, 7777, 130, 11000, 3, 9050]) {
    worst = Math.max(worst, await page.evaluate((tt) => window.__viewer.seekTime(tt), t));
  }
  check(worst < 200, `12,000 ticks: the slowest of 7 seeks took ${worst.toFixed(1)} ms (< 200)`);
  check(errors.length === 0, `12,000 ticks: no console errors${errors.length ? `: ${errors.join(' | ')}` : ''}`);
  await page.screenshot({ path: join(artifacts, 'long-timeline.png') });
  await page.close();
  child.kill('SIGTERM');
}

/** A line-protocol client that waits for its replies: `request(msg)` resolves with the reply to
 *  `msg.id`. */
function controller(port) {
  return new Promise((res, rej) => {
    const waiting = new Map();
    let text = '';
    const s = net.connect(port, '127.0.0.1', () => res({
      send: (o) => s.write(`${JSON.stringify(o)}\n`),
      request: (o) => new Promise((done) => { waiting.set(o.id, done); s.write(`${JSON.stringify(o)}\n`); }),
      close: () => new Promise((done) => { s.once('close', done); s.end(); }),
    }));
    s.on('error', rej);
    s.on('data', (d) => {
      text += d;
      for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n')) {
        const line = text.slice(0, nl);
        text = text.slice(nl + 1);
        const m = JSON.parse(line);
        if (m.op === 'reply' && waiting.has(m.id)) {
          waiting.get(m.id)(m);
          waiting.delete(m.id);
        }
      }
    });
  });
}

async function seekTimesRecording(browser) {
  // A 12,000-tick recording (issue 15 asks for a recording): a manual-clock server records alice
  // waving, stopping and waving again all along; `view` replays it and serves its timeline.
  const record = join(mkdtempSync(join(tmpdir(), 'emote-sim-viewer-')), 'long.ndjson');
  const server = await start(
    ['serve', '--clock', 'manual', '--listen', '127.0.0.1:0', '--emotes', join(root, 'config/emotes'), '--record', record],
    /listening on 127\.0\.0\.1:(\d+)[\s\S]*ready/);
  const c = await controller(Number(server.match[1]));
  c.send({ op: 'hello', protocol: 1 });
  c.send({ op: 'player.join', player: 'alice', position: [0, 64, 0], yaw: 180 });
  for (let t = 0; t < 12000; t += 120) {
    c.send({ op: 'emote.play', player: 'alice', emote: 'sample:wave', bypass: true });
    await c.request({ op: 'clock.step', id: `a${t}`, ticks: 100 });
    c.send({ op: 'emote.stop', player: 'alice' });
    await c.request({ op: 'clock.step', id: `b${t}`, ticks: 20 });
  }
  c.send({ op: 'bye' });
  await c.close();
  const exited = new Promise((r) => server.child.once('exit', r));
  server.child.kill('SIGTERM');
  await exited;
  const { child, match, output } = await start(['view', record, '--http', '127.0.0.1:0'], /view: (http:\/\/\S+)\n/, 60000);
  const timeline = await (await fetch(`${match[1]}timeline.json`)).json();
  check(timeline.ticks >= 12000 && /^PASS long\.ndjson: \d+ ticks replayed, identical/.test(output()),
    `12,000-tick recording: view replays ${timeline.ticks} ticks (${output().split('\n')[0]})`);
  const { page, errors } = await openPage(browser, match[1]);
  let worst = 0;
  for (const t of [11999, 5000, 7777, 130, 11000, 3, 9050]) {
    worst = Math.max(worst, await page.evaluate((tt) => window.__viewer.seekTime(tt), t));
  }
  const at = await page.evaluate(() => window.__viewer.tick);
  check(worst < 200 && at === 9050, `12,000-tick recording: the slowest of 7 seeks took ${worst.toFixed(1)} ms (< 200), at tick ${at}`);
  check(errors.length === 0, `12,000-tick recording: no console errors${errors.length ? `: ${errors.join(' | ')}` : ''}`);
  await page.close();
  child.kill('SIGTERM');
}

/** A minimal line-protocol bot. */
function bot(port) {
  return new Promise((res, rej) => {
    const s = net.connect(port, '127.0.0.1', () => res({
      send: (o) => s.write(`${JSON.stringify(o)}\n`),
      close: () => s.end(),
    }));
    s.on('error', rej);
    s.on('data', () => {});
  });
}

async function liveServer(browser, record) {
  const { child, output } = await start(
    ['serve', '--listen', '127.0.0.1:0', '--http', '127.0.0.1:0', '--emotes', join(root, 'config/emotes'), '--record', record],
    /viewer at (http:\/\/\S+)[\s\S]*ready/);
  const url = /viewer at (http:\/\/\S+)/.exec(output())[1];
  const port = Number(/listening on 127\.0\.0\.1:(\d+)/.exec(output())[1]);
  const { page, errors } = await openPage(browser, url);
  // The bot plays once the page follows the ticks, so the page sees the playback start.
  await page.waitForFunction(() => window.__viewer.subscribed, { timeout: 5000 }).catch(() => {});
  const b = await bot(port);
  b.send({ op: 'hello', protocol: 1 });
  b.send({ op: 'player.join', player: 'alice', position: [5.5, 64, -3.5], yaw: 180 });
  b.send({ op: 'player.join', player: 'bob', name: 'Bob_Builder', position: [8.5, 64, -3.5], yaw: 90 });
  b.send({ op: 'emote.play', player: 'alice', emote: 'sample:wave' });
  await page.waitForFunction(() => window.__viewer.framesReceived > 0 && window.__viewer.drawnDisplays() > 0, { timeout: 10000 }).catch(() => {});
  await new Promise((r) => setTimeout(r, 1500));
  const frames = await page.evaluate(() => window.__viewer.framesReceived);
  const drawn = await page.evaluate(() => window.__viewer.drawnDisplays());
  check(frames > 0 && drawn > 0, `(e) live: ${frames} frames over the WebSocket, ${drawn} displays drawn while the bot waves`);
  // Players stand where state.get says (frames do not say), and one that leaves is gone.
  const same = (a, b) => Array.isArray(a) && a.length === 3 && a.every((v, i) => Math.abs(v - b[i]) < 1e-9);
  await page.waitForFunction(() => Object.keys(window.__viewer.playerPlaces()).length === 2, { timeout: 5000 }).catch(() => {});
  const placed = await page.evaluate(() => window.__viewer.playerPlaces());
  check(same(placed.alice, [5.5, 64, -3.5]) && same(placed.bob, [8.5, 64, -3.5]),
    `live: the players are drawn where they stand (${JSON.stringify(placed)})`);
  // The tag shows the join's name (state.get's `name`), the key without one.
  await page.waitForFunction(() => window.__viewer.labels().bob?.[0] === 'Bob_Builder', { timeout: 5000 }).catch(() => {});
  const liveTags = await page.evaluate(() => window.__viewer.labels());
  check(liveTags.bob?.[0] === 'Bob_Builder' && liveTags.bob?.[1] === 'bob' && liveTags.alice?.[0] === 'alice',
    `live: name tags from state.get (${JSON.stringify(liveTags)})`);
  b.send({ op: 'player.leave', player: 'bob' });
  await page.waitForFunction(() => !('bob' in window.__viewer.playerPlaces()), { timeout: 5000 }).catch(() => {});
  const left = await page.evaluate(() => window.__viewer.playerPlaces());
  check(!('bob' in left) && 'alice' in left, `live: a player who left is no longer drawn (${JSON.stringify(Object.keys(left))})`);
  // The guide's picture of a live server (scripts/viewer-pictures): alice waving, the sparkline
  // with a line (two figures or more).
  await page.waitForFunction(() => window.__viewer.sparkline.length >= 2, { timeout: 5000 }).catch(() => {});
  await page.screenshot({ path: join(artifacts, 'live-waving.png') });
  // The timeline marks playback.*, partner.* and stops as the ticks arrive, as it does for a recording.
  await page.waitForFunction(() => window.__viewer.markers().includes('playback'), { timeout: 5000 }).catch(() => {});
  const started = await page.evaluate(() => window.__viewer.markerTitles());
  check(started.some((t) => / playback\.started alice sample:wave/.test(t)),
    `live: a playback.* marker while the bot waves (${JSON.stringify(started)})`);
  b.send({ op: 'emote.stop', player: 'alice' });
  await page.waitForFunction(() => window.__viewer.markers().includes('stop'), { timeout: 5000 }).catch(() => {});
  const stopped = await page.evaluate(() => window.__viewer.markerTitles());
  check(stopped.some((t) => /alice stopped: /.test(t)), `live: a stop marker with its reason after emote.stop (${JSON.stringify(stopped.filter((t) => /stopped/.test(t)))})`);
  // With nothing playing no frames come; the page still follows a player who walks.
  b.send({ op: 'player.update', player: 'alice', position: [6.5, 64, -1.5] });
  await page.waitForFunction(() => window.__viewer.playerPlaces().alice?.[0] === 6.5, { timeout: 5000 }).catch(() => {});
  const walked = await page.evaluate(() => window.__viewer.playerPlaces().alice);
  check(same(walked, [6.5, 64, -1.5]), `live: a player who walks while nothing plays is drawn where it went (${JSON.stringify(walked)})`);
  await page.waitForFunction(() => window.__viewer.sparkline.length > 0, { timeout: 5000 }).catch(() => {});
  const spark = await page.evaluate(() => window.__viewer.sparkline);
  check(spark.length > 0 && spark.every((x) => x >= 0 && x < 50), `live: the tick-duration sparkline has ${spark.length} figures from /metrics (${spark.map((x) => x.toFixed(3)).join(', ')} ms)`);
  check(errors.length === 0, `live: no console errors${errors.length ? `: ${errors.join(' | ')}` : ''}`);
  await page.screenshot({ path: join(artifacts, 'live.png') });
  b.close();
  await page.close();
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

const browser = await puppeteer.launch({
  executablePath: chromiumPath,
  headless: true,
  args: ['--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--ignore-gpu-blocklist'],
});
const watchdog = setTimeout(() => { console.log('FAIL browser tests took over 170 s'); process.exit(1); }, 170000);
try {
  await viewScenario(browser, join(root, 'tests/golden/two_player.json'), [2, 3, 5, 15], 'two-player', { hidden: true });
  await players(browser);
  await screenshotRecipe(browser);
  // Golden scenarios (tests/golden/): two players matching, and the showcase with its gold block.
  await viewScenario(browser, join(root, 'tests/golden/showcase.json'), [1, 30, 45, 20], 'showcase', { block: true });
  // A scenario whose expectation fails: a red mark, and the page says what failed.
  const failing = join(mkdtempSync(join(tmpdir(), 'emote-sim-viewer-')), 'failing.json');
  writeFileSync(failing, JSON.stringify({
    scenario: 1, name: 'failing', emotes: [join(root, 'tests/data/viewer/emotes')], ticks: 30,
    script: [
      { tick: 0, op: 'player.join', player: 'alice', position: [0, 64, 0], yaw: 180 },
      { tick: 1, op: 'emote.play', player: 'alice', emote: 'viewer:showcase' },
    ],
    expect: [
      { event: 'display.spawn', node: 'gold', kind: 'block', tick: 1 },
      { event: 'playback.stopped', player: 'alice', reason: 'MANUAL', by: 20 },
    ],
  }));
  const failed = await viewScenario(browser, failing, [1, 10], 'failing', { status: { text: /^FAIL: .*playback\.stopped/, error: true } });
  check(failed.expectations.filter((x) => !x.pass).length === 1, 'failing: the timeline has one failed and one passed expectation');
  await seekTimes(browser);
  await seekTimesRecording(browser);
  await manyDisplays(browser);
  // The live session's recording, replayed by `view`: the frame with the spawns, then later.
  const record = join(mkdtempSync(join(tmpdir(), 'emote-sim-viewer-')), 'live.ndjson');
  await liveServer(browser, record);
  await viewScenario(browser, record, (timeline) => {
    const frames = timeline.lines.filter((l) => l.op === 'frame');
    const spawn = frames.find((l) => l.events.some((e) => e.type === 'display.spawn'));
    return [spawn.tick, spawn.tick + 1, frames[frames.length - 1].tick];
  }, 'recording', { status: { text: /^live\.ndjson  \d+ ticks/, error: false } });
  // The same recording cut mid-line by a crash: viewed up to its last whole line, and the page
  // says so.
  const cut = record.replace(/live\.ndjson$/, 'cut.ndjson');
  writeFileSync(cut, `${readFileSync(record, 'utf8')}{"tick":99999,"conn":1,"msg":{"op":"pl`);
  await viewScenario(browser, cut, (timeline) => {
    const frames = timeline.lines.filter((l) => l.op === 'frame');
    return [frames.find((l) => l.events.some((e) => e.type === 'display.spawn')).tick];
  }, 'cut recording', { status: { text: /note: the recording's last line was incomplete and is ignored/, error: false } });
  check(offLoopback.length === 0, `no page requested anything off loopback${offLoopback.length ? `: ${offLoopback.slice(0, 3).join(' ')}` : ''}`);
} catch (e) {
  check(false, String(e.stack ?? e));
} finally {
  clearTimeout(watchdog);
  await browser.close();
  for (const c of children) c.kill('SIGKILL');
}
console.log(failures ? `${failures} failed` : 'all passed');
writeFileSync(resultFile, failures ? 'failed\n' : 'passed\n');
process.exit(failures ? 1 : 0);
