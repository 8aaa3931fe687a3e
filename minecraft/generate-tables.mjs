// Generates render/tables/generated/ (render.md §1): the per-version Minecraft tables emote-sim
// renders with, from minecraft-data 3.119.0 and the hand-written render/tables/overrides.json.
//
//   cd minecraft && npm ci && node generate-tables.mjs     (or: scripts/regen-tables)
//   node generate-tables.mjs --check    only compares: exits 1 when the committed files differ
//   node generate-tables.mjs --data DIR [--out DIR] [--namespace NAME] [--versions 769,775]
//       reads minecraft-data's data folder DIR (a checkout's `data/`, with dataPaths.json and
//       pc/) instead of the npm package, writes into another folder, into another C++ namespace,
//       for a subset of the supported versions (how a new version is tried before it is added)
//
// Every layout the C++ side encodes (render/tables.hpp) is checked against the version's
// protocol.json field lists; an unknown shape stops the generator with an error instead of
// writing a table that would misencode. Block state ids are checked against prismarine-block.
// The output is deterministic: same inputs, same bytes.

import { createRequire } from 'node:module'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const require = createRequire(import.meta.url)
const here = path.dirname(fileURLToPath(import.meta.url))
const root = path.resolve(here, '..')
const overridesPath = path.join(root, 'render', 'tables', 'overrides.json')
const versionsPath = path.join(root, 'render', 'tables', 'versions.json')

const mcdPackage = require('minecraft-data/package.json')
const minecraftData = require('minecraft-data')
// minecraft-data's own loader, for a data folder given with --data.
const mcDataToNode = require('minecraft-data/lib/loader')
// prismarine-block as mineflayer resolves it (the block-state rule is cross-checked against it).
const requireFromMineflayer = createRequire(require.resolve('mineflayer'))
const prismarineBlockLoader = requireFromMineflayer('prismarine-block')
const prismarineBlockVersion = requireFromMineflayer('prismarine-block/package.json').version

const EXPECTED_MCD = '3.119.0'
// Supported protocols and the minecraft-data version each table is read from (render.md §1):
// render/tables/versions.json, [protocol, version, [releases sharing the protocol]?].
const VERSIONS = JSON.parse(fs.readFileSync(versionsPath, 'utf8')).versions

// The enums of render/tables.hpp, in declaration order.
const PACKET_KINDS = ['bundle_delimiter', 'spawn_entity', 'entity_metadata', 'entity_destroy',
  'sync_entity_position', 'entity_teleport', 'entity_look', 'entity_equipment']
const SERIALIZERS = ['byte', 'int', 'float', 'vector3', 'quaternion', 'item_stack', 'block_state',
  'component']
const SERIALIZER_ENUM = { byte: 'byte', int: 'int_', float: 'float_', vector3: 'vector3',
  quaternion: 'quaternion', item_stack: 'item_stack', block_state: 'block_state',
  component: 'component' }
const ENTITY_KINDS = ['item_display', 'block_display', 'text_display']
// render/tables.hpp's display_field: the display metadata rendering writes, by name. A field's
// index in each version is its key's position in that entity's metadataKeys (entities.json).
const DISPLAY_FIELDS = ['shared_flags', 'interpolation_start', 'interpolation_duration',
  'teleport_duration', 'translation', 'scale', 'left_rotation', 'right_rotation', 'billboard',
  'brightness', 'view_range', 'shadow_radius', 'shadow_strength', 'width', 'height', 'glow_color',
  'content', 'item_display_mode', 'line_width', 'background', 'text_opacity', 'text_style']
const COMPONENTS = ['profile', 'item_model', 'custom_model_data', 'dyed_color',
  'enchantment_glint_override', 'enchantments']

function fail (message) {
  throw new Error(message)
}

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b)
const fields = (pairs) => ['container', pairs.map(([name, type]) => ({ name, type }))]

// ---- known shapes (protocol.json) -------------------------------------------------------------

const PROPERTY = fields([['name', 'string'], ['value', 'string'], ['signature', ['option', 'string']]])
const SHAPES = {
  spawn: {
    velocity_last: fields([['entityId', 'varint'], ['objectUUID', 'UUID'], ['type', 'varint'],
      ['x', 'f64'], ['y', 'f64'], ['z', 'f64'], ['pitch', 'i8'], ['yaw', 'i8'],
      ['headPitch', 'i8'], ['objectData', 'varint'], ['velocity', 'vec3i16']]),
    velocity_after_position: fields([['entityId', 'varint'], ['objectUUID', 'UUID'],
      ['type', 'varint'], ['x', 'f64'], ['y', 'f64'], ['z', 'f64'], ['velocity', 'lpVec3'],
      ['pitch', 'i8'], ['yaw', 'i8'], ['headPitch', 'i8'], ['objectData', 'varint']]),
  },
  vec3i16: fields([['x', 'i16'], ['y', 'i16'], ['z', 'i16']]),
  teleport_angles: fields([['entityId', 'varint'], ['x', 'f64'], ['y', 'f64'], ['z', 'f64'],
    ['yaw', 'i8'], ['pitch', 'i8'], ['onGround', 'bool']]),
  sync_entity_position: fields([['entityId', 'varint'], ['x', 'f64'], ['y', 'f64'], ['z', 'f64'],
    ['dx', 'f64'], ['dy', 'f64'], ['dz', 'f64'], ['yaw', 'f32'], ['pitch', 'f32'],
    ['onGround', 'bool']]),
  entity_look: fields([['entityId', 'varint'], ['yaw', 'i8'], ['pitch', 'i8'], ['onGround', 'bool']]),
  entity_metadata: fields([['entityId', 'varint'], ['metadata', 'entityMetadata']]),
  entityMetadata: ['entityMetadataLoop', { endVal: 255, type: 'entityMetadataEntry' }],
  entity_destroy: fields([['entityIds', ['array', { countType: 'varint', type: 'varint' }]]]),
  entity_equipment: fields([['entityId', 'varint'], ['equipments', ['topBitSetTerminatedArray',
    { type: fields([['slot', 'i8'], ['item', 'Slot']]) }]]]),
  // The value type of each serializer rendering writes (render.md §5.3).
  serializer_values: { byte: 'i8', int: 'varint', float: 'f32', vector3: 'vec3f',
    quaternion: 'vec4f', item_stack: 'Slot', block_state: 'varint', component: 'anonymousNbt' },
  vec3f: fields([['x', 'f32'], ['y', 'f32'], ['z', 'f32']]),
  vec4f: fields([['x', 'f32'], ['y', 'f32'], ['z', 'f32'], ['w', 'f32']]),
  slot: ['container', [{ name: 'itemCount', type: 'varint' }, { anon: true, type: ['switch', {
    compareTo: 'itemCount', fields: { 0: 'void' }, default: fields([['itemId', 'varint'],
      ['addedComponentCount', 'varint'], ['removedComponentCount', 'varint'],
      ['components', ['array', { count: 'addedComponentCount', type: 'SlotComponent' }]],
      ['removeComponents', ['array', { count: 'removedComponentCount',
        type: fields([['type', 'SlotComponentType']]) }]]]) }] }]],
  profile: {
    game_profile: fields([['name', ['option', 'string']], ['uuid', ['option', 'UUID']],
      ['properties', ['array', { countType: 'varint', type: PROPERTY }]]]),
    // >= 773: ResolvableProfile = type (partial | complete), the profile, the skin patch.
    resolvable: ['container', [{ name: 'type', type: ['mapper', { type: 'varint',
      mappings: { 0: 'partial', 1: 'complete' } }] }, { anon: true, type: ['switch', {
      compareTo: 'type', fields: { partial: 'PartialResolvableProfile', complete: 'GameProfile' } }] },
    { name: 'skinPatch', type: 'PlayerSkinPatch' }]],
    partial: fields([['name', ['option', 'string']], ['uuid', ['option', 'UUID']],
      ['properties', ['array', { countType: 'varint', type: 'GameProfileProperty' }]]]),
    property: PROPERTY,
    skin_patch: fields([['body', ['option', 'string']], ['cape', ['option', 'string']],
      ['elytra', ['option', 'string']], ['model', ['option', ['mapper', { type: 'varint',
        mappings: { 0: 'wide', 1: 'slim' } }]]]]),
  },
  custom_model_data: {
    varint: 'varint',
    lists: fields([['floats', ['array', { countType: 'varint', type: 'f32' }]],
      ['flags', ['array', { countType: 'varint', type: 'bool' }]],
      ['strings', ['array', { countType: 'varint', type: 'string' }]],
      ['colors', ['array', { countType: 'varint', type: 'i32' }]]]),
  },
  dyed_color: {
    with_tooltip: fields([['color', 'i32'], ['showTooltip', 'bool']]),
    plain: 'i32',
  },
  item_model: 'string',
  enchantment_glint_override: 'bool',
}

function expectShape (what, actual, expected) {
  if (!same(actual, expected)) {
    fail(`${what}: unknown shape ${JSON.stringify(actual)}; expected ${JSON.stringify(expected)}`)
  }
}

function pickLayout (what, actual, variants) {
  for (const [name, shape] of Object.entries(variants)) {
    if (same(actual, shape)) return name
  }
  fail(`${what}: unknown shape ${JSON.stringify(actual)} (known: ${Object.keys(variants).join(', ')})`)
}

function mapperIds (mapper, what) {
  if (!Array.isArray(mapper) || mapper[0] !== 'mapper' || mapper[1].type !== 'varint') {
    fail(`${what}: not a varint mapper: ${JSON.stringify(mapper).slice(0, 200)}`)
  }
  const ids = new Map()
  for (const [id, name] of Object.entries(mapper[1].mappings)) {
    const n = Number.parseInt(id, id.startsWith('0x') ? 16 : 10)
    if (!Number.isInteger(n) || n < 0) fail(`${what}: bad id ${id}`)
    if (ids.has(name)) fail(`${what}: ${name} mapped twice`)
    ids.set(name, n)
  }
  return ids
}

// ---- one version ------------------------------------------------------------------------------

// --data: minecraft-data's `data` folder to read instead of the npm package's.
let dataDir = null

// The minecraft-data of one version: the npm package's, or the --data folder's read through
// minecraft-data's own loader (dataPaths.json names each file's folder).
function loadData (mcVersion) {
  if (!dataDir) return minecraftData(mcVersion)
  const pathsFile = path.join(dataDir, 'dataPaths.json')
  if (!fs.existsSync(pathsFile)) fail(`--data ${dataDir}: no dataPaths.json (give minecraft-data's data/ folder)`)
  const paths = JSON.parse(fs.readFileSync(pathsFile, 'utf8')).pc?.[mcVersion]
  if (!paths) return null
  const files = {}
  for (const [key, folder] of Object.entries(paths)) {
    const file = path.join(dataDir, folder, `${key}.json`)
    let value
    Object.defineProperty(files, key, {
      enumerable: true,
      get () {
        if (value === undefined && fs.existsSync(file)) value = JSON.parse(fs.readFileSync(file, 'utf8'))
        return value
      },
    })
  }
  const data = mcDataToNode(files)
  // What minecraftData() adds to its loader's object (the version's feature list, comparisons),
  // from the npm package's entry for the same version when it has one; prismarine-block needs
  // it. A version the package does not know is not cross-checked with prismarine-block.
  const known = minecraftData(mcVersion)
  if (known) {
    for (const k of ['type', 'supportFeature', 'isNewerOrEqualTo', 'isOlderThan']) data[k] = known[k]
    data.version = Object.assign({}, known.version, data.version)
  } else {
    data.unknownToPrismarine = true
  }
  return data
}

// The display metadata of one version (render.md §5.3): per entity kind, the fields whose
// overrides.json entry covers the protocol, each at its key's position in the kind's
// metadataKeys, ascending index; and the player's shared-flags index (render.md §5.5).
function readMetadata (data, protocol, overrides, where) {
  const keysOf = (kind) => {
    const keys = data.entitiesByName?.[kind]?.metadataKeys
    if (!Array.isArray(keys) || keys.some((k) => typeof k !== 'string')) fail(`${where}: entities.json gives no metadataKeys for ${kind}`)
    return keys
  }
  const layouts = ENTITY_KINDS.map((kind) => {
    const keys = keysOf(kind)
    const slots = []
    for (const f of overrides.display_metadata.fields) {
      if (!f.kinds.includes(kind) || protocol < f.from || (f.to !== undefined && protocol > f.to)) continue
      const index = keys.indexOf(f.key)
      if (index < 0) fail(`${where}: ${kind} has no metadata key ${f.key} (overrides.json display_metadata field ${f.field}, protocols ${f.from}..${f.to ?? ''}); metadataKeys: ${keys.join(', ')}`)
      if (keys.indexOf(f.key, index + 1) >= 0) fail(`${where}: ${kind} lists metadata key ${f.key} twice`)
      if (index > 254) fail(`${where}: ${kind} ${f.key} at index ${index}`)
      if (slots.some((s) => s.field === f.field)) fail(`overrides.json display_metadata: ${f.field} twice for ${kind} on ${protocol}`)
      slots.push({ ...f, index })
    }
    slots.sort((a, b) => a.index - b.index)
    for (const need of ['shared_flags', 'content']) {
      if (!slots.some((s) => s.field === need)) fail(`${where}: ${kind} has no ${need} field`)
    }
    return slots
  })
  const playerFlags = keysOf('player').indexOf('shared_flags')
  if (playerFlags < 0) fail(`${where}: player has no metadata key shared_flags`)
  return { layouts, playerFlags }
}

function readVersion (protocol, mcVersion, aliases, overrides) {
  const data = loadData(mcVersion)
  if (!data) fail(`minecraft-data${dataDir ? ` in ${dataDir}` : ''} has no ${mcVersion}`)
  if (data.version.version !== protocol) {
    fail(`${mcVersion}: minecraft-data says protocol ${data.version.version}, expected ${protocol}`)
  }
  // Releases sharing the protocol (e.g. 1.21.10 with 1.21.9) must share the data the table is
  // made of, or one table cannot serve both.
  for (const alias of aliases) {
    const other = loadData(alias)
    if (!other || other.version.version !== protocol) fail(`${alias}: not protocol ${protocol} in minecraft-data`)
    for (const part of ['protocol', 'itemsArray', 'blocksArray', 'entitiesArray']) {
      if (!same(other[part], data[part])) fail(`${alias}: its ${part} differs from ${mcVersion}'s`)
    }
  }
  const where = `${mcVersion} (${protocol})`
  const types = data.protocol.types
  const play = data.protocol.play.toClient.types
  const typeOf = (name) => play[name] ?? types[name]

  // Packet ids (play, clientbound).
  const packet = play.packet
  const packetIds = mapperIds(packet?.[1]?.[0]?.type, `${where} play toClient packet names`)
  const packetFields = packet[1][1].type[1].fields
  expectShape(`${where} bundle_delimiter`, packetFields.bundle_delimiter, 'void')

  // Layouts.
  const spawn = pickLayout(`${where} spawn_entity`, play.packet_spawn_entity, SHAPES.spawn)
  if (spawn === 'velocity_last') {
    expectShape(`${where} vec3i16`, typeOf('vec3i16'), SHAPES.vec3i16)
    if (protocol >= overrides.spawn_velocity.min_protocol) fail(`${where}: vec3i16 spawn velocity, but the override says lpVec3 from ${overrides.spawn_velocity.min_protocol}`)
  } else {
    expectShape(`${where} lpVec3`, typeOf(overrides.spawn_velocity.type), overrides.spawn_velocity.protocol_json)
    if (protocol < overrides.spawn_velocity.min_protocol) fail(`${where}: lpVec3 spawn velocity before the override's ${overrides.spawn_velocity.min_protocol}`)
  }

  let move
  if (play.packet_sync_entity_position) {
    expectShape(`${where} sync_entity_position`, play.packet_sync_entity_position, SHAPES.sync_entity_position)
    move = 'sync_entity_position'
  } else {
    expectShape(`${where} entity_teleport`, play.packet_entity_teleport, SHAPES.teleport_angles)
    move = 'teleport_angles'
  }
  expectShape(`${where} entity_look`, play.packet_entity_look, SHAPES.entity_look)
  expectShape(`${where} entity_metadata`, play.packet_entity_metadata, SHAPES.entity_metadata)
  expectShape(`${where} entityMetadata`, typeOf('entityMetadata'), SHAPES.entityMetadata)
  expectShape(`${where} entity_destroy`, play.packet_entity_destroy, SHAPES.entity_destroy)
  expectShape(`${where} entity_equipment`, play.packet_entity_equipment, SHAPES.entity_equipment)
  expectShape(`${where} Slot`, typeOf('Slot'), SHAPES.slot)
  expectShape(`${where} vec3f`, typeOf('vec3f'), SHAPES.vec3f)
  expectShape(`${where} vec4f`, typeOf('vec4f'), SHAPES.vec4f)

  // The packet ids, -1 where rendering does not use the packet in this version: the absolute move
  // is entity_teleport on 767 only (from 768 on, minecraft-data's entity_teleport is the other
  // packet with relative flags; render.md §5.2).
  const packetIdList = PACKET_KINDS.map((kind) => {
    if (kind === 'entity_teleport' && move !== 'teleport_angles') return -1
    if (kind === 'sync_entity_position' && move !== 'sync_entity_position') return -1
    const id = packetIds.get(kind)
    if (id === undefined) fail(`${where}: no packet ${kind}`)
    return id
  })

  // Metadata serializers: ids and value types.
  const entry = typeOf('entityMetadataEntry')
  if (!entry || entry[0] !== 'container' || entry[1].length !== 3 ||
      !same(entry[1][0], { name: 'key', type: 'u8' }) || entry[1][1].name !== 'type' ||
      entry[1][2].name !== 'value' || entry[1][2].type[0] !== 'switch' ||
      entry[1][2].type[1].compareTo !== 'type') {
    fail(`${where} entityMetadataEntry: unknown shape ${JSON.stringify(entry).slice(0, 300)}`)
  }
  const serializerIds = mapperIds(entry[1][1].type, `${where} metadata serializers`)
  const valueTypes = entry[1][2].type[1].fields
  const serializerIdList = SERIALIZERS.map((s) => {
    if (!serializerIds.has(s)) fail(`${where}: no metadata serializer ${s}`)
    expectShape(`${where} metadata serializer ${s}`, valueTypes[s], SHAPES.serializer_values[s])
    return serializerIds.get(s)
  })

  // Data components.
  const componentIds = mapperIds(typeOf('SlotComponentType'), `${where} SlotComponentType`)
  const slotComponent = typeOf('SlotComponent')
  if (!slotComponent || slotComponent[0] !== 'container' ||
      !same(slotComponent[1][0], { name: 'type', type: 'SlotComponentType' }) ||
      slotComponent[1][1].name !== 'data' || slotComponent[1][1].type[0] !== 'switch') {
    fail(`${where} SlotComponent: unknown shape ${JSON.stringify(slotComponent).slice(0, 300)}`)
  }
  const componentShapes = slotComponent[1][1].type[1].fields
  const componentIdList = COMPONENTS.map((c) => componentIds.get(c) ?? -1)
  for (const c of ['profile', 'custom_model_data', 'dyed_color', 'enchantment_glint_override']) {
    if (!componentIds.has(c)) fail(`${where}: no data component ${c}`)
  }
  if (componentIds.has('item_model')) {
    expectShape(`${where} item_model`, componentShapes.item_model, SHAPES.item_model)
  }
  expectShape(`${where} enchantment_glint_override`, componentShapes.enchantment_glint_override,
    SHAPES.enchantment_glint_override)

  let profile
  if (same(componentShapes.profile, SHAPES.profile.game_profile)) {
    profile = 'game_profile'
  } else if (componentShapes.profile === 'ResolvableProfile') {
    expectShape(`${where} ResolvableProfile`, typeOf('ResolvableProfile'), SHAPES.profile.resolvable)
    expectShape(`${where} PartialResolvableProfile`, typeOf('PartialResolvableProfile'), SHAPES.profile.partial)
    expectShape(`${where} GameProfileProperty`, typeOf('GameProfileProperty'), SHAPES.profile.property)
    expectShape(`${where} PlayerSkinPatch`, typeOf('PlayerSkinPatch'), SHAPES.profile.skin_patch)
    profile = 'resolvable_partial'
  } else {
    fail(`${where} profile: unknown shape ${JSON.stringify(componentShapes.profile)}`)
  }

  let customModelData = pickLayout(`${where} custom_model_data`, componentShapes.custom_model_data,
    SHAPES.custom_model_data)
  for (const o of overrides.custom_model_data) {
    if (o.protocol !== protocol) continue
    if (o.protocol_json_layout !== customModelData) {
      fail(`${where} custom_model_data: protocol.json now reads as ${customModelData}, the override expects ${o.protocol_json_layout}; review render/tables/overrides.json`)
    }
    customModelData = o.layout
  }
  const dyedColor = pickLayout(`${where} dyed_color`, componentShapes.dyed_color, SHAPES.dyed_color)

  const metadata = readMetadata(data, protocol, overrides, where)

  // Entity types.
  const entityTypes = ENTITY_KINDS.map((k) => {
    const e = data.entitiesByName[k]
    if (!e || !Number.isInteger(e.id)) fail(`${where}: no entity type ${k}`)
    return e.id
  })

  // Items, ascending name.
  const items = data.itemsArray.map((i) => {
    if (!/^[a-z0-9_]+$/.test(i.name) || !Number.isInteger(i.id)) fail(`${where}: odd item ${JSON.stringify(i)}`)
    return [i.name, i.id]
  }).sort((a, b) => compare(a[0], b[0]))
  for (let i = 1; i < items.length; ++i) {
    if (items[i][0] === items[i - 1][0]) fail(`${where}: item ${items[i][0]} twice`)
  }

  // Blocks, ascending name; properties in minecraft-data order with their value lists.
  const blocks = data.blocksArray.map((b) => readBlock(b, where)).sort((a, b) => compare(a.name, b.name))
  for (let i = 1; i < blocks.length; ++i) {
    if (blocks[i].name === blocks[i - 1].name) fail(`${where}: block ${blocks[i].name} twice`)
  }
  const air = blocks.find((b) => b.name === 'air')
  if (!air || air.min !== 0 || air.def !== 0) fail(`${where}: air is not state 0 (the block_display default)`)
  const statesChecked = data.unknownToPrismarine ? 0 : checkStatesWithPrismarine(data, blocks, where)
  if (data.unknownToPrismarine) console.log(`generate-tables: ${where}: block states not cross-checked (prismarine-block does not know the version)`)

  return {
    protocol,
    minecraft: mcVersion,
    packetIds: packetIdList,
    entityTypes,
    serializerIds: serializerIdList,
    componentIds: componentIdList,
    spawn,
    move,
    profile,
    customModelData,
    dyedColor,
    textShadowColor: protocol >= overrides.text_shadow_color.min_protocol,
    metadata,
    statesChecked,
    items,
    blocks,
    gate: readGate(data, where),
  }
}

function compare (a, b) {
  return a < b ? -1 : a > b ? 1 : 0
}

function readBlock (b, where) {
  const what = `${where} block ${b.name}`
  if (!/^[a-z0-9_]+$/.test(b.name)) fail(`${what}: odd name`)
  const props = (b.states ?? []).map((s) => {
    let values
    if (s.type === 'bool') {
      // minecraft-data lists no values for bool; vanilla's order (and prismarine-block's) is
      // true, false.
      if (s.values !== undefined && !same(s.values, ['true', 'false'])) fail(`${what}: bool ${s.name} values ${s.values}`)
      values = ['true', 'false']
    } else if (s.type === 'enum' || s.type === 'int') {
      values = s.values
      if (!Array.isArray(values) || values.length === 0) fail(`${what}: ${s.name} has no values`)
      for (const v of values) {
        if (typeof v !== 'string' || !/^[a-z0-9_]+$/.test(v)) fail(`${what}: ${s.name} value ${v}`)
        if (s.type === 'int' && !/^(0|[1-9][0-9]*)$/.test(v)) fail(`${what}: int ${s.name} value ${v}`)
      }
      if (new Set(values).size !== values.length) fail(`${what}: ${s.name} repeats a value`)
    } else {
      fail(`${what}: property ${s.name} of unknown type ${s.type}`)
    }
    if (s.num_values !== values.length) fail(`${what}: ${s.name} num_values ${s.num_values} != ${values.length}`)
    if (!/^[a-z0-9_]+$/.test(s.name)) fail(`${what}: odd property name ${s.name}`)
    return { name: s.name, values }
  })
  if (new Set(props.map((p) => p.name)).size !== props.length) fail(`${what}: a property twice`)
  const count = props.reduce((n, p) => n * p.values.length, 1)
  if (count !== b.maxStateId - b.minStateId + 1) {
    fail(`${what}: ${count} property combinations but states ${b.minStateId}..${b.maxStateId}`)
  }
  if (!(b.defaultState >= b.minStateId && b.defaultState <= b.maxStateId)) fail(`${what}: default state out of range`)
  return { name: b.name, min: b.minStateId, def: b.defaultState, props }
}

// The state id rule of render/tables.cpp: min_state + the mixed-radix number of the value indices,
// the LAST property the fastest digit.
function stateId (block, indices) {
  let n = 0
  block.props.forEach((p, i) => { n = n * p.values.length + indices[i] })
  return block.min + n
}

// Cross-check the rule with prismarine-block on every state of every block with properties, both
// ways (fromProperties and fromStateId); about 26,000 states per version.
function checkStatesWithPrismarine (data, blocks, where) {
  const Block = prismarineBlockLoader(data)
  let checked = 0
  for (const b of blocks) {
    if (b.props.length === 0) continue
    const total = b.props.reduce((n, p) => n * p.values.length, 1)
    for (let k = 0; k < total; ++k) {
      const indices = []
      let rest = k
      for (let i = b.props.length - 1; i >= 0; --i) {
        indices[i] = rest % b.props[i].values.length
        rest = Math.floor(rest / b.props[i].values.length)
      }
      const id = stateId(b, indices)
      const props = Object.fromEntries(b.props.map((p, i) => [p.name, p.values[indices[i]]]))
      const viaProperties = Block.fromProperties(b.name, props, 0).stateId
      if (viaProperties !== id) fail(`${where} ${b.name} ${JSON.stringify(props)}: prismarine-block fromProperties ${viaProperties}, tables ${id}`)
      const back = Block.fromStateId(id, 0)
      if (back.name !== b.name) fail(`${where} state ${id}: prismarine-block says ${back.name}, tables ${b.name}`)
      const got = back.getProperties()
      for (const [name, value] of Object.entries(props)) {
        if (String(got[name]) !== value) fail(`${where} ${b.name} state ${id}: prismarine-block ${name}=${got[name]}, tables ${value}`)
      }
      ++checked
    }
  }
  return checked
}

// ---- overrides --------------------------------------------------------------------------------

function readOverrides () {
  const o = JSON.parse(fs.readFileSync(overridesPath, 'utf8'))
  const needSource = (what, x) => {
    if (typeof x?.source !== 'string' || x.source.length < 10) fail(`overrides.json ${what}: no source`)
  }
  needSource('display_metadata', o.display_metadata)
  needSource('item_display_modes', o.item_display_modes)
  needSource('spawn_velocity', o.spawn_velocity)
  needSource('text_shadow_color', o.text_shadow_color)
  o.custom_model_data.forEach((c, i) => needSource(`custom_model_data[${i}]`, c))
  // display_metadata.fields: {field, key, kinds, serializer, default, from, to?}; a field may
  // have several entries with disjoint protocol ranges or kinds.
  const dm = o.display_metadata
  if (!Array.isArray(dm.fields)) fail('overrides.json display_metadata: no fields list')
  dm.fields.forEach((s, i) => {
    const what = `display_metadata.fields[${i}] (${s.field})`
    if (!DISPLAY_FIELDS.includes(s.field)) fail(`overrides.json ${what}: unknown field (known: ${DISPLAY_FIELDS.join(', ')})`)
    if (typeof s.key !== 'string' || !/^[a-z0-9_]+$/.test(s.key)) fail(`overrides.json ${what}: key`)
    if (!Array.isArray(s.kinds) || s.kinds.length === 0 || s.kinds.some((k) => !ENTITY_KINDS.includes(k))) fail(`overrides.json ${what}: kinds`)
    if (!Number.isInteger(s.from) || (s.to !== undefined && (!Number.isInteger(s.to) || s.to < s.from))) fail(`overrides.json ${what}: from/to`)
    if (!SERIALIZERS.includes(s.serializer)) fail(`overrides.json ${what}: serializer ${s.serializer}`)
    const d = s.default
    switch (s.serializer) {
      case 'byte': if (!Number.isInteger(d) || d < -128 || d > 127) fail(`${what}: byte default`); break
      case 'int': if (!Number.isInteger(d) || d < -(2 ** 31) || d >= 2 ** 31) fail(`${what}: int default`); break
      case 'float': if (typeof d !== 'number' || Math.fround(d) !== d) fail(`${what}: float default`); break
      case 'vector3': case 'quaternion': {
        const n = s.serializer === 'vector3' ? 3 : 4
        if (!Array.isArray(d) || d.length !== n || d.some((x) => typeof x !== 'number' || Math.fround(x) !== x)) fail(`${what}: ${s.serializer} default`)
        break
      }
      case 'item_stack': case 'component': if (d !== 'empty') fail(`${what}: default must be "empty"`); break
      case 'block_state': if (d !== 'air') fail(`${what}: default must be "air"`); break
    }
  })
  o.item_display_modes.modes.forEach((m, i) => {
    if (m.value !== i || !/^[a-z_]+$/.test(m.name) || !Number.isInteger(m.min_protocol)) fail(`overrides.json item_display_modes[${i}]`)
  })
  return o
}

// ---- C++ output -------------------------------------------------------------------------------

const HEADER = (inputs) => `// Generated by minecraft/generate-tables.mjs (scripts/regen-tables) from ${inputs}.
// Do not edit: change the generator or render/tables/overrides.json and regenerate.
// clang-format off
`

const cppString = (s) => {
  if (!/^[a-z0-9_.]*$/.test(s)) fail(`unexpected characters in ${JSON.stringify(s)}`)
  return `"${s}"`
}

function cppFloat (x) {
  if (!Number.isFinite(x) || Math.fround(x) !== x) fail(`not a binary32: ${x}`)
  const s = String(x)
  return (/[.e]/.test(s) ? s : `${s}.0`) + 'f'
}

// Lays out `parts` (strings) separated by ", " in lines of at most `width` characters.
function wrap (parts, indent = '  ', width = 100) {
  const lines = []
  let line = ''
  for (const p of parts) {
    const piece = p + ','
    if (line && indent.length + line.length + 1 + piece.length > width) {
      lines.push(indent + line)
      line = piece
    } else {
      line = line ? `${line} ${piece}` : piece
    }
  }
  if (line) lines.push(indent + line)
  return lines.join('\n')
}

function generate ({ check, outDir, namespace, only }) {
  if (!dataDir && mcdPackage.version !== EXPECTED_MCD) fail(`minecraft-data ${mcdPackage.version} installed, ${EXPECTED_MCD} expected (npm ci in minecraft/)`)
  const overrides = readOverrides()
  const chosen = only ? VERSIONS.filter(([protocol]) => only.includes(protocol)) : VERSIONS
  if (only && chosen.length !== only.length) fail(`--versions: not all of ${only.join(', ')} are in render/tables/versions.json`)
  const tables = chosen.map(([protocol, mc, aliases = []]) => readVersion(protocol, mc, aliases, overrides))
  const mcdInputs = dataDir ? `the minecraft-data folder given with --data and render/tables/overrides.json`
    : `minecraft-data ${EXPECTED_MCD} and render/tables/overrides.json`
  const files = new Map()
  const gate = gateOutputs(tables)

  // Shared property pool: each distinct value list once, each distinct property sequence once.
  const valueLists = new Map() // key -> first index into property_values
  const propertyValues = []
  const sequences = new Map() // key -> first index into properties
  const properties = []
  const valueListIndex = (values) => {
    const key = values.join(',')
    if (!valueLists.has(key)) {
      valueLists.set(key, propertyValues.length)
      propertyValues.push(...values)
    }
    return valueLists.get(key)
  }
  const sequenceIndex = (props) => {
    if (props.length === 0) return 0
    const key = props.map((p) => `${p.name}=${p.values.join(',')}`).join(';')
    if (!sequences.has(key)) {
      sequences.set(key, properties.length)
      for (const p of props) properties.push([p.name, valueListIndex(p.values), p.values.length])
    }
    return sequences.get(key)
  }

  // Item and block lists, one array per distinct list, named after the first protocol using it.
  const itemArrays = new Map() // content key -> { name, entries }
  const blockArrays = new Map()
  for (const t of tables) {
    const itemKey = JSON.stringify(t.items)
    if (!itemArrays.has(itemKey)) itemArrays.set(itemKey, { name: `items_${t.protocol}`, entries: t.items })
    t.itemArray = itemArrays.get(itemKey)
    const blockRows = t.blocks.map((b) => [b.name, b.min, b.def, sequenceIndex(b.props), b.props.length])
    const blockKey = JSON.stringify(blockRows)
    if (!blockArrays.has(blockKey)) blockArrays.set(blockKey, { name: `blocks_${t.protocol}`, entries: blockRows })
    t.blockArray = blockArrays.get(blockKey)
  }

  // Display metadata (entities.json metadataKeys + overrides.json): one slot array and one
  // layout per distinct list, named after the first protocol using it.
  const slotRow = (s) => {
    let intDefault = 0
    let floats = [0, 0, 0, 0]
    switch (s.serializer) {
      case 'byte': case 'int': intDefault = s.default; break
      case 'block_state': intDefault = 0; break // air (checked to be state 0 in every version)
      case 'float': floats = [s.default, 0, 0, 0]; break
      case 'vector3': floats = [...s.default, 0]; break
      case 'quaternion': floats = [...s.default]; break
    }
    return `{${s.index}, display_field::${s.field}, serializer::${SERIALIZER_ENUM[s.serializer]}, ${intDefault}, {${floats.map(cppFloat).join(', ')}}}, // ${s.key}`
  }
  const layoutLists = new Map() // content key -> { name, slots }
  for (const t of tables) {
    t.layoutNames = ENTITY_KINDS.map((kind, k) => {
      const slots = t.metadata.layouts[k]
      const key = kind + JSON.stringify(slots.map((s) => [s.index, s.field, s.serializer, s.default]))
      if (!layoutLists.has(key)) layoutLists.set(key, { name: `${kind}_${t.protocol}`, slots })
      return layoutLists.get(key).name
    })
  }
  const modeLists = new Map() // key -> { name, modes }
  for (const t of tables) {
    const modes = overrides.item_display_modes.modes.filter((m) => t.protocol >= m.min_protocol).map((m) => m.name)
    for (let i = 0; i < modes.length; ++i) {
      if (overrides.item_display_modes.modes[i].name !== modes[i]) fail('item_display_modes: a mode is missing below a later one')
    }
    const key = modes.join(',')
    if (!modeLists.has(key)) modeLists.set(key, { name: `item_display_modes_${t.protocol}`, modes })
    t.modeList = modeLists.get(key)
  }

  // data.hpp: the declarations shared by the generated files and render/tables.cpp.
  const decl = []
  decl.push(HEADER(mcdInputs) + `#pragma once
// The generated tables of render.md §1 (see render/tables/README.md).

#include "render/tables.hpp"

#include <array>
#include <string_view>

namespace emote::render::${namespace} {

inline constexpr std::size_t version_count = ${tables.length};
extern const std::array<const version_table*, version_count> all_versions;
extern const std::string_view supported_protocols;

extern const std::array<std::string_view, ${propertyValues.length}> property_values;
extern const std::array<block_property, ${properties.length}> properties;
${[...layoutLists.values()].map((l) => `extern const metadata_layout ${l.name};`).join('\n')}
${[...modeLists.values()].map((m) => `extern const std::array<std::string_view, ${m.modes.length}> ${m.name};`).join('\n')}
${[...itemArrays.values()].map((a) => `extern const std::array<item_entry, ${a.entries.length}> ${a.name};`).join('\n')}
${[...blockArrays.values()].map((a) => `extern const std::array<block_entry, ${a.entries.length}> ${a.name};`).join('\n')}
${gate.declarations}

} // namespace emote::render::${namespace}
`)
  files.set('data.hpp', decl.join(''))

  const open = `#include "data.hpp"

namespace emote::render::${namespace} {
`
  const close = `
} // namespace emote::render::${namespace}
`

  // common.cpp: property pool, metadata slots, modes.
  files.set('common.cpp', HEADER(mcdInputs) + open + `
// Block property values: each distinct value list once (bool: true, false).
constinit const std::array<std::string_view, ${propertyValues.length}> property_values{{
${wrap(propertyValues.map(cppString))}
}};

// Block properties {name, first value, value count}: each distinct property sequence once.
constinit const std::array<block_property, ${properties.length}> properties{{
${wrap(properties.map(([n, f, c]) => `{${cppString(n)}, ${f}, ${c}}`))}
}};

// Display metadata (render.md §5.3): per kind and distinct list, {index (the key's position in
// entities.json metadataKeys), field, serializer, int default, float default} ascending index,
// and the slot of each field (255: the kind has no such field in that version).
${[...layoutLists.values()].map((l) => {
  const slotOf = DISPLAY_FIELDS.map((f) => { const i = l.slots.findIndex((s) => s.field === f); return i < 0 ? 255 : i })
  return `constinit const std::array<metadata_slot, ${l.slots.length}> ${l.name}_slots{{
${l.slots.map((s) => '  ' + slotRow(s)).join('\n')}
}};
constinit const metadata_layout ${l.name}{${l.name}_slots, {{${slotOf.join(', ')}}}};
`
}).join('\n')}
// item_display modes by byte value (overrides.json item_display_modes).
${[...modeLists.values()].map((m) => `constinit const std::array<std::string_view, ${m.modes.length}> ${m.name}{{
${wrap(m.modes.map(cppString))}
}};`).join('\n')}

${gate.definitions}
` + close)

  for (const a of itemArrays.values()) {
    files.set(`${a.name}.cpp`, HEADER(mcdInputs) + open + `
// Items {name, registry id}, ascending name.
constinit const std::array<item_entry, ${a.entries.length}> ${a.name}{{
${wrap(a.entries.map(([n, id]) => `{${cppString(n)}, ${id}}`))}
}};
` + close)
  }
  for (const a of blockArrays.values()) {
    files.set(`${a.name}.cpp`, HEADER(mcdInputs) + open + `
// Blocks {name, min state, default state, first property, property count}, ascending name.
constinit const std::array<block_entry, ${a.entries.length}> ${a.name}{{
${wrap(a.entries.map(([n, min, def, fp, pc]) => `{${cppString(n)}, ${min}, ${def}, ${fp}, ${pc}}`))}
}};
` + close)
  }

  // versions.cpp: one version_table per protocol.
  const arr = (xs) => `{{${xs.join(', ')}}}`
  const versionDefs = tables.map((t) => `// ${t.minecraft}: minecraft-data ${t.minecraft}, protocol ${t.protocol}.
constinit const version_table v${t.protocol}{
  ${t.protocol},
  ${cppString(t.minecraft)},
  ${arr(t.packetIds.map((id) => id < 0 ? '-1' : '0x' + id.toString(16).padStart(2, '0')))}, // ${PACKET_KINDS.join(', ')}
  ${arr(t.entityTypes)}, // ${ENTITY_KINDS.join(', ')}
  ${arr(t.serializerIds)}, // ${SERIALIZERS.join(', ')}
  ${arr(t.componentIds)}, // ${COMPONENTS.join(', ')}
  spawn_layout::${t.spawn},
  move_layout::${t.move},
  profile_layout::${t.profile},
  custom_model_data_layout::${t.customModelData},
  dyed_color_layout::${t.dyedColor},
  ${t.textShadowColor},
  ${t.itemArray.name},
  ${t.blockArray.name},
  properties,
  property_values,
  {{${t.layoutNames.map((n) => `&${n}`).join(', ')}}}, // ${ENTITY_KINDS.join(', ')}
  ${t.metadata.playerFlags}, // the player's shared flags
  ${t.modeList.name},
${gate.initializer(t)}
};`)
  files.set('versions.cpp', HEADER(mcdInputs) + open + `
namespace {

${versionDefs.join('\n\n')}

} // namespace

constinit const std::array<const version_table*, version_count> all_versions{{
${wrap(tables.map((t) => `&v${t.protocol}`))}
}};

constinit const std::string_view supported_protocols{"${tables.map((t) => t.protocol).join(', ')}"};
` + close)

  const names = [...files.keys()].sort(compare)
  const total = names.reduce((n, name) => n + Buffer.byteLength(files.get(name)), 0)
  if (check) {
    // --check: the committed files must be exactly what this run generates.
    const present = fs.existsSync(outDir) ? fs.readdirSync(outDir).filter((f) => /\.(cpp|hpp)$/.test(f)) : []
    const stale = []
    for (const name of names) {
      const file = path.join(outDir, name)
      if (!fs.existsSync(file) || fs.readFileSync(file, 'utf8') !== files.get(name)) stale.push(name)
    }
    for (const f of present) if (!files.has(f)) stale.push(f)
    if (stale.length > 0) fail(`out of date in ${path.relative(root, outDir)}/: ${stale.sort(compare).join(', ')} (run scripts/regen-tables)`)
  } else {
    // Write: replace the folder's generated files, keep nothing stale.
    fs.mkdirSync(outDir, { recursive: true })
    for (const f of fs.readdirSync(outDir)) {
      // Only files this generator wrote (its header) are stale; anything else in --out stays.
      const file = path.join(outDir, f)
      if (/\.(cpp|hpp)$/.test(f) && !files.has(f) && fs.readFileSync(file, 'utf8').startsWith('// Generated by minecraft/generate-tables.mjs')) fs.unlinkSync(file)
    }
    for (const name of names) fs.writeFileSync(path.join(outDir, name), files.get(name))
  }
  console.log(`generate-tables: ${dataDir ? `minecraft-data from ${dataDir}` : `minecraft-data ${mcdPackage.version}`}, prismarine-block ${prismarineBlockVersion}; ` +
    `${tables.length} versions, ${itemArrays.size} item lists, ${blockArrays.size} block lists, ` +
    `${properties.length} properties, ${propertyValues.length} property values, ` +
    `${tables.reduce((n, t) => n + t.statesChecked, 0)} block states checked with prismarine-block; ` +
    `${files.size} files, ${total} bytes ${check ? 'up to date' : 'written'} in ${path.relative(root, outDir)}/`)
}

// ---- the gate's packets (docs/spec/gate.md §4) ------------------------------------------------
// Kept apart from the rendering tables above: ids of the packets the gate reads or writes in
// every connection state, the layouts of the fields it reads, and the command-node parser table
// it needs to walk declare_commands. Every shape is checked like the rendering ones.

// [enum name, state, direction, minecraft-data packet name, required]; the order of
// `gate_packet` in render/tables.hpp.
const GATE_PACKETS = [
  ['set_protocol', 'handshaking', 'toServer', 'set_protocol', true],
  ['login_disconnect', 'login', 'toClient', 'disconnect', true],
  ['encryption_begin', 'login', 'toClient', 'encryption_begin', true],
  ['login_success', 'login', 'toClient', 'success', true],
  ['login_compress', 'login', 'toClient', 'compress', true],
  ['login_acknowledged', 'login', 'toServer', 'login_acknowledged', true],
  ['config_disconnect', 'configuration', 'toClient', 'disconnect', true],
  ['config_settings', 'configuration', 'toServer', 'settings', true],
  ['config_finish', 'configuration', 'toServer', 'finish_configuration', true],
  ['play_login', 'play', 'toClient', 'login', true],
  ['player_position', 'play', 'toClient', 'position', true],
  ['respawn', 'play', 'toClient', 'respawn', true],
  ['update_health', 'play', 'toClient', 'update_health', true],
  ['game_state_change', 'play', 'toClient', 'game_state_change', true],
  ['set_passengers', 'play', 'toClient', 'set_passengers', true],
  ['damage_event', 'play', 'toClient', 'damage_event', true],
  ['start_configuration', 'play', 'toClient', 'start_configuration', true],
  ['declare_commands', 'play', 'toClient', 'declare_commands', true],
  ['system_chat', 'play', 'toClient', 'system_chat', true],
  ['tab_complete_response', 'play', 'toClient', 'tab_complete', true],
  ['play_disconnect', 'play', 'toClient', 'kick_disconnect', true],
  ['play_settings', 'play', 'toServer', 'settings', true],
  ['move_position', 'play', 'toServer', 'position', true],
  ['move_position_look', 'play', 'toServer', 'position_look', true],
  ['move_look', 'play', 'toServer', 'look', true],
  ['move_flying', 'play', 'toServer', 'flying', true],
  ['entity_action', 'play', 'toServer', 'entity_action', true],
  ['player_input', 'play', 'toServer', 'player_input', false],
  ['chat_command', 'play', 'toServer', 'chat_command', true],
  ['chat_command_signed', 'play', 'toServer', 'chat_command_signed', true],
  ['tab_complete_request', 'play', 'toServer', 'tab_complete', true],
  ['configuration_acknowledged', 'play', 'toServer', 'configuration_acknowledged', true],
]
// The property kinds of command-node parsers (render/tables.hpp `parser_properties`).
const PARSER_PROPERTIES = ['none', 'float_range', 'double_range', 'integer_range', 'long_range',
  'string_kind', 'flags_byte', 'time', 'registry']

const rangeOf = (t) => fields([['flags', ['bitfield', [{ name: 'unused', size: 6, signed: false },
  { name: 'max_present', size: 1, signed: false }, { name: 'min_present', size: 1, signed: false }]]],
['min', ['switch', { compareTo: 'flags/min_present', fields: { 1: t }, default: 'void' }]],
['max', ['switch', { compareTo: 'flags/max_present', fields: { 1: t }, default: 'void' }]]])
const PROFILE_PROPERTY = fields([['name', 'string'], ['value', 'string'], ['signature', ['option', 'string']]])
const GATE_SHAPES = {
  set_protocol: fields([['protocolVersion', 'varint'], ['serverHost', 'string'], ['serverPort', 'u16'], ['nextState', 'varint']]),
  login_disconnect: fields([['reason', 'string']]),
  login_success: {
    strict_error_handling: fields([['uuid', 'UUID'], ['username', 'string'],
      ['properties', ['array', { countType: 'varint', type: PROFILE_PROPERTY }]], ['strictErrorHandling', 'bool']]),
    plain: fields([['uuid', 'UUID'], ['username', 'string'],
      ['properties', ['array', { countType: 'varint', type: PROFILE_PROPERTY }]]]),
  },
  login_compress: fields([['threshold', 'varint']]),
  empty: ['container', []],
  // Read up to and with the game mode: the SpawnInfo prefix below is checked separately.
  play_login_prefix: [['entityId', 'i32'], ['isHardcore', 'bool'], ['worldNames', ['array', { countType: 'varint', type: 'string' }]],
    ['maxPlayers', 'varint'], ['viewDistance', 'varint'], ['simulationDistance', 'varint'], ['reducedDebugInfo', 'bool'],
    ['enableRespawnScreen', 'bool'], ['doLimitedCrafting', 'bool'], ['worldState', 'SpawnInfo']],
  spawn_info_prefix: [['dimension', 'varint'], ['name', 'string'], ['hashedSeed', 'i64'],
    ['gamemode', ['mapper', { type: 'i8', mappings: { 0: 'survival', 1: 'creative', 2: 'adventure', 3: 'spectator' } }]]],
  respawn_prefix: [['worldState', 'SpawnInfo']],
  player_position: {
    absolute_first: fields([['x', 'f64'], ['y', 'f64'], ['z', 'f64'], ['yaw', 'f32'], ['pitch', 'f32'], ['flags', 'PositionUpdateRelatives'], ['teleportId', 'varint']]),
    teleport_id_first: fields([['teleportId', 'varint'], ['x', 'f64'], ['y', 'f64'], ['z', 'f64'], ['dx', 'f64'], ['dy', 'f64'], ['dz', 'f64'], ['yaw', 'f32'], ['pitch', 'f32'], ['flags', 'PositionUpdateRelatives']]),
  },
  relatives: {
    absolute_first: ['bitflags', { type: 'u8', flags: ['x', 'y', 'z', 'yaw', 'pitch'] }],
    teleport_id_first: ['bitflags', { type: 'u32', flags: ['x', 'y', 'z', 'yaw', 'pitch', 'dx', 'dy', 'dz', 'yawDelta'] }],
  },
  update_health: fields([['health', 'f32'], ['food', 'varint'], ['foodSaturation', 'f32']]),
  game_state_change_prefix: [['reason', 'u8-mapper'], ['gameMode', 'f32']],
  set_passengers: fields([['entityId', 'varint'], ['passengers', ['array', { countType: 'varint', type: 'varint' }]]]),
  damage_event_prefix: [['entityId', 'varint']],
  declare_commands: fields([['nodes', ['array', { countType: 'varint', type: 'command_node' }]], ['rootIndex', 'varint']]),
  system_chat: fields([['content', 'anonymousNbt'], ['isActionBar', 'bool']]),
  tab_complete_response: fields([['transactionId', 'varint'], ['start', 'varint'], ['length', 'varint'],
    ['matches', ['array', { countType: 'varint', type: fields([['match', 'string'], ['tooltip', ['option', 'anonymousNbt']]]) }]]]),
  play_disconnect: fields([['reason', 'anonymousNbt']]),
  movement: {
    on_ground_bool: { move_position: fields([['x', 'f64'], ['y', 'f64'], ['z', 'f64'], ['onGround', 'bool']]),
      move_position_look: fields([['x', 'f64'], ['y', 'f64'], ['z', 'f64'], ['yaw', 'f32'], ['pitch', 'f32'], ['onGround', 'bool']]),
      move_look: fields([['yaw', 'f32'], ['pitch', 'f32'], ['onGround', 'bool']]),
      move_flying: fields([['onGround', 'bool']]) },
    flags_byte: { move_position: fields([['x', 'f64'], ['y', 'f64'], ['z', 'f64'], ['flags', 'MovementFlags']]),
      move_position_look: fields([['x', 'f64'], ['y', 'f64'], ['z', 'f64'], ['yaw', 'f32'], ['pitch', 'f32'], ['flags', 'MovementFlags']]),
      move_look: fields([['yaw', 'f32'], ['pitch', 'f32'], ['flags', 'MovementFlags']]),
      move_flying: fields([['flags', 'MovementFlags']]) },
  },
  movement_flags: ['bitflags', { type: 'u8', flags: ['onGround', 'hasHorizontalCollision'] }],
  player_input: fields([['inputs', ['bitflags', { type: 'u8', flags: ['forward', 'backward', 'left', 'right', 'jump', 'shift', 'sprint'] }]]]),
  chat_command: fields([['command', 'string']]),
  chat_command_signed_prefix: [['command', 'string']],
  tab_complete_request: fields([['transactionId', 'varint'], ['text', 'string']]),
  settings_prefix: [['locale', 'string'], ['viewDistance', 'i8']],
  node_flags: {
    restricted: ['bitfield', [{ name: 'unused', size: 2, signed: false }, { name: 'allows_restricted', size: 1, signed: false },
      { name: 'has_custom_suggestions', size: 1, signed: false }, { name: 'has_redirect_node', size: 1, signed: false },
      { name: 'has_command', size: 1, signed: false }, { name: 'command_node_type', size: 2, signed: false }]],
    plain: ['bitfield', [{ name: 'unused', size: 3, signed: false }, { name: 'has_custom_suggestions', size: 1, signed: false },
      { name: 'has_redirect_node', size: 1, signed: false }, { name: 'has_command', size: 1, signed: false },
      { name: 'command_node_type', size: 2, signed: false }]],
  },
  parser_properties: {
    none: 'void',
    float_range: rangeOf('f32'),
    double_range: rangeOf('f64'),
    integer_range: rangeOf('i32'),
    long_range: rangeOf('i64'),
    string_kind: ['mapper', { type: 'varint', mappings: { 0: 'SINGLE_WORD', 1: 'QUOTABLE_PHRASE', 2: 'GREEDY_PHRASE' } }],
    flags_byte: null, // any one-byte bitfield (entity, score_holder)
    time: fields([['min', 'i32']]),
    registry: fields([['registry', 'string']]),
  },
}

// The fields of a container, from its start, must be `prefix` (name, type) pairs.
function expectPrefix (what, container, prefix) {
  if (!Array.isArray(container) || container[0] !== 'container' || container[1].length < prefix.length) {
    fail(`${what}: unknown shape ${JSON.stringify(container).slice(0, 300)}`)
  }
  prefix.forEach(([name, type], i) => {
    const f = container[1][i]
    const ok = f.name === name && (type === 'u8-mapper' ? Array.isArray(f.type) && f.type[0] === 'mapper' && f.type[1].type === 'u8' : same(f.type, type))
    if (!ok) fail(`${what}: field ${i} is ${JSON.stringify(f).slice(0, 200)}, expected ${name}: ${JSON.stringify(type)}`)
  })
}

function readGate (data, where) {
  const shape = (state, dir, name) => {
    const t = data.protocol[state][dir].types
    const ref = t.packet[1][1].type[1].fields[name]
    return typeof ref === 'string' ? (t[ref] ?? data.protocol.types[ref]) : ref
  }
  const typeIn = (state, dir, name) => data.protocol[state][dir].types[name] ?? data.protocol.types[name]
  const ids = GATE_PACKETS.map(([kind, state, dir, name, required]) => {
    const mapper = data.protocol[state][dir].types.packet?.[1]?.[0]?.type
    const id = mapperIds(mapper, `${where} ${state} ${dir} packet names`).get(name)
    if (id === undefined) {
      if (required) fail(`${where}: no ${state} ${dir} packet ${name}`)
      return -1
    }
    return id
  })
  expectShape(`${where} set_protocol`, shape('handshaking', 'toServer', 'set_protocol'), GATE_SHAPES.set_protocol)
  expectShape(`${where} login disconnect`, shape('login', 'toClient', 'disconnect'), GATE_SHAPES.login_disconnect)
  const loginSuccess = pickLayout(`${where} login success`, shape('login', 'toClient', 'success'), GATE_SHAPES.login_success)
  expectShape(`${where} compress`, shape('login', 'toClient', 'compress'), GATE_SHAPES.login_compress)
  for (const [s, d, n] of [['login', 'toServer', 'login_acknowledged'], ['configuration', 'toServer', 'finish_configuration'],
    ['play', 'toClient', 'start_configuration'], ['play', 'toServer', 'configuration_acknowledged']]) {
    expectShape(`${where} ${s} ${n}`, shape(s, d, n), GATE_SHAPES.empty)
  }
  expectShape(`${where} configuration disconnect`, shape('configuration', 'toClient', 'disconnect'), GATE_SHAPES.play_disconnect)
  expectPrefix(`${where} configuration settings`, shape('configuration', 'toServer', 'settings'), GATE_SHAPES.settings_prefix)
  expectPrefix(`${where} play settings`, shape('play', 'toServer', 'settings'), GATE_SHAPES.settings_prefix)
  expectPrefix(`${where} play login`, shape('play', 'toClient', 'login'), GATE_SHAPES.play_login_prefix)
  expectPrefix(`${where} SpawnInfo`, typeIn('play', 'toClient', 'SpawnInfo'), GATE_SHAPES.spawn_info_prefix)
  expectPrefix(`${where} respawn`, shape('play', 'toClient', 'respawn'), GATE_SHAPES.respawn_prefix)
  const position = pickLayout(`${where} player position`, shape('play', 'toClient', 'position'), GATE_SHAPES.player_position)
  expectShape(`${where} PositionUpdateRelatives`, typeIn('play', 'toClient', 'PositionUpdateRelatives'), GATE_SHAPES.relatives[position])
  expectShape(`${where} update_health`, shape('play', 'toClient', 'update_health'), GATE_SHAPES.update_health)
  const gameState = shape('play', 'toClient', 'game_state_change')
  expectPrefix(`${where} game_state_change`, gameState, GATE_SHAPES.game_state_change_prefix)
  if (gameState[1][0].type[1].mappings[3] !== 'change_game_mode') fail(`${where}: game_state_change reason 3 is not change_game_mode`)
  expectShape(`${where} set_passengers`, shape('play', 'toClient', 'set_passengers'), GATE_SHAPES.set_passengers)
  expectPrefix(`${where} damage_event`, shape('play', 'toClient', 'damage_event'), GATE_SHAPES.damage_event_prefix)
  expectShape(`${where} declare_commands`, shape('play', 'toClient', 'declare_commands'), GATE_SHAPES.declare_commands)
  expectShape(`${where} system_chat`, shape('play', 'toClient', 'system_chat'), GATE_SHAPES.system_chat)
  expectShape(`${where} tab_complete response`, shape('play', 'toClient', 'tab_complete'), GATE_SHAPES.tab_complete_response)
  expectShape(`${where} kick_disconnect`, shape('play', 'toClient', 'kick_disconnect'), GATE_SHAPES.play_disconnect)
  const movement = pickLayout(`${where} movement`, {
    move_position: shape('play', 'toServer', 'position'), move_position_look: shape('play', 'toServer', 'position_look'),
    move_look: shape('play', 'toServer', 'look'), move_flying: shape('play', 'toServer', 'flying'),
  }, GATE_SHAPES.movement)
  if (movement === 'flags_byte') expectShape(`${where} MovementFlags`, typeIn('play', 'toServer', 'MovementFlags'), GATE_SHAPES.movement_flags)
  const input = ids[GATE_PACKETS.findIndex((p) => p[0] === 'player_input')]
  if (input >= 0) expectShape(`${where} player_input`, shape('play', 'toServer', 'player_input'), GATE_SHAPES.player_input)
  expectShape(`${where} chat_command`, shape('play', 'toServer', 'chat_command'), GATE_SHAPES.chat_command)
  expectPrefix(`${where} chat_command_signed`, shape('play', 'toServer', 'chat_command_signed'), GATE_SHAPES.chat_command_signed_prefix)
  expectShape(`${where} tab_complete request`, shape('play', 'toServer', 'tab_complete'), GATE_SHAPES.tab_complete_request)

  // entity_action: the ids of sneak (gone from 771: player_input's shift bit) and sprint.
  const action = shape('play', 'toServer', 'entity_action')
  expectPrefix(`${where} entity_action`, action, [['entityId', 'varint']])
  if (action[1][1].name !== 'actionId' || action[1][1].type[0] !== 'mapper') fail(`${where} entity_action: no actionId mapper`)
  const actions = mapperIds(action[1][1].type, `${where} entity_action ids`)
  const actionIds = ['start_sneaking', 'stop_sneaking', 'start_sprinting', 'stop_sprinting'].map((a) => actions.get(a) ?? -1)
  if (actionIds[2] < 0 || actionIds[3] < 0) fail(`${where} entity_action: no sprint actions`)
  // Sneaking is either an action (both ids) or player_input's shift bit (from 771 only that).
  if ((actionIds[0] < 0) !== (actionIds[1] < 0)) fail(`${where} entity_action: one sneak action without the other`)
  if (actionIds[0] < 0 && input < 0) fail(`${where}: no way to read sneaking`)

  // Command nodes: flag layout and each parser id's property kind.
  const node = typeIn('play', 'toClient', 'command_node')
  if (!node || node[0] !== 'container' || node[1].length !== 4) fail(`${where} command_node: unknown shape`)
  const nodeFlags = pickLayout(`${where} command_node flags`, node[1][0].type, GATE_SHAPES.node_flags)
  expectShape(`${where} command_node children`, node[1][1], { name: 'children', type: ['array', { countType: 'varint', type: 'varint' }] })
  expectShape(`${where} command_node redirect`, node[1][2], { name: 'redirectNode', type: ['switch', { compareTo: 'flags/has_redirect_node', fields: { 1: 'varint' }, default: 'void' }] })
  const extra = node[1][3].type[1].fields
  expectShape(`${where} command_node literal`, extra[1], fields([['name', 'string']]))
  const argument = extra[2]
  if (!argument || argument[0] !== 'container' || argument[1].length !== 4 || !same(argument[1][0], { name: 'name', type: 'string' }) ||
      argument[1][1].name !== 'parser' || argument[1][2].name !== 'properties' ||
      !same(argument[1][3], { name: 'suggestionType', type: ['switch', { compareTo: '../flags/has_custom_suggestions', fields: { 1: 'string' }, default: 'void' }] })) {
    fail(`${where} command_node argument: unknown shape`)
  }
  const parserIds = mapperIds(argument[1][1].type, `${where} command parsers`)
  const props = argument[1][2].type[1].fields
  // A parser the switch does not list takes its default: none (protodef's switch without a
  // default is void; vanilla's minecraft:style, nbt_tag, item_slots, loot_* carry nothing).
  const fallback = argument[1][2].type[1].default ?? 'void'
  const parsers = []
  for (const [name, id] of parserIds) {
    const p = props[name] ?? fallback
    let kind
    for (const [k, s] of Object.entries(GATE_SHAPES.parser_properties)) {
      if (s !== null && same(p, s)) kind = k
    }
    if (kind === undefined && Array.isArray(p) && p[0] === 'bitfield' && p[1].reduce((n, b) => n + b.size, 0) === 8) kind = 'flags_byte'
    if (kind === undefined) fail(`${where} command parser ${name}: unknown properties ${JSON.stringify(p)}`)
    parsers[id] = kind
  }
  for (let i = 0; i < parsers.length; ++i) if (parsers[i] === undefined) fail(`${where}: command parser id ${i} missing`)
  const stringParser = parserIds.get('brigadier:string')
  if (stringParser === undefined) fail(`${where}: no brigadier:string parser`)
  return { ids, loginSuccess, position, movement, actionIds, nodeFlags, parsers, stringParser }
}

// The C++ pieces of the gate: the parser-kind lists (one array per distinct list) and each
// version's gate_table initializer.
function gateOutputs (tables) {
  const lists = new Map()
  for (const t of tables) {
    const key = t.gate.parsers.join(',')
    if (!lists.has(key)) lists.set(key, { name: `command_parsers_${t.protocol}`, kinds: t.gate.parsers })
    t.gate.parserList = lists.get(key)
  }
  const declarations = [...lists.values()].map((l) => `extern const std::array<parser_properties, ${l.kinds.length}> ${l.name};`).join('\n')
  const definitions = [...lists.values()].map((l) => `// Command-node parser property kinds by parser id (gate.md §6).
constinit const std::array<parser_properties, ${l.kinds.length}> ${l.name}{{
${wrap(l.kinds.map((k) => `parser_properties::${k}`))}
}};`).join('\n\n')
  const initializer = (t) => `  {
    ${arr(t.gate.ids.map((id) => id < 0 ? '-1' : '0x' + id.toString(16).padStart(2, '0')))}, // ${GATE_PACKETS.map((p) => p[0]).join(', ')}
    login_success_layout::${t.gate.loginSuccess},
    player_position_layout::${t.gate.position},
    movement_layout::${t.gate.movement},
    ${arr(t.gate.actionIds)}, // start_sneaking, stop_sneaking, start_sprinting, stop_sprinting
    ${t.gate.nodeFlags === 'restricted'},
    ${t.gate.stringParser},
    ${t.gate.parserList.name},
  },`
  return { declarations, definitions, initializer }
}

const arr = (xs) => `{{${xs.join(', ')}}}`

const usage = 'usage: node generate-tables.mjs [--check] [--data DIR] [--out DIR] [--namespace NAME] [--versions P,P...]'
const options = { check: false, outDir: path.join(root, 'render', 'tables', 'generated'), namespace: 'generated', only: null }
try {
  const args = process.argv.slice(2)
  for (let i = 0; i < args.length; ++i) {
    const value = () => {
      if (i + 1 >= args.length) fail(`${args[i]} needs a value (${usage})`)
      return args[++i]
    }
    switch (args[i]) {
      case '--check': options.check = true; break
      case '--data': dataDir = path.resolve(value()); break
      case '--out': options.outDir = path.resolve(value()); break
      case '--namespace': {
        options.namespace = value()
        if (!/^[a-z_][a-z0-9_]*$/.test(options.namespace)) fail(`--namespace ${options.namespace}: not a C++ identifier`)
        break
      }
      case '--versions': {
        options.only = value().split(',').map((x) => Number.parseInt(x, 10))
        if (options.only.some((x) => !Number.isInteger(x))) fail(`--versions: protocols separated by commas (${usage})`)
        break
      }
      default: fail(`unknown argument ${args[i]} (${usage})`)
    }
  }
  generate(options)
} catch (e) {
  console.error(`generate-tables: ${e.message}`)
  process.exit(1)
}
