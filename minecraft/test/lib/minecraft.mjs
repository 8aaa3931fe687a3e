// Minecraft facts for the checks, all from minecraft-data / minecraft-protocol (render.md §1), and
// the client-side play-state decoder every packet entry must pass with all bytes consumed (render.md §9).

import { createRequire } from 'node:module'
import { createHash } from 'node:crypto'

const require = createRequire(import.meta.url)
const minecraftData = require('minecraft-data')
const { createDeserializer } = require('minecraft-protocol/src/transforms/serializer')

// The minecraft-data version a protocol number is decoded with: the first release minecraft-data
// lists for that protocol whose data it has (render.md §1's versions are all there).
export function versionFor (protocol) {
  for (const { minecraftVersion } of minecraftData.postNettyVersionsByProtocolVersion.pc[protocol] || []) {
    const data = minecraftData(minecraftVersion)
    if (data && data.version.version === protocol) return data.version.minecraftVersion
  }
  throw new Error(`minecraft-data has no data for protocol ${protocol}`)
}

const dataCache = new Map()
export function dataFor (protocol) {
  if (!dataCache.has(protocol)) dataCache.set(protocol, minecraftData(versionFor(protocol)))
  return dataCache.get(protocol)
}

// Decodes one packet entry's bytes (packet id varint + fields, no length prefix: render.md §5) the
// way a client of that version does. Throws unless every byte is consumed.
export class PacketDecoder {
  constructor (protocol) {
    this.protocol = protocol
    this.version = versionFor(protocol)
    this.parser = createDeserializer({ state: 'play', isServer: false, version: this.version, noErrorLogging: true })
  }

  decode (buffer) {
    const packet = this.parser.parsePacketBuffer(buffer)
    if (packet.metadata.size !== buffer.length) {
      throw new Error(`${packet.data.name}: ${buffer.length} bytes but the decoder read ${packet.metadata.size} ` +
        `(${buffer.toString('hex')})`)
    }
    return packet.data // {name, params}
  }
}

// The bits of a number as binary32 (so −0 and 0 differ, as JOML equals compares: render.md §5.2).
const f32 = new Float32Array(1)
const u32 = new Uint32Array(f32.buffer)
export function f32Bits (x) {
  f32[0] = x
  return u32[0]
}
export function sameF32 (a, b) {
  return f32Bits(a) === f32Bits(b)
}
// Whether a decoded binary32 is exactly the binary32 a frame's shortest decimal denotes.
export function f32Equals (decoded, frameNumber) {
  return sameF32(decoded, Math.fround(frameNumber))
}
export function sameF64 (a, b) {
  return Object.is(a, b)
}

// render.md §5.1: (byte) floor(yaw × 256 / 360) in binary32, as an unsigned byte.
export function angleByte (yaw) {
  const scaled = Math.fround(Math.fround(Math.fround(yaw) * 256) / 360)
  return Math.floor(scaled) & 0xff
}

// render.md §3: the UUID of the n-th spawn of the entity `entityId`.
export function displayUuid (entityId, n, uuidSeed = 0n) {
  const input = Buffer.alloc(14 + 8 + 4 + 4)
  input.write('emote-sim-uuid', 0, 'latin1')
  input.writeBigUInt64BE(BigInt.asUintN(64, BigInt(uuidSeed)), 14)
  input.writeUInt32BE(entityId >>> 0, 22)
  input.writeUInt32BE(n >>> 0, 26)
  const b = createHash('sha256').update(input).digest().subarray(0, 16)
  b[6] = (b[6] & 0x0f) | 0x40
  b[8] = (b[8] & 0x3f) | 0x80
  const h = b.toString('hex')
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`
}

// The entity type id of a display kind (`item`, `block`, `text`) in a version.
export function displayTypeId (protocol, kind) {
  const entity = dataFor(protocol).entitiesByName[`${kind}_display`]
  if (!entity) throw new Error(`no ${kind}_display entity in protocol ${protocol}`)
  return entity.id
}

function stripNamespace (id) {
  return id.startsWith('minecraft:') ? id.slice('minecraft:'.length) : id
}

// The item registry id of `minecraft:<name>`, or null when the version lacks it.
export function itemId (protocol, id) {
  const item = dataFor(protocol).itemsByName[stripNamespace(id)]
  return item ? item.id : null
}

// The global block state id of {Name, Properties} (render.md §5.4): properties not given take the
// block's default; null when the block or a value is unknown.
export function blockStateId (protocol, name, properties = {}) {
  const block = dataFor(protocol).blocksByName[stripNamespace(name)]
  if (!block) return null
  const states = block.states || []
  // Decompose the default state: the last property varies fastest.
  let rest = block.defaultState - block.minStateId
  const defaults = new Array(states.length)
  for (let i = states.length - 1; i >= 0; i--) {
    defaults[i] = rest % states[i].num_values
    rest = Math.floor(rest / states[i].num_values)
  }
  let id = 0
  for (let i = 0; i < states.length; i++) {
    const s = states[i]
    let index = defaults[i]
    if (Object.hasOwn(properties, s.name)) {
      const values = s.type === 'bool' ? ['true', 'false'] : s.values.map(String)
      index = values.indexOf(String(properties[s.name]))
      if (index < 0) return null
    }
    id = id * s.num_values + index
  }
  return block.minStateId + id
}

// Item display enum (render.md §5.3): on_shelf exists on protocol ≥ 773 only.
const ITEM_DISPLAY = ['none', 'thirdperson_lefthand', 'thirdperson_righthand', 'firstperson_lefthand',
  'firstperson_righthand', 'head', 'gui', 'ground', 'fixed', 'on_shelf']
export function itemDisplayByte (protocol, name) {
  const i = ITEM_DISPLAY.indexOf(name)
  if (i < 0) return null
  if (name === 'on_shelf' && protocol < 773) return 0
  return i
}
