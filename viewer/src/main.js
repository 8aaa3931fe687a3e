// The emote-sim viewer (docs/guide/viewer.md): a timeline of a recording or scenario served by
// `emote-sim view` (GET /timeline.json), or a live server's frames over the observer WebSocket
// of `serve --http` (GET /ws, docs/spec/protocol.md §10), drawn with three.js.
import * as THREE from 'three';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';
import { mergeGeometries } from 'three/addons/utils/BufferGeometryUtils.js';
import { Batch, LabelAtlas, LineBatch, atlasMaterial, cellMapped, edgedMaterial, shaded } from './batch.js';
import { SNAPSHOT_EVERY, Timeline, emptyState, applyEvent, applyInput, markerOf } from './model.js';
import { HeadAtlas, SkinImages, drawGeneratedHead, drawSkinHead, headGeometry, seedOf, skinUrl } from './skins.js';

const $ = (id) => document.getElementById(id);
const hashParams = () => new URLSearchParams(location.hash.slice(1));

// ---------------------------------------------------------------------------------------------
// Colours: skin parts by body part, blocks by block id (a known table, else a hash).
const PART_COLOURS = {
  head: 0xf2c28b, body: 0x3b7dd8, torso: 0x3b7dd8, right_arm: 0xd84b3b, left_arm: 0xe0a030,
  right_leg: 0x3bb85a, left_leg: 0x8a4bd8, hat: 0xffe0b0, jacket: 0x6aa0f0,
};
export const BLOCK_COLOURS = {
  'minecraft:stone': 0x7f7f7f, 'minecraft:oak_stairs': 0xb8945f, 'minecraft:oak_planks': 0xb8945f,
  'minecraft:dirt': 0x866043, 'minecraft:grass_block': 0x5d9b3b, 'minecraft:gold_block': 0xf5d33c,
  'minecraft:diamond_block': 0x5fdbd4, 'minecraft:red_wool': 0xa12722, 'minecraft:glass': 0xc0e0f0,
};
function hashColour(s) {
  let h = 0;
  for (const c of s) h = (h * 31 + c.charCodeAt(0)) | 0;
  return new THREE.Color().setHSL(((h >>> 0) % 360) / 360, 0.55, 0.55).getHex();
}
function blockName(snbt) {
  const m = /Name:"?([a-z0-9_:./-]+)"?/.exec(snbt ?? '');
  return m ? (m[1].includes(':') ? m[1] : `minecraft:${m[1]}`) : 'minecraft:stone';
}
function itemName(snbt) {
  const m = /id:"?([a-z0-9_:./-]+)"?/.exec(snbt ?? '');
  return m ? m[1].replace(/^minecraft:/, '') : '(empty)';
}
function blockColour(snbt) {
  const n = blockName(snbt);
  return BLOCK_COLOURS[n] ?? hashColour(n);
}
function textOf(t) {
  if (t == null) return '';
  if (typeof t === 'string') return t;
  if (Array.isArray(t)) return t.map(textOf).join('');
  return (t.text ?? '') + (t.extra ? textOf(t.extra) : '');
}

// ---------------------------------------------------------------------------------------------
// Scene
const container = $('scene');
const renderer = new THREE.WebGLRenderer({ antialias: false });
renderer.setPixelRatio(1);
container.appendChild(renderer.domElement);
const scene = new THREE.Scene();
scene.background = new THREE.Color(0x1d2025);
const camera = new THREE.PerspectiveCamera(55, 1, 0.05, 2000);
camera.position.set(4, 67, 6);
const controls = new OrbitControls(camera, renderer.domElement);
// Draw only when something changed (the scene, the camera, the size), at most once per animation
// frame (the frame loop below).
let dirty = true;
const invalidate = () => { dirty = true; };
controls.addEventListener('change', invalidate);
controls.target.set(0, 65, 0);
const grid = new THREE.GridHelper(64, 64, 0x556070, 0x333a44);
grid.position.y = 64;
scene.add(grid);

function resize() {
  const w = container.clientWidth;
  const h = container.clientHeight;
  renderer.setSize(w, h);
  camera.aspect = w / Math.max(1, h);
  camera.updateProjectionMatrix();
  invalidate();
}
new ResizeObserver(resize).observe(container);
resize();

const unitBox = new THREE.BoxGeometry(1, 1, 1).translate(0.5, 0.5, 0.5);
const headBox = shaded(new THREE.BoxGeometry(0.5, 0.5, 0.5));
const shadedUnitBox = shaded(unitBox.clone());
// No lights: boxes are shaded by face (batch.js shaded()), block displays show their flat colour.
const SHADED = { vertexColors: true };
const unitQuad = new THREE.PlaneGeometry(1, 1);

// Displays: one batch per look (block cubes with edges drawn by their shader, skin-part cubes,
// labelled quads),
// rewritten whenever the scene changes (batch.js).
const displayRoot = new THREE.Group();
const blockBatch = new Batch(unitBox, edgedMaterial(), displayRoot);
const partBatch = new Batch(headBox, new THREE.MeshBasicMaterial(SHADED), displayRoot);
const atlas = new LabelAtlas();
const labelBatch = new Batch(unitQuad, atlasMaterial(atlas.texture), displayRoot, { cell: 4 });
const displayBatches = [blockBatch, partBatch, labelBatch];
const TEXT_SIZE = new THREE.Matrix4().makeScale(1, 0.25, 1);
const ITEM_SIZE = new THREE.Matrix4().makeScale(0.5, 0.5, 1);

const tmpA = new THREE.Matrix4();
const tmpB = new THREE.Matrix4();
const tmpV = new THREE.Vector3();
const tmpS = new THREE.Vector3();
const tmpQ = new THREE.Quaternion();
const tmpR = new THREE.Quaternion();
/** The display's transformation M (playback.md §4.4): the record's matrix, else T·L·S·R. */
function transformMatrix(tr, out) {
  if (!tr) return out.identity();
  if (Array.isArray(tr.matrix) && tr.matrix.length === 16) return out.fromArray(tr.matrix).transpose();
  const t = tr.translation ?? [0, 0, 0];
  const l = tr.left_rotation ?? [0, 0, 0, 1];
  const s = tr.scale ?? [1, 1, 1];
  const r = tr.right_rotation ?? [0, 0, 0, 1];
  out.compose(tmpV.fromArray(t), tmpQ.fromArray(l), tmpS.fromArray(s));
  return out.multiply(tmpA.makeRotationFromQuaternion(tmpR.fromArray(r)));
}
/** World matrix: the entity at its position, turned by its yaw (-yRot about Y), then M. */
function worldMatrix(d, out) {
  const p = d.position ?? [0, 0, 0];
  out.makeTranslation(p[0], p[1], p[2]);
  out.multiply(tmpA.makeRotationY(-((d.yaw ?? 0) * Math.PI) / 180));
  return out.multiply(transformMatrix(d.transform, tmpB));
}

const WHITE = new THREE.Color(1, 1, 1);
const colour = new THREE.Color();
const world = new THREE.Matrix4();
function syncDisplays(s) {
  if (atlas.full) atlas.reset(); // then every label in use is drawn again below
  for (const b of displayBatches) b.begin();
  for (const d of s.displays.values()) {
    if (!d.visible) continue;
    worldMatrix(d, world);
    if (d.kind === 'block') {
      blockBatch.add(d.handle, world, colour.setHex(blockColour(d.block)));
    } else if (d.kind === 'text') {
      labelBatch.add(d.handle, world.multiply(TEXT_SIZE), WHITE, { cell: atlas.cell(textOf(d.text), '#0008', '#fff') });
    } else if (d.skin) {
      partBatch.add(d.handle, world, colour.setHex(PART_COLOURS[d.skin.part] ?? hashColour(d.skin.part)));
    } else {
      labelBatch.add(d.handle, world.multiply(ITEM_SIZE), WHITE, { cell: atlas.cell(itemName(d.item), '#556b', '#fff') });
    }
  }
  for (const b of displayBatches) b.end();
}

// Players: a simple figure (legs and body in the player's colour, a head with its face) at its
// feet and yaw with a name tag; faint while an emote hides it. Four batches: the shown and the
// hidden figures' bodies and heads.
const playerRoot = new THREE.Group();
function tinted(geometry, factor) {
  const c = shaded(geometry).getAttribute('color');
  for (let i = 0; i < c.array.length; ++i) c.array[i] *= factor;
  return geometry;
}
const figure = mergeGeometries([
  tinted(new THREE.BoxGeometry(0.5, 0.75, 0.25).translate(0, 0.375, 0), 0.6),
  tinted(new THREE.BoxGeometry(0.5, 0.75, 0.25).translate(0, 1.125, 0), 1),
]);
// A hidden player is drawn faint and without depth, so the emote's displays that stand in for its
// body are what one sees (a denser figure muddles the pose).
const FAINT = { transparent: true, opacity: 0.12, depthWrite: false };
const shownPlayers = new Batch(figure, new THREE.MeshBasicMaterial(SHADED), playerRoot);
const hiddenPlayers = new Batch(figure, new THREE.MeshBasicMaterial({ ...SHADED, ...FAINT }), playerRoot);
// Heads (skins.js): the skin of the player's skin_textures when the browser can load it (not with
// #skins=generated in the address), else a face generated from its uuid or key; the front (+Z)
// is the way the player looks.
const HEAD_CENTRE = [0, 1.75, 0];
const headAtlas = new HeadAtlas();
const skinImages = new SkinImages(() => { if (state.tick >= 0 || live) { syncPlayers(state); invalidate(); } });
const fetchSkins = hashParams().get('skins') !== 'generated';
const head = shaded(headGeometry(HEAD_CENTRE));
const headMaterial = (extra) => cellMapped(new THREE.MeshBasicMaterial({ ...SHADED, map: headAtlas.texture, ...extra }));
const shownHeads = new Batch(head, headMaterial({}), playerRoot, { cell: 4 });
const hiddenHeads = new Batch(head, headMaterial(FAINT), playerRoot, { cell: 4 });
/** The player's head: its atlas cell, where it comes from ('skin', 'generated' while a skin
 *  loads or when there is none or it failed) and the body's colour. */
function headOf(p) {
  const url = fetchSkins ? skinUrl(p.skin_textures) : null;
  const skin = url ? skinImages.get(url) : null;
  if (skin?.state === 'loaded') {
    return { cell: headAtlas.cell(`skin ${url}`, (g, x, y) => drawSkinHead(g, x, y, skin.image)), from: 'skin',
      body: skin.torso ?? colour.setHex(hashColour(p.name)) };
  }
  const seed = seedOf(p.uuid ?? p.name);
  return { cell: headAtlas.cell(`generated ${seed}`, (g, x, y) => drawGeneratedHead(g, x, y, seed)),
    from: skin?.state === 'loading' ? 'loading' : 'generated', body: colour.setHex(hashColour(p.name)) };
}
/** name -> {position (Vector3, the feet), label (the name tag's element)} */
const players = new Map();
const followOptions = new Set();
function syncPlayers(s) {
  for (const [name, p] of players) {
    if (!s.players.has(name)) {
      p.label.remove();
      players.delete(name);
    }
  }
  shownPlayers.begin();
  hiddenPlayers.begin();
  shownHeads.begin();
  hiddenHeads.begin();
  if (headAtlas.full) headAtlas.reset(); // then every head in use is drawn again below
  for (const p of s.players.values()) {
    let drawn = players.get(p.name);
    if (!drawn) {
      const label = document.createElement('div');
      label.className = 'label';
      label.textContent = p.label ?? p.name;
      label.title = p.name; // the key (a UUID for a proxy's players)
      $('labels').appendChild(label);
      drawn = { position: new THREE.Vector3(), label, hidden: false, x: NaN, y: NaN };
      players.set(p.name, drawn);
    }
    const tag = p.label ?? p.name;
    if (drawn.label.textContent !== tag) drawn.label.textContent = tag; // player.update's name
    drawn.position.fromArray(p.position);
    if (drawn.hidden !== !!p.hidden) {
      drawn.hidden = !!p.hidden;
      drawn.label.classList.toggle('hidden-player', drawn.hidden);
    }
    world.makeRotationY(-((p.yaw ?? 0) * Math.PI) / 180).setPosition(drawn.position);
    const h = headOf(p);
    drawn.head = h.from;
    (p.hidden ? hiddenPlayers : shownPlayers).add(p.name, world, h.body);
    (p.hidden ? hiddenHeads : shownHeads).add(p.name, world, WHITE, { cell: h.cell });
    if (!followOptions.has(p.name)) {
      followOptions.add(p.name);
      $('follow').add(new Option(p.label && p.label !== p.name ? `${p.label} (${p.name})` : p.name, p.name));
    }
  }
  shownPlayers.end();
  hiddenPlayers.end();
  shownHeads.end();
  hiddenHeads.end();
}

// A two-player offer: the 2-block match radius around the initiator and a line of sight to the
// nearest other player (players.md §7).
const offerRoot = new THREE.Group();
const ringGeometry = new THREE.RingGeometry(1.95, 2.05, 64).rotateX(-Math.PI / 2);
const rings = new Batch(ringGeometry, new THREE.MeshBasicMaterial({ side: THREE.DoubleSide }), offerRoot);
const sightLines = new LineBatch(new THREE.LineBasicMaterial({ color: 0x66ff99 }), offerRoot);
const RING_COLOUR = new THREE.Color(0x6699ff);
const eyeA = new THREE.Vector3();
const eyeB = new THREE.Vector3();
function syncOffers(s) {
  rings.begin();
  sightLines.begin();
  for (const who of s.offers.values()) {
    const p = s.players.get(who);
    if (!p) continue;
    world.makeTranslation(p.position[0], p.position[1] + 0.02, p.position[2]);
    rings.add(who, world, RING_COLOUR);
    let nearest = null;
    let best = Infinity;
    for (const q of s.players.values()) {
      if (q.name === who) continue;
      const d = Math.hypot(q.position[0] - p.position[0], q.position[1] - p.position[1], q.position[2] - p.position[2]);
      if (d < best) [nearest, best] = [q, d];
    }
    if (nearest) {
      eyeA.fromArray(p.position).y += 1.62;
      eyeB.fromArray(nearest.position).y += 1.62;
      sightLines.addSegment(eyeA, eyeB);
    }
  }
  rings.end();
  sightLines.end();
}

// The blocks set with world.blocks: solid grey, passable pale, water blue and translucent.
const blockRoot = new THREE.Group();
const solidBlocks = new Batch(shadedUnitBox, new THREE.MeshBasicMaterial(SHADED), blockRoot);
const waterBlocks = new Batch(shadedUnitBox, new THREE.MeshBasicMaterial({ ...SHADED, transparent: true, opacity: 0.5 }), blockRoot);
const WORLD_COLOURS = { solid: 0x8b8f96, passable: 0xc8d070, water: 0x3070d0 };
function syncBlocks(blocks) {
  if (blockRoot.userData.blocks === blocks) return;
  blockRoot.userData.blocks = blocks;
  solidBlocks.begin();
  waterBlocks.begin();
  let budget = 20000;
  for (const e of blocks) {
    const c = WORLD_COLOURS[e.block];
    if (c == null) continue;
    const from = e.at ?? e.from;
    const to = e.at ?? e.to;
    if (!from || !to) continue;
    const batch = e.block === 'water' ? waterBlocks : solidBlocks;
    colour.setHex(c);
    for (let x = Math.min(from[0], to[0]); x <= Math.max(from[0], to[0]) && budget > 0; ++x)
      for (let y = Math.min(from[1], to[1]); y <= Math.max(from[1], to[1]) && budget > 0; ++y)
        for (let z = Math.min(from[2], to[2]); z <= Math.max(from[2], to[2]) && budget > 0; ++z, --budget)
          batch.add(null, world.makeTranslation(x, y, z), colour);
  }
  solidBlocks.end();
  waterBlocks.end();
}
scene.add(displayRoot, playerRoot, blockRoot, offerRoot);

// ---------------------------------------------------------------------------------------------
// The events panel, the selection, the timeline
let currentEvents = [];
function renderEvents() {
  const type = $('filter-type').value.trim();
  const session = $('filter-session').value.trim();
  const ul = $('events');
  ul.textContent = '';
  for (const e of currentEvents) {
    if (type && !e.type.startsWith(type)) continue;
    if (session && String(e.session ?? '') !== session) continue;
    const li = document.createElement('li');
    li.dataset.type = e.type;
    const b = document.createElement('b');
    b.textContent = e.type;
    li.append(b, ' ', JSON.stringify(e, (k, v) => (k === 'type' || k === 'matrix' ? undefined : v)));
    ul.appendChild(li);
  }
}
$('filter-type').addEventListener('input', renderEvents);
$('filter-session').addEventListener('input', renderEvents);

let state = emptyState();
const raycaster = new THREE.Raycaster();
const pointer = new THREE.Vector2();
renderer.domElement.addEventListener('click', (ev) => {
  const r = renderer.domElement.getBoundingClientRect();
  pointer.set(((ev.clientX - r.left) / r.width) * 2 - 1, -((ev.clientY - r.top) / r.height) * 2 + 1);
  raycaster.setFromCamera(pointer, camera);
  const hit = raycaster.intersectObjects(displayBatches.map((b) => b.mesh), false)[0];
  if (!hit) return;
  const batch = displayBatches.find((b) => b.mesh === hit.object);
  const d = state.displays.get(batch.handles[hit.instanceId]);
  if (!d) return;
  $('selection').textContent = JSON.stringify({ handle: d.handle, node: d.node, session: d.session, kind: d.kind,
    position: d.position, yaw: d.yaw, transform: d.transform }, null, 1);
});

let timeline = null;
let live = null;
let tick = 0;
let playing = false;
let framesReceived = 0;
let rendered = 0;

/** Point the camera at the action the first time there are players: the first player to join
 * and those within 24 blocks of it (not the middle of players far apart), from a distance that
 * fits them; then, once, at the first displays, unless the camera was moved meanwhile. */
let framed = false;
let framedDisplays = false;
let cameraMoved = false;
controls.addEventListener('start', () => { cameraMoved = true; });
function aim(points, minDistance) {
  const c = new THREE.Vector3();
  for (const p of points) c.add(p);
  c.divideScalar(points.length);
  let radius = 0;
  for (const p of points) radius = Math.max(radius, p.distanceTo(c));
  // Far enough that a sphere of that radius fits the narrower of the view's angles.
  const half = Math.min(camera.fov / 2, THREE.MathUtils.radToDeg(Math.atan(Math.tan(THREE.MathUtils.degToRad(camera.fov / 2)) * camera.aspect)));
  const d = Math.max(minDistance, (radius * 1.1) / Math.sin(THREE.MathUtils.degToRad(half)));
  controls.target.copy(c);
  camera.position.copy(c).add(new THREE.Vector3(0.45 * d, 0.35 * d, 0.8 * d));
  return c;
}
function frameOnce(s) {
  if (!framed && s.players.size > 0) {
    framed = true;
    const first = new THREE.Vector3(...s.players.values().next().value.position);
    const near = [...s.players.values()].map((p) => new THREE.Vector3(...p.position))
      .filter((v) => v.distanceTo(first) <= 24);
    const c = aim(near.map((v) => v.setY(v.y + 1)), 5);
    grid.position.set(Math.round(c.x), Math.floor(c.y - 2), Math.round(c.z));
  }
  if (framed && !framedDisplays && !cameraMoved && !$('follow').value && s.displays.size > 0) {
    framedDisplays = true;
    const points = [...s.displays.values()].filter((d) => Array.isArray(d.position))
      .map((d) => new THREE.Vector3(...d.position).setY(d.position[1] + 1));
    if (points.length) aim(points, 5);
  }
}

function show(s) {
  state = s;
  dirty = true;
  frameOnce(s);
  syncDisplays(s);
  syncPlayers(s);
  syncBlocks(s.blocks);
  syncOffers(s);
  currentEvents = timeline ? timeline.eventsAt(s.tick) : (live?.events.get(s.tick) ?? []);
  renderEvents();
  $('tick-text').textContent = `tick ${s.tick}`;
  $('tick-label').textContent = `(tick ${s.tick})`;
  $('seek').value = String(s.tick);
}

function seek(t) {
  if (!timeline) return;
  tick = Math.max(0, Math.min(timeline.ticks - 1, t | 0));
  // Playing moves forward a tick or two at a time: from the state shown rather than a snapshot.
  const forward = state.tick >= 0 && tick > state.tick && tick - state.tick < SNAPSHOT_EVERY;
  show(forward ? timeline.advance(state, tick) : timeline.stateAt(tick));
  if (!playing) writeHash();
}
/** The address follows the tick (not while playing: browsers throttle frequent history updates). */
function writeHash() {
  const h = hashParams();
  h.set('tick', String(tick));
  history.replaceState(null, '', `#${h}`);
}

$('seek').addEventListener('input', () => seek(Number($('seek').value)));
$('back').addEventListener('click', () => seek(tick - 1));
$('fwd').addEventListener('click', () => seek(tick + 1));
function setPlaying(on) {
  playing = on;
  $('play').textContent = playing ? '❚❚' : '▶';
  if (!playing && timeline) writeHash();
}
$('play').addEventListener('click', () => setPlaying(!playing));
$('follow').addEventListener('change', invalidate);

// Markers above the seek slider, placed over the track's range of ticks: the whole timeline, or in
// live mode the ticks since the page connected (the range grows as frames arrive, so the markers
// are placed again at most once per animation frame).
const track = { from: 0, to: 0, placed: true };
const LIVE_MARKERS_KEPT = 1000;
function placeMarker(el) {
  el.style.left = `${(100 * (Number(el.dataset.tick) - track.from)) / Math.max(1, track.to - track.from)}%`;
}
function setTrack(from, to) {
  if (from === track.from && to === track.to) return;
  track.from = from;
  track.to = to;
  track.placed = false;
  $('seek').min = String(from);
  $('seek').max = String(to);
}
function placeMarkers() {
  if (track.placed) return;
  track.placed = true;
  for (const el of $('markers').children) placeMarker(el);
}
function addMarkers(markers) {
  const box = $('markers');
  for (const m of markers) {
    const el = document.createElement('div');
    el.className = `marker ${m.kind}`;
    el.dataset.tick = String(m.tick);
    el.title = `tick ${m.tick}: ${m.text}`;
    el.addEventListener('click', () => seek(m.tick));
    placeMarker(el);
    box.appendChild(el);
  }
  // A live server runs for days: keep the latest markers only.
  while (live && box.childElementCount > LIVE_MARKERS_KEPT) box.firstElementChild.remove();
}

// The status banner (a FAIL verdict can run to many lines): at most 30% of the scene, scrolled
// inside; a click collapses it to its first line and back.
function status(text, error = false) {
  const s = $('status');
  s.textContent = text;
  s.classList.toggle('error', error);
  s.title = 'click to collapse or expand';
}
$('status').addEventListener('click', () => $('status').classList.toggle('collapsed'));

// ---------------------------------------------------------------------------------------------
// The frame loop: playback at 20 ticks per second times the speed, follow, labels.
let last = performance.now();
let acc = 0;
const v = new THREE.Vector3();
function frame(now) {
  const dt = Math.min(0.25, (now - last) / 1000);
  last = now;
  if (timeline && playing) {
    acc += dt * 20 * Number($('speed').value);
    if (acc >= 1) {
      const n = Math.floor(acc);
      acc -= n;
      const end = tick + n >= timeline.ticks - 1;
      seek(tick + n);
      if (end) setPlaying(false);
    }
  }
  const followed = players.get($('follow').value);
  if (followed) {
    v.copy(followed.position).setY(followed.position.y + 1).sub(controls.target);
    if (v.lengthSq() > 0) {
      controls.target.add(v);
      camera.position.add(v);
    }
  }
  controls.update(); // dispatches 'change' when the camera moved
  placeMarkers();
  if (dirty) {
    dirty = false;
    renderer.render(scene, camera);
    ++rendered;
    placeLabels();
  }
  requestAnimationFrame(frame);
}
/** The players' name tags above their heads, moved only when they moved on screen. */
function placeLabels() {
  const w = container.clientWidth;
  const h = container.clientHeight;
  for (const p of players.values()) {
    v.copy(p.position).setY(p.position.y + 2.3).project(camera);
    const x = v.z < 1 ? Math.round(((v.x + 1) / 2) * w) : NaN;
    const y = Math.round(((1 - v.y) / 2) * h);
    if (x === p.x && y === p.y) continue;
    if (Number.isNaN(x) !== Number.isNaN(p.x)) p.label.style.display = Number.isNaN(x) ? 'none' : '';
    p.x = x;
    p.y = y;
    if (Number.isNaN(x)) continue;
    p.label.style.left = `${x}px`;
    p.label.style.top = `${y}px`;
  }
}
requestAnimationFrame(frame);

// ---------------------------------------------------------------------------------------------
// Modes
async function startTimeline(data) {
  if (data.failure) status(`FAIL: ${data.failure}`, true);
  const t0 = performance.now();
  timeline = new Timeline(data);
  setTrack(0, timeline.ticks - 1);
  addMarkers(timeline.markers);
  for (const x of data.expectations ?? []) {
    const at = typeof x.tick === 'number' ? x.tick : timeline.ticks - 1;
    addMarkers([{ tick: at, kind: x.pass ? 'pass' : 'fail', text: `${x.pass ? 'PASS' : 'FAIL'} ${x.text}` }]);
  }
  if (!data.failure) status(`${data.name ?? ''}  ${timeline.ticks} ticks (loaded in ${Math.round(performance.now() - t0)} ms)${data.note ? `\nnote: ${data.note}` : ''}`);
  $('spark-box').style.display = 'none';
  const h = hashParams();
  if (h.has('session')) $('filter-session').value = h.get('session');
  if (h.has('type')) $('filter-type').value = h.get('type');
  seek(h.has('tick') ? Number(h.get('tick')) : 0);
}

function startLive() {
  live = { events: new Map(), first: 0, latest: -1, state: emptyState() };
  $('play').disabled = true;
  $('back').disabled = true;
  $('fwd').disabled = true;
  const token = hashParams().get('token') ?? '';
  const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws${token ? `?token=${encodeURIComponent(token)}` : ''}`;
  const ws = new WebSocket(url);
  status('connecting…');
  ws.onopen = () => {
    ws.send(JSON.stringify({ op: 'subscribe', id: 'sub', matrix: true }));
    ws.send(JSON.stringify({ op: 'state.get', id: 'state' }));
  };
  ws.onclose = () => status('disconnected from the server', true);
  ws.onmessage = (m) => {
    let msg;
    try { msg = JSON.parse(m.data); } catch { return; }
    if (msg.op === 'welcome') {
      status(`live: ${msg.server}, ${msg.clock} clock`);
    } else if (msg.op === 'reply' && msg.id === 'sub' && msg.ok !== false) {
      live.subscribed = true;
    } else if (msg.op === 'reply' && msg.ok === false) {
      status(`server: ${msg.error?.code}: ${msg.error?.message}`, true);
    } else if (msg.op === 'reply' && String(msg.id).startsWith('state')) {
      // Frames do not say where players stand or when they leave: state.get does (its players
      // with dimension, position and yaw, protocol.md §4), polled below. A player it no longer
      // lists has left.
      const listed = new Set();
      for (const p of msg.players ?? []) {
        const key = p.player ?? p.id;
        listed.add(key);
        const old = live.state.players.get(key);
        if (old) {
          if (Array.isArray(p.position)) old.position = p.position;
          if (typeof p.yaw === 'number') old.yaw = p.yaw;
          if (typeof p.name === 'string' && p.name) old.label = p.name;
        } else {
          // The tag shows the join's name when it gave one (state.get's `name`), else the key.
          applyInput(live.state, { op: 'player.join', player: key, name: p.name, position: p.position, yaw: p.yaw });
        }
      }
      for (const key of [...live.state.players.keys()]) if (!listed.has(key)) live.state.players.delete(key);
      if (live.state.tick < 0 && typeof msg.tick === 'number') live.state.tick = msg.tick;
      if (msg.id === 'state') for (const d of msg.displays ?? []) applyEvent(live.state, { type: 'display.spawn', ...d });
      show(live.state); // an idle server sends no frames: the players are drawn all the same
    } else if (msg.op === 'frame') {
      ++framesReceived;
      live.events.set(msg.tick, msg.events ?? []);
      if (live.events.size > 200) live.events.delete(live.events.keys().next().value);
      const marks = [];
      for (const e of msg.events ?? []) {
        applyEvent(live.state, e);
        const m = markerOf(e);
        if (m) marks.push({ tick: msg.tick, ...m });
      }
      if (live.latest < 0) live.first = msg.tick;
      live.latest = msg.tick;
      live.state.tick = msg.tick;
      setTrack(live.first, msg.tick);
      addMarkers(marks);
      show(live.state);
    }
  };
  setInterval(() => { if (ws.readyState === 1) ws.send(JSON.stringify({ op: 'state.get', id: 'state-poll' })); }, 500);
  // The tick-duration sparkline from the server's histogram (GET /metrics).
  const spark = sparkValues;
  let prev = null;
  setInterval(async () => {
    try {
      const text = await (await fetch('/metrics')).text();
      const sum = Number(/^emote_sim_tick_duration_seconds_sum (\S+)/m.exec(text)?.[1]);
      const count = Number(/^emote_sim_tick_duration_seconds_count (\S+)/m.exec(text)?.[1]);
      if (prev && count > prev.count) spark.push((1000 * (sum - prev.sum)) / (count - prev.count));
      prev = { sum, count };
      if (spark.length > 60) spark.shift();
      drawSpark(spark);
    } catch { /* the next poll tries again */ }
  }, 1000);
  window.__viewer.ws = ws;
}

const sparkValues = [];
function drawSpark(values) {
  const c = $('spark');
  const g = c.getContext('2d');
  g.clearRect(0, 0, c.width, c.height);
  if (!values.length) return;
  const max = Math.max(...values, 0.05);
  g.strokeStyle = '#6cf';
  g.beginPath();
  values.forEach((y, i) => {
    const px = (i / Math.max(1, values.length - 1)) * c.width;
    const py = c.height - (y / max) * (c.height - 2) - 1;
    if (i) g.lineTo(px, py); else g.moveTo(px, py);
  });
  g.stroke();
  $('spark-text').textContent = `last ${values.at(-1).toFixed(3)} ms per tick, max ${max.toFixed(3)} ms`;
}

// ---------------------------------------------------------------------------------------------
/** The canvas as drawn now: RGBA bytes, row by row from the top. */
function canvasPixels() {
  renderer.render(scene, camera);
  const c = document.createElement('canvas');
  c.width = renderer.domElement.width;
  c.height = renderer.domElement.height;
  const g = c.getContext('2d');
  g.drawImage(renderer.domElement, 0, 0);
  return { data: g.getImageData(0, 0, c.width, c.height).data, width: c.width };
}

// The test hook (viewer/test/browser.mjs): what is drawn, against what the model says is live.
window.__viewer = {
  ready: false,
  mode: null,
  get tick() { return state.tick; },
  get framesReceived() { return framesReceived; },
  get subscribed() { return live?.subscribed === true; },
  get sparkline() { return [...sparkValues]; },
  /** The mean time of `n` renders of the current scene, in ms. */
  renderTime(n = 30) {
    const gl = renderer.getContext();
    const px = new Uint8Array(4);
    const t0 = performance.now();
    for (let i = 0; i < n; ++i) {
      renderer.render(scene, camera);
      gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, px); // wait for the GPU
    }
    return (performance.now() - t0) / n;
  },
  /** Frames per second over `ms` of playback at `speed` with the camera turning (so every frame
   *  differs): animation frames, and the frames actually rendered, per second. */
  measureFps(ms = 3000, speed = '1') {
    return new Promise((done) => {
      $('speed').value = speed;
      setPlaying(true);
      controls.autoRotate = true;
      controls.autoRotateSpeed = 20;
      const t0 = performance.now();
      const r0 = rendered;
      let frames = 0;
      let prev = t0;
      let worst = 0;
      const count = (now) => {
        ++frames;
        worst = Math.max(worst, now - prev);
        prev = now;
        if (now - t0 < ms) { requestAnimationFrame(count); return; }
        setPlaying(false);
        controls.autoRotate = false;
        const s = (now - t0) / 1000;
        done({ fps: frames / s, renders: (rendered - r0) / s, worstMs: worst, tick: state.tick });
      };
      requestAnimationFrame(count);
    });
  },
  offersDrawn() { return rings.n; },
  /** Where each drawn player stands: its feet, by key. */
  playerPlaces() { return Object.fromEntries([...players].map(([name, p]) => [name, p.position.toArray()])); },
  /** Where each player's head comes from: 'skin', 'generated' or 'loading' (its skin URL). */
  heads() { return Object.fromEntries([...players].map(([name, p]) => [name, p.head])); },
  /** The colours drawn for a player's 8×8 face texels (its skin's (8,8)–(16,16), row by row),
   *  seen from in front of its face with nothing but the players drawn; the camera is restored. */
  faceTexels(name) {
    const p = state.players.get(name);
    if (!p) return null;
    const saved = { position: camera.position.clone(), target: controls.target.clone(), fov: camera.fov, near: camera.near };
    const turn = new THREE.Matrix4().makeRotationY(-((p.yaw ?? 0) * Math.PI) / 180).setPosition(...p.position);
    const centre = new THREE.Vector3(...HEAD_CENTRE).applyMatrix4(turn);
    // 0.35 blocks before the face, wide enough to see it whole; a neighbour's head closer than
    // the near plane is clipped.
    camera.position.copy(new THREE.Vector3(HEAD_CENTRE[0], HEAD_CENTRE[1], 0.6).applyMatrix4(turn));
    camera.fov = 90;
    camera.near = 0.3;
    camera.updateProjectionMatrix();
    camera.lookAt(centre);
    const others = [displayRoot, blockRoot, offerRoot, grid];
    for (const o of others) o.visible = false;
    const { data, width } = canvasPixels();
    const out = [];
    for (let j = 0; j < 8; ++j) {
      for (let i = 0; i < 8; ++i) {
        const q = new THREE.Vector3(-0.25 + (i + 0.5) / 16, HEAD_CENTRE[1] + 0.25 - (j + 0.5) / 16, 0.251).applyMatrix4(turn).project(camera);
        const x = Math.round(((q.x + 1) / 2) * renderer.domElement.width);
        const y = Math.round(((1 - q.y) / 2) * renderer.domElement.height);
        const k = 4 * (y * width + x);
        out.push([data[k], data[k + 1], data[k + 2]]);
      }
    }
    for (const o of others) o.visible = true;
    camera.position.copy(saved.position);
    camera.fov = saved.fov;
    camera.near = saved.near;
    camera.updateProjectionMatrix();
    controls.target.copy(saved.target);
    controls.update();
    invalidate();
    return out;
  },
  /** Line-of-sight segments drawn (one per open offer with another player present). */
  sightLinesDrawn() { return sightLines.n / 2; },
  /** Where the camera looks, and a player's feet (for the follow check). */
  cameraTarget() { return controls.target.toArray(); },
  playerPosition(name) { return players.get(name)?.position.toArray() ?? null; },
  /** Whether a player's feet and the top of its head are inside the canvas. */
  onScreen(name) {
    const p = players.get(name);
    if (!p) return false;
    camera.updateMatrixWorld(); // as the next render will see it
    return [0, 2].every((dy) => {
      const q = p.position.clone().setY(p.position.y + dy).project(camera);
      return q.z < 1 && Math.abs(q.x) <= 1 && Math.abs(q.y) <= 1;
    });
  },
  seek(t) { seek(t); renderer.render(scene, camera); return state.tick; },
  seekTime(t) { const t0 = performance.now(); seek(t); return performance.now() - t0; },
  /** Display instances drawn (hidden displays are not drawn). */
  drawnDisplays() { return displayBatches.reduce((n, b) => n + b.mesh.count, 0); },
  /** What click-to-inspect shows. */
  selection() { return $('selection').textContent; },
  visibleDisplays() { return [...state.displays.values()].filter((d) => d.visible).length; },
  panelEvents() { return [...$('events').children].map((li) => li.dataset.type); },
  tickEvents() { return currentEvents.map((e) => e.type); },
  displays() { return [...state.displays.values()].map((d) => ({ handle: d.handle, kind: d.kind, block: d.block, visible: d.visible })); },
  blockColour(snbt) { return blockColour(snbt); },
  /** Where the centre of a block display is on the canvas, in canvas pixels. */
  project(handle) {
    const d = state.displays.get(handle);
    if (!d) return null;
    const p = new THREE.Vector3(0.5, 0.5, 0.5).applyMatrix4(worldMatrix(d, new THREE.Matrix4()));
    p.project(camera);
    return { x: Math.round(((p.x + 1) / 2) * renderer.domElement.width), y: Math.round(((1 - p.y) / 2) * renderer.domElement.height) };
  },
  lookAt(handle, distance = 4) {
    const d = state.displays.get(handle);
    const p = new THREE.Vector3(0.5, 0.5, 0.5).applyMatrix4(worldMatrix(d, new THREE.Matrix4()));
    controls.target.copy(p);
    camera.position.copy(p).add(new THREE.Vector3(distance * 0.6, distance * 0.5, distance));
    controls.update();
    renderer.render(scene, camera);
  },
  pixel(x, y) {
    const { data, width } = canvasPixels();
    const i = 4 * (y * width + x);
    return [data[i], data[i + 1], data[i + 2]];
  },
  distinctColours() {
    const { data } = canvasPixels();
    const set = new Set();
    for (let i = 0; i < data.length; i += 4 * 97) set.add((data[i] << 16) | (data[i + 1] << 8) | data[i + 2]);
    return set.size;
  },
  /** The players' name tags: key -> [shown text, title]. */
  labels() { return Object.fromEntries([...players].map(([name, p]) => [name, [p.label.textContent, p.label.title]])); },
  /** Player figures drawn shown and hidden, and how opaque a hidden one is. */
  figures() {
    return { shown: shownPlayers.mesh.count, hidden: hiddenPlayers.mesh.count, hiddenHeads: hiddenHeads.mesh.count,
      hiddenOpacity: hiddenPlayers.material.opacity, hiddenDepthWrite: hiddenPlayers.material.depthWrite };
  },
  /** The status banner's box and the scene's height, in CSS pixels. */
  statusBox() {
    const b = $('status');
    return { height: b.getBoundingClientRect().height, scrollHeight: b.scrollHeight, scene: container.clientHeight,
      collapsed: b.classList.contains('collapsed') };
  },
  /** The status line over the scene (name, note, failure) and whether it shows an error. */
  status() { return { text: $('status').textContent, error: $('status').classList.contains('error') }; },
  markers() { return [...document.querySelectorAll('#markers .marker')].map((m) => m.className.replace('marker ', '')); },
  markerTitles() { return [...document.querySelectorAll('#markers .marker')].map((m) => m.title); },
};

(async () => {
  // What this server serves (`view`: a timeline; `serve --http`: live frames).
  let what;
  try {
    const res = await fetch('/viewer.json');
    if (!res.ok) throw new Error(`GET /viewer.json: ${res.status}`);
    what = await res.json();
  } catch (e) {
    status(`this page needs emote-sim view or serve --http: ${e.message}`, true);
    window.__viewer.ready = true;
    return;
  }
  window.__viewer.mode = what.mode;
  if (what.mode === 'timeline') {
    const res = await fetch('/timeline.json');
    await startTimeline(await res.json());
  } else {
    startLive();
  }
  window.__viewer.ready = true;
})();
