// Types of emote-sim's JavaScript client (index.js; docs/guide/bots.md). The wire shapes are those
// of docs/spec/protocol.md: requests §4, player state §5, frames and events §6.

/// <reference types="node" />

export declare const DEFAULT_ADDRESS: string
/** protocol.md §3: every error code a reply can carry. */
export declare const ERROR_CODES: readonly ErrorCode[]

export type ErrorCode =
  | 'bad_json' | 'line_too_long' | 'unknown_op' | 'bad_request' | 'unsupported_protocol'
  | 'unauthorized' | 'forbidden' | 'unknown_player' | 'player_exists' | 'unknown_emote'
  | 'not_standalone' | 'disabled' | 'no_permission' | 'cooldown' | 'already_playing'
  | 'display_limit' | 'not_playing' | 'clock_not_manual' | 'shutting_down' | 'reload_empty'
  | 'content_unavailable' | 'molang_budget' | 'molang_error' | 'internal'

export type StopReason =
  | 'MANUAL' | 'REPLACED' | 'FINISHED' | 'MOVED' | 'SUBMERGED' | 'PLAYER_UNAVAILABLE' | 'JUMPED'
  | 'MOUNTED' | 'DAMAGED' | 'ATTACKED' | 'GAME_MODE_CHANGED' | 'DISCONNECTED' | 'EMOTE_REMOVED'
  | 'RELOAD' | 'SERVER_STOPPING' | 'ERROR'

export type Role = 'solo' | 'initiator' | 'partner'
export type Vec3 = [number, number, number]

export interface Reply {
  op: 'reply'
  id?: number | string
  tick: number
  ok: boolean
  error?: { code: ErrorCode, message: string, path?: string, remaining_ticks?: number }
  [field: string]: unknown
}

export interface Welcome {
  op: 'welcome'
  protocol: number
  server: string
  tick: number
  tps: number
  clock: 'realtime' | 'manual'
  role: 'controller' | 'observer'
  emotes: number
}

/** One frame event (protocol.md §6): `type` and that type's fields. */
export interface SimEvent {
  type: string
  session?: number
  player?: string
  emote?: string
  role?: Role
  reason?: StopReason
  initiator?: string
  partner?: string
  handle?: number
  [field: string]: unknown
}

/** One packet entry (render.md §6): `to` lists its players, or, for a subscription with
 * `audiences` (render.md §6.1), `audience` indexes the frame's `audiences`. */
export interface PacketEntry { to?: string[], audience?: number, protocol: number, data: string }

export interface Frame {
  op: 'frame'
  tick: number
  events: SimEvent[]
  /** Each distinct recipient list once (a subscription with `audiences`, render.md §6.1). */
  audiences?: string[][]
  packets?: PacketEntry[]
  dropped?: number
  /** The line as the server sent it (not enumerable). */
  readonly line: string
}

/** An error reply (docs/guide/bots.md, Errors: the names of the Python and Java clients). Its
 * `message` is `CODE: DETAIL`. */
export declare class EmoteSimError extends Error {
  constructor (reply: Reply)
  code: ErrorCode
  /** The JSON path of the offending field ('' when none). */
  path: string
  /** What the error refers to (protocol.md §3): the request's op, player and emote ('' when none). */
  op: string
  player: string
  emote: string
  /** The text for a person (the mod's refusal message for emote.play). */
  text: string
  /** The text for a developer, naming the op and the subject. */
  detail: string
  remainingTicks?: number
  reply: Reply
}

export declare class ConnectionClosedError extends Error {
  code: 'connection_closed'
  bye: { op: 'bye', reason?: string } | null
}

export declare class TimeoutError extends Error {
  code: 'timeout'
}

export type Selector = string | ((event: SimEvent) => boolean)

export interface WaitOptions {
  /** Wall time in ms (default: the client's timeout). */
  timeout?: number
  /** Give up after this many ticks; a manual clock is stepped by the client meanwhile. */
  ticks?: number
  /** What the TimeoutError says was awaited (default: from the selector). */
  description?: string
}

export interface SubscribeFilter {
  events?: string[]
  dimensions?: string[]
  /** Player keys, or 'own': the players this client joined. */
  players?: string[] | 'own'
  lossy?: boolean
  emptyFrames?: boolean
  matrix?: boolean
  packets?: boolean
  /** With packets: entries name an index into the frame's `audiences` instead of a `to` list
   * (render.md §6.1). */
  audiences?: boolean
}

export interface ReconnectOptions {
  initialDelay?: number
  maxDelay?: number
  timeout?: number
  /** Join every player again with its last state after reconnecting (default false: forget them). */
  rejoin?: boolean
}

export interface ConnectOptions {
  role?: 'controller' | 'observer'
  token?: string
  client?: string
  /** ms a request waits for its reply (default 10000). */
  timeout?: number
  reconnect?: boolean | ReconnectOptions
  protocol?: number
}

/** Player state fields (protocol.md §5) and join options. */
export interface PlayerState {
  position?: Vec3
  yaw?: number
  pitch?: number
  dimension?: string
  [field: string]: unknown
}

export interface JoinOptions extends PlayerState {
  position: Vec3
  keepOnDisconnect?: boolean
}

/** Why a would-be partner did not join an open offer (players.md §7.3). */
export type MatchFailure = 'participant' | 'partner_dead' | 'initiator_offline' | 'same_player' |
  'initiator_dead' | 'dimension' | 'height' | 'too_far' | 'same_spot' | 'initiator_facing' |
  'partner_facing' | 'line_of_sight'
export interface PlayResult {
  session: number
  emote: string
  role: Role
  /** A new initiator's nearest open offer of the same emote that it did not join, and why. */
  unmatched?: { session: number, initiator: string, reason: MatchFailure }
}

export declare class Player {
  readonly client: Client
  readonly name: string
  readonly keepOnDisconnect: boolean
  play (emote: string, fields?: { source?: 'command' | 'idle' | 'api', bypass?: boolean, placement?: { position: Vec3, yaw: number } }): Promise<PlayResult>
  /** Stops this player's playback only. */
  stop (): Promise<Reply>
  update (state: PlayerState): Promise<Reply>
  event (event: 'jump' | 'damage' | 'attack' | 'mount' | 'respawn', fields?: Record<string, unknown>): Promise<Reply>
  leave (): Promise<Reply>
  state (): Promise<Reply>
  /** Whether an event is about this player or a session it takes part in. */
  about (event: SimEvent): boolean
  on (selector: Selector, handler: (event: SimEvent, frame: Frame) => void): () => void
  waitFor (what: Selector, options?: WaitOptions): Promise<SimEvent>
  frames (options?: { timeout?: number }): AsyncGenerator<Frame>
}

export interface Players extends Iterable<Player> {
  join (player: string, fields: JoinOptions): Promise<Player>
  get (name: string): Player | undefined
  names (): string[]
  readonly size: number
}

export declare class Client implements AsyncIterable<Frame> {
  constructor (address?: string, options?: ConnectOptions)
  readonly address: string
  welcome: Welcome | null
  /** The latest tick the server reported. */
  tick: number
  readonly players: Players
  readonly manualClock: boolean
  readonly tps: number
  readonly connected: boolean

  connect (): Promise<Welcome>
  close (): Promise<void>

  on (selector: Selector, handler: (event: SimEvent, frame: Frame) => void): () => void
  on (selector: 'frame', handler: (frame: Frame) => void): () => void
  on (selector: 'reply.error', handler: (error: EmoteSimError) => void): () => void
  on (selector: 'disconnect', handler: (bye: { op: 'bye', reason?: string }) => void): () => void
  on (selector: 'reconnect', handler: (welcome: Welcome) => void): () => void
  on (selector: 'reconnect.failed', handler: (error: Error) => void): () => void
  once (selector: Selector, handler: (...args: any[]) => void): () => void

  sendRaw (message: string | object): void
  send (op: string, fields?: Record<string, unknown>): Promise<void>
  request (op: string, fields?: Record<string, unknown>, options?: { timeout?: number }): Promise<Reply>

  waitFor (what: Selector, options?: WaitOptions): Promise<SimEvent>
  waitTicks (n: number): Promise<number>
  frames (options?: { timeout?: number }): AsyncGenerator<Frame>
  [Symbol.asyncIterator] (): AsyncIterator<Frame>

  ping (): Promise<Reply>
  subscribe (filter?: SubscribeFilter): Promise<Reply>
  join (player: string, fields: JoinOptions): Promise<Reply>
  update (player: string, state: PlayerState): Promise<Reply>
  event (player: string, event: string, fields?: Record<string, unknown>): Promise<Reply>
  leave (player: string): Promise<Reply>
  play (player: string, emote: string, fields?: Record<string, unknown>): Promise<PlayResult>
  stop (player: string): Promise<Reply>
  /** Stops EVERY player's emote on the server. */
  stopAll (): Promise<number>
  listEmotes (): Promise<Array<{ id: string, type: string, name: string, description: string, standalone: boolean, duration_ticks: number, fixed_duration: boolean, cooldown_ticks: number, two_player: boolean }>>
  info (emote: string): Promise<Reply>
  reload (): Promise<Reply>
  register (document: object): Promise<string>
  unregister (emote: string): Promise<Reply>
  worldBlocks (set: object[], dimension?: string): Promise<number>
  worldClear (dimension?: string): Promise<number>
  cooldownClear (player?: string): Promise<number>
  state (player?: string): Promise<Reply>
  /** state.get page by page: each reply holds at most `limit` players (default 1000), key order. */
  statePages (limit?: number): AsyncGenerator<Reply>
  resync (players?: string[]): Promise<number>
  step (ticks?: number): Promise<number>
}

export declare function connect (address?: string, options?: ConnectOptions): Promise<Client>
export declare function parseAddress (address: string): { host: string, port: number } | { path: string }
export declare function matcher (what: Selector): (event: SimEvent) => boolean
export declare function describeSelector (what: Selector): string
/** A partner's placement `distance` blocks (≤ 2) in front of an initiator, facing it (players.md §7.4). */
export declare function facingPartner (position: Vec3, yaw: number, distance?: number): { position: Vec3, yaw: number }
/** An entry's players: its `to` list or the frame's `audiences[entry.audience]`; a RangeError
 * naming the tick and the index when there is no such audience (render.md §6.1). */
export declare function entryRecipients (frame: Frame, entry: PacketEntry): string[]
/** render.md §6: one viewer's packets of a frame, in order (either form of §6.1). */
export declare function viewerPackets (frame: Frame, player: string): Array<{ protocol: number, data: Buffer }>
export declare function readVarInt (buf: Uint8Array, pos?: number): [number, number]
export declare function packetId (packet: Uint8Array): number
