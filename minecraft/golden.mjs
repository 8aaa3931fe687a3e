// Writes tests/render/golden/<protocol>.json (render.md §9, golden bytes): every case of
// tests/render/golden/cases.json encoded, for every required protocol 767..775, by
// minecraft-protocol 1.68.0's own serializer — the packet id and the fields, no length prefix —
// as {case name: hex}. tests/render/golden_test.cpp compares emote-sim's packets with them.
//
//   cd minecraft && npm ci && node golden.mjs       (or: npm run golden)
//   node golden.mjs --check    only compares: exits 1 when a committed file differs
//
// The packet fields are built here from the cases and minecraft-data 3.119.0 (entity type ids,
// item ids, data-component type ids and shapes, block states through prismarine-block, SNBT read
// by mojangson, NBT in prismarine-nbt's form), never from emote-sim's output or tables. Every
// packet is decoded again with minecraft-protocol's client-side deserializer, which must consume
// all its bytes. The output is deterministic: same inputs, same bytes.

import { createRequire } from 'node:module'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const require = createRequire(import.meta.url)
const here = path.dirname(fileURLToPath(import.meta.url))
const root = path.resolve(here, '..')
const goldenDir = path.join(root, 'tests', 'render', 'golden')
const casesPath = path.join(goldenDir, 'cases.json')

const minecraftProtocol = require('minecraft-protocol')
const minecraftData = require('minecraft-data')
const mojangson = require('mojangson')
// prismarine-block as mineflayer resolves it (as generate-tables.mjs does).
const requireFromMineflayer = createRequire(require.resolve('mineflayer'))
const prismarineBlockLoader = requireFromMineflayer('prismarine-block')

const EXPECTED = { 'minecraft-protocol': '1.68.0', 'minecraft-data': '3.119.0' }
// The required protocols and the minecraft-data / minecraft-protocol version of each
// (render.md §1; 773 is 1.21.9 and 1.21.10, 772 is 1.21.8, 771 is 1.21.6).
const VERSIONS = [
  [767, '1.21.1'],
  [768, '1.21.3'],
  [769, '1.21.4'],
  [770, '1.21.5'],
  [771, '1.21.6'],
  [772, '1.21.8'],
  [773, '1.21.9'],
  [774, '1.21.11'],
  [775, '26.1'],
]

// The player's shared-flags bits (render.md §5.5).
const SHARED_FLAGS = { on_fire: 0x01, sneaking: 0x02, sprinting: 0x08, swimming: 0x10,
  invisible: 0x20, glowing: 0x40, gliding: 0x80 }
// Equipment slots of blank equipment, in order (render.md §5.5).
const EQUIPMENT_SLOTS = [0, 1, 2, 3, 4, 5]
// Text component keys in emote-sim's canonical order (render.md §5.4, render/text_component.cpp).
const TEXT_FLAGS = ['bold', 'italic', 'underlined', 'strikethrough', 'obfuscated']
const NAMED_COLORS = ['black', 'dark_blue', 'dark_green', 'dark_aqua', 'dark_red', 'dark_purple',
  'gold', 'gray', 'dark_gray', 'blue', 'green', 'aqua', 'red', 'light_purple', 'yellow', 'white']

function fail (message) {
  throw new Error(message)
}

function checkPackageVersions () {
  for (const [name, want] of Object.entries(EXPECTED)) {
    const got = require(`${name}/package.json`).version
    if (got !== want) fail(`${name} ${got} is installed, the golden files are made with ${want} (npm ci)`)
  }
}

// ---- numbers -----------------------------------------------------------------------------------

// Mth.packDegrees: (byte) floor(yaw * 256 / 360), every step in binary32 (render.md §5.1).
function angleByte (yaw) {
  const f = Math.fround(yaw)
  const packed = Math.floor(Math.fround(Math.fround(f * 256) / 360))
  return (packed << 24) >> 24
}

function int32 (n) {
  if (!Number.isInteger(n) || n < -2147483648 || n > 2147483647) fail(`not an int32: ${n}`)
  return n
}

function int8 (n) {
  if (!Number.isInteger(n) || n < -128 || n > 127) fail(`not a byte: ${n}`)
  return n
}

function uuidHex (s) {
  if (typeof s !== 'string' || !/^[0-9a-f]{32}$/.test(s)) fail(`uuid must be 32 lower-case hex digits: ${s}`)
  return s
}

function vec (value, n) {
  if (!Array.isArray(value) || value.length !== n || !value.every(Number.isFinite)) {
    fail(`expected ${n} numbers: ${JSON.stringify(value)}`)
  }
  const [x, y, z, w] = value
  return n === 3 ? { x, y, z } : { x, y, z, w }
}

// ---- SNBT values (mojangson's prismarine-nbt form) as vanilla's codecs read them ---------------

const NUMERIC = ['byte', 'short', 'int', 'long', 'float', 'double']

function nbtNumber (tag, what) {
  if (tag.type === 'boolean') return tag.value ? 1 : 0
  if (!NUMERIC.includes(tag.type)) fail(`${what} is not a number: ${JSON.stringify(tag)}`)
  if (tag.type === 'long') fail(`${what}: long tags are not used by the cases`)
  return tag.value
}

// Number.floatValue, Number.intValue ((int) of a float truncates), byteValue != 0.
const nbtFloat = (tag, what) => Math.fround(nbtNumber(tag, what))
const nbtInt = (tag, what) => {
  const n = nbtNumber(tag, what)
  return ['float', 'double'].includes(tag.type) ? Math.trunc(n) | 0 : n | 0
}
const nbtBool = (tag, what) => ((nbtInt(tag, what) << 24) >> 24) !== 0

function nbtNumberList (tag, what) {
  if (tag === undefined) return []
  if (tag.type === 'list') {
    return tag.value.value.map((v) => nbtNumber({ type: tag.value.type, value: v }, what))
  }
  if (['byteArray', 'intArray'].includes(tag.type)) return tag.value.value
  fail(`${what} is not a list of numbers`)
}

// ---- content (render.md §5.4) -----------------------------------------------------------------

function stripMinecraft (id) {
  return id.startsWith('minecraft:') ? id.slice('minecraft:'.length) : id
}

// The SlotComponent data shape of `name` in the version's protocol.json.
function componentShape (v, name) {
  const types = { ...v.data.protocol.types, ...v.data.protocol.play.toClient.types }
  const fields = types.SlotComponent[1][1].type[1].fields
  if (!(name in fields)) fail(`${v.version}: minecraft-data has no component ${name}`)
  return fields[name]
}

function componentTypeId (v, name) {
  const types = { ...v.data.protocol.types, ...v.data.protocol.play.toClient.types }
  const mappings = types.SlotComponentType[1].mappings
  const id = Object.keys(mappings).find((k) => mappings[k] === name)
  if (id === undefined) fail(`${v.version}: minecraft-data has no component type ${name}`)
  return Number(id)
}

function profileData (v, skin) {
  const properties = []
  if (skin.textures) {
    properties.push({ name: 'textures', value: skin.textures.value, signature: skin.textures.signature })
  }
  const profile = { name: skin.name, uuid: skin.uuid === undefined ? undefined : uuidHex(skin.uuid), properties }
  const shape = componentShape(v, 'profile')
  if (shape === 'ResolvableProfile') {
    // The partial resolvable profile without skin patch (render.md §5.4, >= 773).
    return { type: 'partial', ...profile, skinPatch: { body: undefined, cape: undefined, elytra: undefined, model: undefined } }
  }
  return profile
}

function customModelData (v, tag) {
  const shape = componentShape(v, 'custom_model_data')
  const floats = nbtNumberList(tag.value.floats, 'floats').map(Math.fround)
  if (shape === 'varint') {
    if (floats.length === 0) fail('custom_model_data without floats')
    return Math.trunc(floats[0]) | 0
  }
  const strings = tag.value.strings
  return {
    floats,
    flags: nbtNumberList(tag.value.flags, 'flags').map((n) => ((n << 24) >> 24) !== 0),
    strings: strings === undefined ? [] : strings.value.value,
    colors: nbtNumberList(tag.value.colors, 'colors').map((n) => n | 0),
  }
}

function dyedColor (v, tag) {
  const color = nbtInt(tag, 'dyed_color')
  const shape = componentShape(v, 'dyed_color')
  return shape === 'i32' ? color : { color, showTooltip: true }
}

// A Slot's params for the 26.1 item SNBT `snbt` (and a skin-bound profile).
function slot (v, snbt, skin) {
  if (snbt === '') return { itemCount: 0 }
  const stack = mojangson.parse(snbt).value
  const name = stripMinecraft(stack.id.value)
  const item = v.data.itemsByName[name]
  if (!item) fail(`${v.version}: unknown item ${name}`)
  const given = stack.components ? stack.components.value : {}
  const components = []
  const add = (type, data) => components.push({ type, data })
  if (skin) add('profile', profileData(v, skin))
  for (const [key, tag] of Object.entries(given)) {
    switch (stripMinecraft(key)) {
      case 'item_model': add('item_model', tag.value); break
      case 'custom_model_data': add('custom_model_data', customModelData(v, tag)); break
      case 'dyed_color': add('dyed_color', dyedColor(v, tag)); break
      case 'enchantment_glint_override': add('enchantment_glint_override', nbtBool(tag, key)); break
      case 'enchantments': break // below
      default: fail(`component ${key} is not one the cases use`)
    }
  }
  const enchantments = given['minecraft:enchantments']
  if (enchantments && Object.keys(enchantments.value).length > 0 &&
      !('minecraft:enchantment_glint_override' in given)) {
    add('enchantment_glint_override', true)
  }
  components.sort((a, b) => componentTypeId(v, a.type) - componentTypeId(v, b.type))
  return {
    itemCount: nbtInt(stack.count, 'count'),
    itemId: item.id,
    addedComponentCount: components.length,
    removedComponentCount: 0,
    components,
    removeComponents: [],
  }
}

function blockStateId (v, snbt) {
  if (snbt === '') return 0
  const state = mojangson.parse(snbt).value
  const name = stripMinecraft(state.Name.value)
  const block = v.data.blocksByName[name]
  if (!block) fail(`${v.version}: unknown block ${name}`)
  const Block = v.Block
  const properties = Block.fromStateId(block.defaultState, 0).getProperties()
  for (const [key, tag] of Object.entries(state.Properties ? state.Properties.value : {})) {
    if (!(key in properties)) fail(`${v.version}: ${name} has no property ${key}`)
    properties[key] = tag.value
  }
  const b = Block.fromProperties(name, properties, 0)
  // prismarine-block maps an unknown value to index 0 silently: read the state back.
  const back = Block.fromStateId(b.stateId, 0).getProperties()
  for (const [key, value] of Object.entries(properties)) {
    if (String(back[key]) !== String(value)) fail(`${v.version}: ${name} ${key}=${value} did not round-trip`)
  }
  return b.stateId
}

// Text JSON -> prismarine-nbt in emote-sim's canonical subset (render.md §5.4). Only the forms the
// cases use: strings, and objects with text | translate (+ with) | keybind, extra, the style keys.
const nbtString = (value) => ({ type: 'string', value })
const nbtByte = (b) => ({ type: 'byte', value: b ? 1 : 0 })

function textCompound (v, json) {
  if (typeof json === 'string') return { text: nbtString(json) }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) fail(`text form not used by the cases: ${JSON.stringify(json)}`)
  const known = ['text', 'translate', 'with', 'keybind', 'extra', 'color', ...TEXT_FLAGS, 'font', 'shadow_color']
  for (const k of Object.keys(json)) if (!known.includes(k)) fail(`text key ${k} is not one the cases use`)
  const out = {}
  if ('text' in json) out.text = nbtString(json.text)
  else if ('translate' in json) {
    out.translate = nbtString(json.translate)
    if (json.with && json.with.length > 0) out.with = textList(v, json.with)
  } else if ('keybind' in json) out.keybind = nbtString(json.keybind)
  else fail('text without content')
  if (json.extra && json.extra.length > 0) out.extra = textList(v, json.extra)
  if ('color' in json) {
    const c = json.color
    if (NAMED_COLORS.includes(c)) out.color = nbtString(c)
    else if (/^#[0-9A-Fa-f]{6}$/.test(c)) out.color = nbtString(c.toUpperCase())
    else fail(`colour not used by the cases: ${c}`)
  }
  for (const f of TEXT_FLAGS) if (f in json) out[f] = nbtByte(json[f])
  if ('font' in json) out.font = nbtString(json.font)
  if ('shadow_color' in json) {
    if (v.protocol < 769) fail('shadow_color needs protocol >= 769')
    out.shadow_color = { type: 'int', value: int32(json.shadow_color) }
  }
  return out
}

function textList (v, list) {
  return { type: 'list', value: { type: 'compound', value: list.map((e) => textCompound(v, e)) } }
}

function textNbt (v, text) {
  if (text === '') return nbtString('')
  const json = JSON.parse(text)
  if (typeof json === 'string') return nbtString(json)
  const compound = textCompound(v, json)
  // A plain literal with no style and no siblings is a string tag.
  const keys = Object.keys(compound)
  if (keys.length === 1 && keys[0] === 'text') return compound.text
  return { type: 'compound', name: '', value: compound }
}

// ---- packets ----------------------------------------------------------------------------------

function metadataEntry (v, e) {
  const key = e.index
  switch (e.kind) {
    case 'byte': {
      if (e.flags) {
        let b = 0
        for (const f of e.flags) {
          if (!(f in SHARED_FLAGS)) fail(`unknown shared flag ${f}`)
          b |= SHARED_FLAGS[f]
        }
        return { key, type: 'byte', value: (b << 24) >> 24 }
      }
      return { key, type: 'byte', value: int8(e.value) }
    }
    case 'int': return { key, type: 'int', value: int32(e.value) }
    case 'float': return { key, type: 'float', value: e.value }
    case 'vector3': return { key, type: 'vector3', value: vec(e.value, 3) }
    case 'quaternion': return { key, type: 'quaternion', value: vec(e.value, 4) }
    case 'item_stack': return { key, type: 'item_stack', value: slot(v, e.snbt, e.skin) }
    case 'block_state': return { key, type: 'block_state', value: blockStateId(v, e.snbt) }
    case 'component': return { key, type: 'component', value: textNbt(v, e.text) }
    default: fail(`unknown metadata kind ${e.kind}`)
  }
}

function entityType (v, name) {
  const entity = v.data.entitiesByName[name]
  if (!entity) fail(`${v.version}: unknown entity ${name}`)
  return entity.id
}

// The packet name and params of case `c` for version `v`.
function packet (v, c) {
  const position = () => vec(c.position, 3)
  switch (c.packet) {
    case 'bundle_delimiter':
      return { name: 'bundle_delimiter', params: {} }
    case 'spawn_entity': {
      // velocity: vec3i16 zeros, or lpVec3 zero on 773+ (the serializer picks the encoding).
      const params = {
        entityId: int32(c.entity_id),
        objectUUID: uuidHex(c.uuid),
        type: entityType(v, c.entity),
        ...position(),
        pitch: 0,
        yaw: angleByte(c.yaw),
        headPitch: 0,
        objectData: 0,
        velocity: { x: 0, y: 0, z: 0 },
      }
      return { name: 'spawn_entity', params }
    }
    case 'entity_metadata':
      return {
        name: 'entity_metadata',
        params: { entityId: int32(c.entity_id), metadata: c.metadata.map((e) => metadataEntry(v, e)) },
      }
    case 'entity_destroy':
      return { name: 'entity_destroy', params: { entityIds: c.entity_ids.map(int32) } }
    case 'absolute_move':
      if (v.packets.includes('sync_entity_position')) {
        return {
          name: 'sync_entity_position',
          params: { entityId: int32(c.entity_id), ...position(), dx: 0, dy: 0, dz: 0, yaw: c.yaw, pitch: 0, onGround: false },
        }
      }
      return {
        name: 'entity_teleport',
        params: { entityId: int32(c.entity_id), ...position(), yaw: angleByte(c.yaw), pitch: 0, onGround: false },
      }
    case 'entity_look':
      return { name: 'entity_look', params: { entityId: int32(c.entity_id), yaw: angleByte(c.yaw), pitch: 0, onGround: false } }
    case 'blank_equipment':
      return {
        name: 'entity_equipment',
        params: { entityId: int32(c.entity_id), equipments: EQUIPMENT_SLOTS.map((slot) => ({ slot, item: { itemCount: 0 } })) },
      }
    default:
      fail(`unknown packet ${c.packet}`)
  }
}

function applies (c, protocol) {
  if (!c.protocols) return true
  const [first, last] = c.protocols
  return protocol >= first && protocol <= last
}

function golden (protocol, version, cases) {
  const data = minecraftData(version)
  if (!data || data.version.version !== protocol) fail(`minecraft-data ${version} is not protocol ${protocol}`)
  const v = {
    protocol,
    version,
    data,
    Block: prismarineBlockLoader(version),
    packets: Object.values(data.protocol.play.toClient.types.packet[1][0].type[1].mappings),
  }
  const serializer = minecraftProtocol.createSerializer({ state: 'play', isServer: true, version })
  const deserializer = minecraftProtocol.createDeserializer({ state: 'play', isServer: false, version })
  const out = {}
  for (const c of cases) {
    if (!applies(c, protocol)) continue
    let hex
    try {
      const { name, params } = packet(v, c)
      const buffer = serializer.createPacketBuffer({ name, params })
      hex = buffer.toString('hex')
      // A copy: the reader of topBitSetTerminatedArray clears the top bits in the buffer it reads.
      const decoded = deserializer.parsePacketBuffer(Buffer.from(buffer))
      if (decoded.data.name !== name || decoded.metadata.size !== buffer.length) {
        fail(`decodes as ${decoded.data.name} of ${decoded.metadata.size} of ${buffer.length} bytes`)
      }
    } catch (err) {
      fail(`${protocol} ${c.name}: ${err.message}`)
    }
    out[c.name] = hex
  }
  return JSON.stringify(out, null, 2) + '\n'
}

function main () {
  const check = process.argv.includes('--check')
  const unknown = process.argv.slice(2).filter((a) => a !== '--check')
  if (unknown.length > 0) fail(`unknown argument ${unknown[0]} (usage: node golden.mjs [--check])`)
  checkPackageVersions()
  const cases = JSON.parse(fs.readFileSync(casesPath, 'utf8')).cases
  const names = new Set()
  for (const c of cases) {
    if (names.has(c.name)) fail(`case ${c.name} given twice`)
    names.add(c.name)
  }
  let differ = 0
  let packets = 0
  for (const [protocol, version] of VERSIONS) {
    const text = golden(protocol, version, cases)
    packets += Object.keys(JSON.parse(text)).length
    const file = path.join(goldenDir, `${protocol}.json`)
    if (check) {
      const committed = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : null
      if (committed !== text) {
        console.error(`${path.relative(root, file)} differs from what minecraft-protocol writes`)
        differ++
      }
    } else {
      fs.writeFileSync(file, text)
    }
  }
  if (check && differ > 0) {
    console.error(`${differ} golden file(s) are not current: run node golden.mjs`)
    process.exit(1)
  }
  console.log(`${check ? 'checked' : 'wrote'} ${VERSIONS.length} golden files, ${packets} packets ` +
    `(${cases.length} cases x protocols ${VERSIONS[0][0]}..${VERSIONS[VERSIONS.length - 1][0]})`)
}

main()
