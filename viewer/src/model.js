// The viewer's model of a timeline: what is live at each tick, rebuilt from the frames
// (docs/spec/protocol.md §6) and the client messages of a scenario or recording (player.join,
// player.update, player.leave, world.blocks). Pure data, no three.js: the state at tick t is the
// state after tick t's inputs and frame. Seeking restores the nearest snapshot (one every
// SNAPSHOT_EVERY ticks) and applies at most SNAPSHOT_EVERY - 1 ticks.

export const SNAPSHOT_EVERY = 50;

export function emptyState() {
  return { tick: -1, displays: new Map(), players: new Map(), blocks: [], offers: new Map() };
}

function cloneState(s) {
  const displays = new Map();
  for (const [h, d] of s.displays) displays.set(h, { ...d });
  const players = new Map();
  for (const [k, p] of s.players) players.set(k, { ...p });
  return { tick: s.tick, displays, players, blocks: s.blocks, offers: new Map(s.offers) };
}

/** A client message applied at the start of its tick (protocol.md §4). */
export function applyInput(s, msg) {
  switch (msg.op) {
    case 'player.join':
      if (typeof msg.player === 'string') {
        s.players.set(msg.player, {
          name: msg.player,
          // The tag shows the player's name when the join gave one (proxies key players by UUID).
          label: typeof msg.name === 'string' && msg.name ? msg.name : msg.player,
          position: Array.isArray(msg.position) ? msg.position : [0, 64, 0],
          yaw: typeof msg.yaw === 'number' ? msg.yaw : 0,
          hidden: false,
          // The head's skin (render.md §2) and the generated face's seed.
          uuid: typeof msg.uuid === 'string' ? msg.uuid.replaceAll('-', '').toLowerCase() : undefined,
          skin_textures: msg.skin_textures && typeof msg.skin_textures === 'object' ? msg.skin_textures : undefined,
        });
      }
      break;
    case 'player.update': {
      const p = s.players.get(msg.player);
      if (p) {
        if (Array.isArray(msg.position)) p.position = msg.position;
        if (typeof msg.yaw === 'number') p.yaw = msg.yaw;
        if (typeof msg.name === 'string' && msg.name) p.label = msg.name;
        if (msg.skin_textures && typeof msg.skin_textures === 'object') p.skin_textures = msg.skin_textures;
      }
      break;
    }
    case 'player.leave':
      s.players.delete(msg.player);
      break;
    case 'world.blocks':
      if (Array.isArray(msg.set)) s.blocks = s.blocks.concat(msg.set.map((e) => ({ ...e })));
      break;
    case 'world.clear':
      s.blocks = [];
      break;
    default:
      break;
  }
}

/** A frame event (protocol.md §6). */
export function applyEvent(s, e) {
  switch (e.type) {
    case 'display.spawn':
      s.displays.set(e.handle, {
        handle: e.handle, session: e.session, node: e.node, space: e.space, kind: e.kind,
        item: e.item, item_display: e.item_display, block: e.block, text: e.text, skin: e.skin,
        dimension: e.dimension, position: e.position, yaw: e.yaw, transform: e.transform,
        visible: e.visible !== false,
      });
      break;
    case 'display.update': {
      const d = s.displays.get(e.handle);
      if (!d) break;
      if (e.transform) d.transform = e.transform;
      if (typeof e.visible === 'boolean') d.visible = e.visible;
      if (e.item !== undefined) d.item = e.item;
      break;
    }
    case 'display.view':
      for (const d of s.displays.values()) if (d.session === e.session) d.yaw = e.yaw;
      break;
    case 'display.move':
      for (const d of s.displays.values()) {
        if (d.session === e.session && d.space === e.space) d.position = e.position;
      }
      break;
    case 'display.remove':
      for (const h of e.handles ?? []) s.displays.delete(h);
      break;
    // A two-player offer lasts from the initiator's start to the match, the timeout or the stop.
    case 'playback.started':
      if (e.role === 'initiator') s.offers.set(e.session, e.player);
      break;
    case 'partner.matched':
    case 'partner.timeout':
    case 'playback.stopped':
      s.offers.delete(e.session);
      break;
    case 'player.visibility': {
      const p = s.players.get(e.player);
      if (p) p.hidden = !!e.hidden;
      break;
    }
    default:
      break;
  }
}

/** Markers for the timeline: starts, partner records, stop reasons. */
export function markerOf(e) {
  if (e.type === 'playback.stopped') return { kind: 'stop', text: `${e.player} stopped: ${e.reason}` };
  if (e.type.startsWith('playback.')) return { kind: 'playback', text: `${e.type} ${e.player ?? ''} ${e.emote ?? ''}` };
  if (e.type.startsWith('partner.')) return { kind: 'partner', text: `${e.type} ${e.initiator ?? ''}/${e.partner ?? ''}` };
  return null;
}

export class Timeline {
  /** data: {ticks, inputs: [{tick, msg}], lines: [reply or frame objects]} */
  constructor(data) {
    this.ticks = Math.max(1, data.ticks | 0);
    this.frames = new Map();
    this.replies = new Map();
    for (const l of data.lines ?? []) {
      if (l.op === 'frame') this.frames.set(l.tick, l.events ?? []);
      else if (l.op === 'reply') {
        if (!this.replies.has(l.tick)) this.replies.set(l.tick, []);
        this.replies.get(l.tick).push(l);
      }
    }
    this.inputs = new Map();
    for (const i of data.inputs ?? []) {
      if (!this.inputs.has(i.tick)) this.inputs.set(i.tick, []);
      this.inputs.get(i.tick).push(i.msg);
    }
    this.markers = [];
    for (const [tick, events] of this.frames) {
      for (const e of events) {
        const m = markerOf(e);
        if (m) this.markers.push({ tick, ...m });
      }
    }
    this.snapshots = [];
    let s = emptyState();
    for (let t = 0; t < this.ticks; ++t) {
      this.applyTick(s, t);
      if (t % SNAPSHOT_EVERY === 0) this.snapshots.push(cloneState(s));
    }
  }

  applyTick(s, t) {
    for (const m of this.inputs.get(t) ?? []) applyInput(s, m);
    for (const e of this.frames.get(t) ?? []) applyEvent(s, e);
    s.tick = t;
  }

  /** The state at tick t (a fresh copy). */
  stateAt(t) {
    t = Math.max(0, Math.min(this.ticks - 1, t | 0));
    const k = Math.floor(t / SNAPSHOT_EVERY);
    const s = cloneState(this.snapshots[k]);
    for (let u = k * SNAPSHOT_EVERY + 1; u <= t; ++u) this.applyTick(s, u);
    return s;
  }

  /** Moves s, the state at some tick before t (from stateAt), forward to tick t in place. */
  advance(s, t) {
    for (let u = s.tick + 1; u <= t; ++u) this.applyTick(s, u);
    return s;
  }

  eventsAt(t) {
    return this.frames.get(t) ?? [];
  }
}
