// The emote-sim viewer (docs/guide/viewer.md): a timeline of a recording or scenario served by
// `emote-sim view` (GET /timeline.json), or a live server's frames over the observer WebSocket
// of `serve --http` (GET /ws, docs/spec/protocol.md §10), drawn with three.js.
import * as THREE from 'three';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';
import { Timeline, emptyState, applyEvent, applyInput, markerOf } from './model.js';

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
const renderer = new THREE.WebGLRenderer({ antialias: false, preserveDrawingBuffer: true });
renderer.setPixelRatio(1);
container.appendChild(renderer.domElement);
const scene = new THREE.Scene();
scene.background = new THREE.Color(0x1d2025);
const camera = new THREE.PerspectiveCamera(55, 1, 0.05, 2000);
camera.position.set(4, 67, 6);
const controls = new OrbitControls(camera, renderer.domElement);
controls.target.set(0, 65, 0);
scene.add(new THREE.HemisphereLight(0xffffff, 0x445566, 2.2));
const sun = new THREE.DirectionalLight(0xffffff, 1.2);
sun.position.set(5, 10, 3);
scene.add(sun);
const grid = new THREE.GridHelper(64, 64, 0x556070, 0x333a44);
grid.position.y = 64;
scene.add(grid);
const displayRoot = new THREE.Group();
const playerRoot = new THREE.Group();
const blockRoot = new THREE.Group();
const offerRoot = new THREE.Group();
scene.add(displayRoot, playerRoot, blockRoot, offerRoot);

function resize() {
  const w = container.clientWidth;
  const h = container.clientHeight;
  renderer.setSize(w, h);
  camera.aspect = w / Math.max(1, h);
  camera.updateProjectionMatrix();
}
new ResizeObserver(resize).observe(container);
resize();

function labelTexture(text, bg = '#222a', fg = '#fff') {
  const c = document.createElement('canvas');
  c.width = 256;
  c.height = 64;
  const g = c.getContext('2d');
  g.fillStyle = bg;
  g.fillRect(0, 0, 256, 64);
  g.fillStyle = fg;
  g.font = 'bold 28px sans-serif';
  g.textAlign = 'center';
  g.textBaseline = 'middle';
  g.fillText(text.slice(0, 18), 128, 32);
  const t = new THREE.CanvasTexture(c);
  t.colorSpace = THREE.SRGBColorSpace;
  return t;
}

const unitBox = new THREE.BoxGeometry(1, 1, 1).translate(0.5, 0.5, 0.5);
const unitEdges = new THREE.EdgesGeometry(unitBox);
const headBox = new THREE.BoxGeometry(0.5, 0.5, 0.5);

/** The three.js object of a display: what it looks like depends on its kind and content. */
function makeDisplayObject(d) {
  let obj;
  if (d.kind === 'block') {
    obj = new THREE.Mesh(unitBox, new THREE.MeshBasicMaterial({ color: blockColour(d.block) }));
    obj.add(new THREE.LineSegments(unitEdges, new THREE.LineBasicMaterial({ color: 0x111111 })));
  } else if (d.kind === 'text') {
    obj = new THREE.Mesh(new THREE.PlaneGeometry(1, 0.25),
      new THREE.MeshBasicMaterial({ map: labelTexture(textOf(d.text), '#0008', '#fff'), transparent: true, side: THREE.DoubleSide }));
  } else if (d.skin) {
    obj = new THREE.Mesh(headBox, new THREE.MeshLambertMaterial({ color: PART_COLOURS[d.skin.part] ?? hashColour(d.skin.part) }));
  } else {
    obj = new THREE.Mesh(new THREE.PlaneGeometry(0.5, 0.5),
      new THREE.MeshBasicMaterial({ map: labelTexture(itemName(d.item), '#556b', '#fff'), transparent: true, side: THREE.DoubleSide }));
  }
  obj.matrixAutoUpdate = false;
  obj.userData.key = displayKey(d);
  obj.userData.handle = d.handle;
  return obj;
}
function displayKey(d) {
  return `${d.kind}|${d.block ?? ''}|${JSON.stringify(d.text ?? '')}|${d.skin?.part ?? ''}|${d.item ?? ''}`;
}

const tmpA = new THREE.Matrix4();
const tmpB = new THREE.Matrix4();
/** The display's transformation M (playback.md §4.4): the record's matrix, else T·L·S·R. */
function transformMatrix(tr, out) {
  if (!tr) return out.identity();
  if (Array.isArray(tr.matrix) && tr.matrix.length === 16) return out.set(...tr.matrix);
  const t = tr.translation ?? [0, 0, 0];
  const l = tr.left_rotation ?? [0, 0, 0, 1];
  const s = tr.scale ?? [1, 1, 1];
  const r = tr.right_rotation ?? [0, 0, 0, 1];
  out.compose(new THREE.Vector3(...t), new THREE.Quaternion(...l), new THREE.Vector3(...s));
  return out.multiply(tmpB.makeRotationFromQuaternion(new THREE.Quaternion(...r)));
}
/** World matrix: the entity at its position, turned by its yaw (-yRot about Y), then M. */
function worldMatrix(d, out) {
  const p = d.position ?? [0, 0, 0];
  out.makeTranslation(p[0], p[1], p[2]);
  out.multiply(tmpA.makeRotationY(-((d.yaw ?? 0) * Math.PI) / 180));
  return out.multiply(transformMatrix(d.transform, tmpB));
}

const displayObjects = new Map();
function syncDisplays(state) {
  for (const [h, obj] of displayObjects) {
    const d = state.displays.get(h);
    if (!d || obj.userData.key !== displayKey(d)) {
      displayRoot.remove(obj);
      displayObjects.delete(h);
    }
  }
  for (const d of state.displays.values()) {
    let obj = displayObjects.get(d.handle);
    if (!obj) {
      obj = makeDisplayObject(d);
      displayObjects.set(d.handle, obj);
      displayRoot.add(obj);
    }
    worldMatrix(d, obj.matrix);
    obj.matrixWorldNeedsUpdate = true;
    obj.visible = d.visible;
  }
}

// Players: a simple figure (legs, body, head) at its feet and yaw, a name tag; translucent while
// an emote hides it.
const playerObjects = new Map();
function makePlayer(name) {
  const g = new THREE.Group();
  const mat = new THREE.MeshLambertMaterial({ color: hashColour(name), transparent: true });
  const legs = new THREE.Mesh(new THREE.BoxGeometry(0.5, 0.75, 0.25), mat);
  legs.position.y = 0.375;
  const body = new THREE.Mesh(new THREE.BoxGeometry(0.5, 0.75, 0.25), mat);
  body.position.y = 1.125;
  const head = new THREE.Mesh(new THREE.BoxGeometry(0.5, 0.5, 0.5), mat);
  head.position.y = 1.75;
  const nose = new THREE.Mesh(new THREE.BoxGeometry(0.1, 0.1, 0.1), mat);
  nose.position.set(0, 1.75, 0.3);
  g.add(legs, body, head, nose);
  g.userData.material = mat;
  const label = document.createElement('div');
  label.className = 'label';
  label.textContent = name;
  $('labels').appendChild(label);
  g.userData.label = label;
  return g;
}
function syncPlayers(state) {
  for (const [name, g] of playerObjects) {
    if (!state.players.has(name)) {
      playerRoot.remove(g);
      g.userData.label.remove();
      playerObjects.delete(name);
    }
  }
  const follow = $('follow');
  for (const p of state.players.values()) {
    let g = playerObjects.get(p.name);
    if (!g) {
      g = makePlayer(p.name);
      playerObjects.set(p.name, g);
      playerRoot.add(g);
    }
    g.position.set(...p.position);
    g.rotation.y = -((p.yaw ?? 0) * Math.PI) / 180;
    g.userData.material.opacity = p.hidden ? 0.3 : 1;
    g.userData.label.classList.toggle('hidden-player', !!p.hidden);
    if (![...follow.options].some((o) => o.value === p.name)) follow.add(new Option(p.name, p.name));
  }
}

// A two-player offer: the 2-block match radius around the initiator and a line of sight to the
// nearest other player (players.md §7).
const ringGeometry = new THREE.RingGeometry(1.95, 2.05, 64).rotateX(-Math.PI / 2);
const ringMaterial = new THREE.MeshBasicMaterial({ color: 0x6699ff, side: THREE.DoubleSide });
const sightMaterial = new THREE.LineBasicMaterial({ color: 0x66ff99 });
function syncOffers(state) {
  offerRoot.clear();
  for (const who of state.offers.values()) {
    const p = state.players.get(who);
    if (!p) continue;
    const ring = new THREE.Mesh(ringGeometry, ringMaterial);
    ring.position.set(p.position[0], p.position[1] + 0.02, p.position[2]);
    offerRoot.add(ring);
    let nearest = null;
    for (const q of state.players.values()) {
      if (q.name === who) continue;
      const d = Math.hypot(q.position[0] - p.position[0], q.position[1] - p.position[1], q.position[2] - p.position[2]);
      if (!nearest || d < nearest.d) nearest = { q, d };
    }
    if (nearest) {
      const eye = (x) => new THREE.Vector3(x.position[0], x.position[1] + 1.62, x.position[2]);
      offerRoot.add(new THREE.Line(new THREE.BufferGeometry().setFromPoints([eye(p), eye(nearest.q)]), sightMaterial));
    }
  }
}

function syncBlocks(blocks) {
  if (blockRoot.userData.blocks === blocks) return;
  blockRoot.userData.blocks = blocks;
  blockRoot.clear();
  const colours = { solid: 0x8b8f96, passable: 0xc8d070, water: 0x3070d0, air: null };
  let budget = 20000;
  for (const e of blocks) {
    const c = colours[e.block];
    if (c == null) continue;
    const from = e.at ?? e.from;
    const to = e.at ?? e.to;
    if (!from || !to) continue;
    for (let x = Math.min(from[0], to[0]); x <= Math.max(from[0], to[0]) && budget > 0; ++x)
      for (let y = Math.min(from[1], to[1]); y <= Math.max(from[1], to[1]) && budget > 0; ++y)
        for (let z = Math.min(from[2], to[2]); z <= Math.max(from[2], to[2]) && budget > 0; ++z, --budget) {
          const m = new THREE.Mesh(unitBox, new THREE.MeshLambertMaterial({ color: c, transparent: e.block === 'water', opacity: 0.5 }));
          m.position.set(x, y, z);
          blockRoot.add(m);
        }
  }
}

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
renderer.domElement.addEventListener('click', (ev) => {
  const r = renderer.domElement.getBoundingClientRect();
  const ndc = new THREE.Vector2(((ev.clientX - r.left) / r.width) * 2 - 1, -((ev.clientY - r.top) / r.height) * 2 + 1);
  raycaster.setFromCamera(ndc, camera);
  const hit = raycaster.intersectObjects(displayRoot.children, false).find((h) => h.object.visible);
  if (!hit) return;
  const d = state.displays.get(hit.object.userData.handle);
  if (!d) return;
  $('selection').textContent = JSON.stringify({ handle: d.handle, node: d.node, session: d.session, kind: d.kind,
    position: d.position, yaw: d.yaw, transform: d.transform }, null, 1);
});

let timeline = null;
let live = null;
let tick = 0;
let playing = false;
let framesReceived = 0;

/** Point the camera at the players the first time there are any. */
let framed = false;
function frameOnce(s) {
  if (framed || s.players.size === 0) return;
  framed = true;
  const c = new THREE.Vector3();
  for (const p of s.players.values()) c.add(new THREE.Vector3(...p.position));
  c.divideScalar(s.players.size).add(new THREE.Vector3(0, 1, 0));
  camera.position.copy(c).add(new THREE.Vector3(4, 3, 6));
  controls.target.copy(c);
  grid.position.set(Math.round(c.x), Math.floor(c.y - 1), Math.round(c.z));
}

function show(s) {
  state = s;
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
  show(timeline.stateAt(tick));
  const h = hashParams();
  h.set('tick', String(tick));
  history.replaceState(null, '', `#${h}`);
}

$('seek').addEventListener('input', () => seek(Number($('seek').value)));
$('back').addEventListener('click', () => seek(tick - 1));
$('fwd').addEventListener('click', () => seek(tick + 1));
$('play').addEventListener('click', () => {
  playing = !playing;
  $('play').textContent = playing ? '❚❚' : '▶';
});
$('follow').addEventListener('change', () => {});

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

function status(text, error = false) {
  const s = $('status');
  s.textContent = text;
  s.classList.toggle('error', error);
}

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
      if (tick + n >= timeline.ticks - 1) {
        playing = false;
        $('play').textContent = '▶';
      }
      seek(tick + n);
    }
  }
  const followed = playerObjects.get($('follow').value);
  if (followed) {
    const delta = v.copy(followed.position).add(new THREE.Vector3(0, 1, 0)).sub(controls.target);
    controls.target.add(delta);
    camera.position.add(delta);
  }
  controls.update();
  placeMarkers();
  renderer.render(scene, camera);
  const w = container.clientWidth;
  const h = container.clientHeight;
  for (const g of playerObjects.values()) {
    v.copy(g.position).add(new THREE.Vector3(0, 2.3, 0)).project(camera);
    const l = g.userData.label;
    l.style.display = v.z < 1 ? '' : 'none';
    l.style.left = `${((v.x + 1) / 2) * w}px`;
    l.style.top = `${((1 - v.y) / 2) * h}px`;
  }
  requestAnimationFrame(frame);
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
      for (const p of msg.players ?? []) {
        const old = live.state.players.get(p.player ?? p.id);
        applyInput(live.state, { op: 'player.join', player: p.player ?? p.id, position: p.position, yaw: p.yaw });
        if (old) live.state.players.get(p.player ?? p.id).hidden = old.hidden;
      }
      if (msg.id === 'state') for (const d of msg.displays ?? []) applyEvent(live.state, { type: 'display.spawn', ...d });
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
  offersDrawn() { return offerRoot.children.filter((o) => o.isMesh).length; },
  seek(t) { seek(t); renderer.render(scene, camera); return state.tick; },
  seekTime(t) { const t0 = performance.now(); seek(t); return performance.now() - t0; },
  drawnDisplays() { return displayRoot.children.filter((o) => o.visible).length; },
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
