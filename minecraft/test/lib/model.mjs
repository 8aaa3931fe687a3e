// Two views of the same displays, compared after every frame (render.md §9 "decoded fields compared
// with the frame's events"):
//   * ExpectedWorld: what the frame's events say exists (protocol.md §6 display.* events);
//   * ViewerClient: what one viewer's Minecraft client holds after applying the decoded packet
//     entries addressed to it, in order (render.md §6), as a client would.
// A viewer's client must hold exactly the displays in range (render.md §4) with their events'
// positions, yaw, transforms and content.

import {
  angleByte, blockStateId, dataFor, displayTypeId, displayUuid, f32Equals, itemDisplayByte, itemId, sameF64
} from './minecraft.mjs'
import { parseSnbt } from './snbt.mjs'

// render.md §2 defaults (the checks run emote-sim without render.* overrides unless told).
export const RENDER_DEFAULTS = {
  entity_id_base: 1000000000, display_range: 160, player_range: 512, view_distance: 10, uuid_seed: 0
}

export class ExpectedWorld {
  constructor (render = RENDER_DEFAULTS) {
    this.render = { ...RENDER_DEFAULTS, ...render }
    this.displays = new Map() // handle -> state
    this.spawnCount = new Map() // handle -> display.spawn events seen (render.md §3)
    this.hidden = new Map() // player -> the last player.visibility hidden flag
    this.stopped = [] // playback.stopped events, in order
    this.warnings = []
  }

  entityId (handle) {
    return this.render.entity_id_base + handle
  }

  apply (events) {
    for (const e of events) {
      switch (e.type) {
        case 'display.spawn':
          this.spawnCount.set(e.handle, (this.spawnCount.get(e.handle) || 0) + 1)
          this.displays.set(e.handle, {
            handle: e.handle,
            session: e.session,
            node: e.node,
            space: e.space,
            kind: e.kind,
            item: e.item,
            item_display: e.item_display,
            block: e.block,
            text: e.text,
            dimension: e.dimension,
            position: e.position,
            yaw: e.yaw,
            transform: e.transform,
            visible: e.visible,
            spawnNumber: this.spawnCount.get(e.handle)
          })
          break
        case 'display.update': {
          const d = this.displays.get(e.handle)
          if (!d) throw new Error(`display.update of unknown handle ${e.handle}`)
          if (e.transform) d.transform = e.transform
          if (e.visible !== undefined) d.visible = e.visible
          if (e.item !== undefined) d.item = e.item
          break
        }
        case 'display.move':
          for (const d of this.displays.values()) {
            if (d.session === e.session && d.space === e.space) d.position = e.position
          }
          break
        case 'display.view':
          for (const d of this.displays.values()) {
            if (d.session === e.session) d.yaw = e.yaw
          }
          break
        case 'display.remove':
          for (const h of e.handles) this.displays.delete(h)
          break
        case 'player.visibility':
          this.hidden.set(e.player, e.hidden)
          break
        case 'playback.stopped':
          this.stopped.push(e)
          break
        case 'render.warning':
          this.warnings.push(e)
          break
      }
    }
  }

  // render.md §4: vd(v) and the display range R of a viewer.
  viewDistance (viewer) {
    const vd = viewer.view_distance ?? this.render.view_distance
    return Math.min(Math.max(vd, 2), this.render.view_distance)
  }

  inRange (viewer, d) {
    if ((viewer.dimension ?? 'minecraft:overworld') !== d.dimension) return false
    const r = Math.min(this.render.display_range, this.viewDistance(viewer) * 16)
    const dx = d.position[0] - viewer.position[0]
    const dz = d.position[2] - viewer.position[2]
    return dx * dx + dz * dz <= r * r
  }

  inPlayerRange (viewer, other) {
    if ((viewer.dimension ?? 'minecraft:overworld') !== (other.dimension ?? 'minecraft:overworld')) return false
    const r = Math.min(this.render.player_range, this.viewDistance(viewer) * 16)
    const dx = other.position[0] - viewer.position[0]
    const dz = other.position[2] - viewer.position[2]
    return dx * dx + dz * dz <= r * r
  }
}

// --- content -------------------------------------------------------------------------------------

// A decoded NBT value (prismarine-nbt's {type, value}) as plain JavaScript.
export function simplifyNbt (tag) {
  if (tag === null || tag === undefined) return tag
  switch (tag.type) {
    case 'compound': {
      const out = {}
      for (const [k, v] of Object.entries(tag.value)) out[k] = simplifyNbt(v)
      return out
    }
    case 'list':
      return tag.value.value.map((v) => simplifyNbt({ type: tag.value.type, value: v }))
    case 'long':
      return Array.isArray(tag.value) ? Number((BigInt(tag.value[0]) << 32n) | BigInt(tag.value[1] >>> 0)) : Number(tag.value)
    default:
      return tag.value
  }
}

const STYLE_BOOLS = ['bold', 'italic', 'underlined', 'strikethrough', 'obfuscated']
// A text component reduced to the keys render.md §5.4 keeps, in one shape for both sides: the
// frame's JSON and the decoded network NBT. Strings become {text}; style bytes become booleans.
export function normalizeText (c) {
  if (typeof c === 'string') return { text: c }
  if (typeof c === 'number' || typeof c === 'boolean') return { text: String(c) }
  if (Array.isArray(c)) {
    if (c.length === 0) return { text: '' }
    const first = normalizeText(c[0])
    first.extra = [...(first.extra || []), ...c.slice(1).map(normalizeText)]
    return first
  }
  const out = {}
  if (c.text !== undefined) out.text = String(c.text)
  else if (c.translate !== undefined) {
    out.translate = c.translate
    if (c.with) out.with = c.with.map(normalizeText)
  } else if (c.keybind !== undefined) out.keybind = c.keybind
  else out.text = ''
  if (c.color !== undefined) out.color = c.color
  if (c.font !== undefined) out.font = c.font
  if (c.shadow_color !== undefined) out.shadow_color = c.shadow_color | 0
  for (const k of STYLE_BOOLS) if (c[k] !== undefined) out[k] = !!c[k]
  if (c.extra && c.extra.length) out.extra = c.extra.map(normalizeText)
  return out
}

function stableJson (v) {
  if (Array.isArray(v)) return `[${v.map(stableJson).join(',')}]`
  if (v && typeof v === 'object') {
    return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${stableJson(v[k])}`).join(',')}}`
  }
  return JSON.stringify(v)
}

// What index 23 should hold on a client of `protocol` for display `d`, as a comparable string
// (`visible` and content: render.md §5.2, §5.4); `decodedContent` gives the client's side the same way.
export function expectedContent (protocol, d) {
  if (d.kind === 'item') {
    if (!d.visible) return 'item:empty'
    const stack = parseSnbt(d.item)
    const id = itemId(protocol, stack.id)
    if (id === null) return 'item:empty'
    return `item:${id}x${stack.count ?? 1}`
  }
  if (d.kind === 'block') {
    if (!d.visible) return 'block:0'
    const state = parseSnbt(d.block)
    const id = blockStateId(protocol, state.Name, state.Properties || {})
    return `block:${id ?? 0}`
  }
  if (!d.visible) return `text:${stableJson(normalizeText(''))}`
  return `text:${stableJson(normalizeText(d.text))}` // the frame's text is a JSON value (protocol.md §6)
}

function decodedContent (kind, entry) {
  if (kind === 'item') {
    const slot = entry ? entry.value : { itemCount: 0 }
    return slot.itemCount === 0 ? 'item:empty' : `item:${slot.itemId}x${slot.itemCount}`
  }
  if (kind === 'block') return `block:${entry ? entry.value : 0}`
  const text = entry ? simplifyNbt(entry.value) : ''
  return `text:${stableJson(normalizeText(text))}`
}

// --- the client side ----------------------------------------------------------------------------

const DISPLAY_DEFAULTS = {
  11: { x: 0, y: 0, z: 0 },
  12: { x: 1, y: 1, z: 1 },
  13: { x: 0, y: 0, z: 0, w: 1 },
  14: { x: 0, y: 0, z: 0, w: 1 }
}

const KIND_OF_TYPE = new Map()
function kindOfType (protocol, type) {
  const key = `${protocol}:${type}`
  if (!KIND_OF_TYPE.has(key)) {
    let kind = null
    for (const k of ['item', 'block', 'text']) if (displayTypeId(protocol, k) === type) kind = k
    KIND_OF_TYPE.set(key, kind)
  }
  return KIND_OF_TYPE.get(key)
}

// One viewer's client: applies decoded packets in order and records structural errors
// (render.md §5.1 bundles, §4 destroy lists, §5.5 player packets).
export class ViewerClient {
  constructor (name, protocol, world) {
    this.name = name
    this.protocol = protocol
    this.world = world
    this.entities = new Map() // entity id -> {type, kind, uuid, x, y, z, yaw, yawKind, meta: Map}
    this.playerFlags = new Map() // entity id -> shared flags byte last received
    this.playerEquipmentBlank = new Map() // entity id -> whether the last equipment was six empty slots
    this.inBundle = false
    this.errors = []
    this.received = 0
  }

  // The client lost its world (a new dimension, a respawn, a backend switch): it holds nothing
  // (render.md §4 rule 4).
  reset () {
    this.entities.clear()
    this.playerFlags.clear()
    this.playerEquipmentBlank.clear()
    this.inBundle = false
  }

  error (msg) {
    this.errors.push(`${this.name} (${this.protocol}): ${msg}`)
  }

  apply (packet, playersByEntityId) {
    this.received++
    const p = packet.params
    switch (packet.name) {
      case 'bundle_delimiter':
        this.inBundle = !this.inBundle
        break
      case 'spawn_entity': {
        if (!this.inBundle) this.error(`spawn_entity ${p.entityId} outside a bundle (render.md §5.1)`)
        if (this.entities.has(p.entityId)) this.error(`spawn_entity ${p.entityId}: already spawned`)
        const kind = kindOfType(this.protocol, p.type)
        if (!kind) this.error(`spawn_entity ${p.entityId}: type ${p.type} is not a display`)
        if (p.pitch !== 0 || p.headPitch !== 0 || p.objectData !== 0) {
          this.error(`spawn_entity ${p.entityId}: pitch ${p.pitch}, head ${p.headPitch}, data ${p.objectData} (all 0: render.md §5.1)`)
        }
        const v = p.velocity || {}
        if ((v.x || 0) !== 0 || (v.y || 0) !== 0 || (v.z || 0) !== 0) {
          this.error(`spawn_entity ${p.entityId}: velocity ${JSON.stringify(v)} (zero: render.md §5.1)`)
        }
        this.entities.set(p.entityId, {
          type: p.type, kind, uuid: p.objectUUID, x: p.x, y: p.y, z: p.z, yaw: p.yaw & 0xff, yawKind: 'byte', meta: new Map()
        })
        break
      }
      case 'entity_metadata': {
        const e = this.entities.get(p.entityId)
        const keys = p.metadata.map((m) => m.key)
        for (let i = 1; i < keys.length; i++) {
          if (keys[i] <= keys[i - 1]) this.error(`entity_metadata ${p.entityId}: keys ${keys} not ascending (render.md §5.2)`)
        }
        if (e) {
          for (const m of p.metadata) e.meta.set(m.key, m)
        } else if (playersByEntityId.has(p.entityId)) {
          if (keys.length !== 1 || keys[0] !== 0) this.error(`player metadata ${p.entityId}: keys ${keys} (only 0: render.md §5.5)`)
          else this.playerFlags.set(p.entityId, p.metadata[0].value)
        } else {
          this.error(`entity_metadata for ${p.entityId}, which this client does not have`)
        }
        break
      }
      case 'sync_entity_position':
      case 'entity_teleport': {
        const e = this.entities.get(p.entityId)
        if (!e) { this.error(`${packet.name} for ${p.entityId}, which this client does not have`); break }
        e.x = p.x; e.y = p.y; e.z = p.z
        if (typeof p.yaw === 'number' && packet.name === 'sync_entity_position') { e.yaw = p.yaw; e.yawKind = 'f32' } else { e.yaw = p.yaw & 0xff; e.yawKind = 'byte' }
        if (p.onGround) this.error(`${packet.name} ${p.entityId}: onGround true (render.md §5.2)`)
        break
      }
      case 'entity_look': {
        const e = this.entities.get(p.entityId)
        if (!e) { this.error(`entity_look for ${p.entityId}, which this client does not have`); break }
        e.yaw = p.yaw & 0xff
        e.yawKind = 'byte'
        if (p.pitch !== 0) this.error(`entity_look ${p.entityId}: pitch ${p.pitch}`)
        break
      }
      case 'entity_destroy': {
        const ids = p.entityIds
        if (ids.length === 0) this.error('entity_destroy with no ids (render.md §4: nothing is sent then)')
        for (let i = 1; i < ids.length; i++) {
          if (ids[i] <= ids[i - 1]) this.error(`entity_destroy ${ids}: not ascending (render.md §4)`)
        }
        for (const id of ids) {
          if (!this.entities.delete(id)) this.error(`entity_destroy of ${id}, which this client does not have`)
        }
        break
      }
      case 'entity_equipment': {
        if (!playersByEntityId.has(p.entityId)) this.error(`entity_equipment for ${p.entityId}, not a player`)
        const slots = p.equipments.map((s) => s.slot)
        const blank = p.equipments.every((s) => s.item.itemCount === 0)
        if (JSON.stringify(slots) !== '[0,1,2,3,4,5]' || !blank) {
          this.error(`entity_equipment ${p.entityId}: ${JSON.stringify(p.equipments)} (six empty slots 0..5: render.md §5.5)`)
        }
        this.playerEquipmentBlank.set(p.entityId, blank)
        break
      }
      default:
        this.error(`unexpected packet ${packet.name}`)
    }
  }

  // Compares this client's displays with the events' (after a whole frame). `viewer` is the
  // viewer's current state ({position, dimension, view_distance}).
  compare (viewer) {
    const out = []
    const err = (m) => out.push(`${this.name} (${this.protocol}): ${m}`)
    if (this.inBundle) err('a frame ended inside a bundle')
    const expected = new Map()
    for (const d of this.world.displays.values()) {
      if (this.world.inRange(viewer, d)) expected.set(this.world.entityId(d.handle), d)
    }
    for (const id of this.entities.keys()) {
      if (!expected.has(id)) err(`holds entity ${id}, which is not a display in range`)
    }
    for (const [id, d] of expected) {
      const e = this.entities.get(id)
      if (!e) { err(`lacks entity ${id} (handle ${d.handle}, node ${d.node}) in range`); continue }
      const where = `entity ${id} (node ${d.node})`
      if (e.type !== displayTypeId(this.protocol, d.kind)) err(`${where}: type ${e.type}, expected ${d.kind}_display`)
      const uuid = displayUuid(id, d.spawnNumber, this.world.render.uuid_seed)
      if (e.uuid !== uuid) err(`${where}: uuid ${e.uuid}, expected ${uuid} (render.md §3)`)
      if (!sameF64(e.x, d.position[0]) || !sameF64(e.y, d.position[1]) || !sameF64(e.z, d.position[2])) {
        err(`${where}: position ${[e.x, e.y, e.z]}, events say ${d.position}`)
      }
      const yawOk = e.yawKind === 'byte' ? e.yaw === angleByte(d.yaw) : f32Equals(e.yaw, d.yaw)
      if (!yawOk) err(`${where}: yaw ${e.yaw} (${e.yawKind}), events say ${d.yaw}`)
      const t = d.transform
      const want = { 11: t.translation, 12: t.scale, 13: t.left_rotation, 14: t.right_rotation }
      for (const index of [11, 12, 13, 14]) {
        const m = e.meta.get(index)
        const have = m ? m.value : DISPLAY_DEFAULTS[index]
        const axes = index <= 12 ? ['x', 'y', 'z'] : ['x', 'y', 'z', 'w']
        if (!axes.every((a, i) => f32Equals(have[a], want[index][i]))) {
          err(`${where}: metadata ${index} ${JSON.stringify(have)}, events say ${JSON.stringify(want[index])}`)
        }
      }
      const haveContent = decodedContent(d.kind, e.meta.get(23))
      const wantContent = expectedContent(this.protocol, d)
      if (haveContent !== wantContent) err(`${where}: content ${haveContent}, events say ${wantContent}`)
      if (d.kind === 'item') {
        const m = e.meta.get(24)
        const have = m ? m.value : 0
        const want = itemDisplayByte(this.protocol, d.item_display ?? 'none')
        if (have !== want) err(`${where}: item display ${have}, events say ${d.item_display}`)
      }
    }
    return out
  }
}

export { dataFor }
