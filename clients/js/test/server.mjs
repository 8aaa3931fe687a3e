// Starts the real emote-sim server for the client tests: the binary named by $EMOTE_SIM (CTest
// passes the built one; default build/release/server/emote-sim), on ephemeral loopback addresses
// (127.0.0.1:0 and a Unix socket), with the bundled configuration and sample emotes.

import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..')
export const BINARY = process.env.EMOTE_SIM ?? path.join(ROOT, 'build', 'release', 'server', 'emote-sim')
export const CONFIG = path.join(ROOT, 'config', 'emote-sim.json')

export class Server {
  /** clock: 'manual' | 'realtime'; extra: more `serve` options; args: replaces the defaults. */
  constructor ({ clock = 'manual', extra = [], args } = {}) {
    this.dir = mkdtempSync(path.join(tmpdir(), 'emote-sim-js-'))
    this.sock = path.join(this.dir, 's.sock')
    this.unix = 'unix:' + this.sock
    this.args = args ?? ['serve', '--config', CONFIG, '--clock', clock,
      '--listen', '127.0.0.1:0', '--listen', this.unix, ...extra]
  }

  /** Start and resolve once it is ready; `tcp` is then its TCP address. */
  start () {
    return new Promise((resolve, reject) => {
      this.proc = spawn(BINARY, this.args, { cwd: this.dir, stdio: ['ignore', 'pipe', 'pipe'] })
      let log = ''
      const timer = setTimeout(() => reject(new Error('the server did not start within 20 s:\n' + log)), 20000)
      const onData = (chunk) => {
        log += chunk
        const m = /listening on (127\.0\.0\.1:\d+)/.exec(log)
        if (m && log.includes('ready')) {
          clearTimeout(timer)
          this.tcp = m[1]
          resolve(this)
        }
      }
      this.proc.stdout.on('data', onData)
      this.proc.stderr.on('data', onData)
      this.proc.once('exit', (code) => { clearTimeout(timer); reject(new Error(`the server exited (${code}):\n${log}`)) })
    })
  }

  stop () {
    const p = this.proc
    this.proc = null
    if (!p || p.exitCode !== null) return Promise.resolve()
    return new Promise((resolve) => {
      p.removeAllListeners('exit')
      p.once('exit', resolve)
      p.kill('SIGTERM')
      setTimeout(() => p.kill('SIGKILL'), 20000).unref()
    })
  }

  async restart () {
    await this.stop()
    return this.start()
  }

  async dispose () {
    await this.stop()
    rmSync(this.dir, { recursive: true, force: true })
  }
}

export async function startServer (options) {
  return new Server(options).start()
}
