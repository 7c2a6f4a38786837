import { existsSync } from "node:fs"
import { dirname, join } from "node:path"
import { LspClient } from "./client.ts"
import { shellQuote } from "../protocol/hint.ts"
import { LspCrashedError, LspStartError } from "./errors.ts"
import { findProgram, type LanguageSpec, type ServerHelper, type ServerSpec } from "./servers.ts"

export interface PoolOptions {
  /** The project root: servers never get a root outside it. */
  readonly root: string
  /** anvil's environment; servers get it plus their own `env`. */
  readonly env: Readonly<Record<string, string | undefined>>
  /** A server unused this long is stopped (it starts again on the next use). */
  readonly idleMs: number
  /** How many times a crashed server is started again in one session. */
  readonly maxRestarts: number
  /** Deadline for start-up (initialize). */
  readonly startTimeoutMs: number
}

/** The server chosen for a language, or why there is none. */
export type Provider =
  | { readonly kind: "server"; readonly spec: ServerSpec; readonly program: string; readonly missingHelpers: ReadonlyArray<ServerHelper> }
  | { readonly kind: "none"; readonly tried: ReadonlyArray<string> }

interface Slot {
  client: LspClient | undefined
  starting: Promise<LspClient> | undefined
  crashes: number
  idle: ReturnType<typeof setTimeout> | undefined
  lastFailure?: string
  /** The end of the server's stderr at its last crash. */
  lastStderr?: string
}

/** A word as a shell reads it back: quoted when it holds anything but plain characters. */
const shellWord = (word: string): string => (/^[\w@%+=:,./-]+$/.test(word) ? word : shellQuote(word))

/**
 * The running servers: one per language and root, started on first use,
 * stopped after `idleMs` without use and when the pool is closed, started
 * again after a crash up to `maxRestarts` times.
 */
export class LspPool {
  private readonly slots = new Map<string, Slot>()
  private readonly providers = new Map<string, Provider>()
  private readonly hinted = new Set<string>()
  private closed = false

  constructor(readonly options: PoolOptions) {}

  /** The server for a language (found on PATH outside the project), cached for the session. */
  provider(language: LanguageSpec): Provider {
    const cached = this.providers.get(language.id)
    if (cached) return cached
    const tried: Array<string> = []
    let found: Provider = { kind: "none", tried }
    if (!language.disabled && language.untrusted === undefined) {
      for (const spec of language.servers) {
        tried.push(spec.command)
        const program = findProgram(spec.command, { ...this.options.env, ...spec.env }, this.options.root)
        if (!program) continue
        const env = this.serverEnv(spec)
        found = { kind: "server", spec, program, missingHelpers: spec.helpers.filter((h) => !h.present(env, program)) }
        break
      }
    }
    this.providers.set(language.id, found)
    return found
  }

  /** True the first time a language's install hint is asked for in this session. */
  firstHint(language: LanguageSpec): boolean {
    if (this.hinted.has(language.id)) return false
    this.hinted.add(language.id)
    return true
  }

  /** The server's root for a file: the nearest ancestor (inside the project) holding a root marker, else the project root. */
  rootFor(language: LanguageSpec, file: string): string {
    const top = this.options.root
    if (language.rootMarkers.length === 0 || !file.startsWith(`${top}/`)) return top
    for (let dir = dirname(file); dir.startsWith(top); dir = dirname(dir)) {
      if (language.rootMarkers.some((m) => existsSync(join(dir, m)))) return dir
      if (dir === top) break
    }
    return top
  }

  /**
   * How often the server of a language and root failed, when that is more than lsp.max_restarts allows (a crash
   * not counted yet included): it is not started again. Undefined while it may still be started.
   */
  givenUp(language: LanguageSpec, root: string): number | undefined {
    const slot = this.slots.get(`${language.id}\0${root}`)
    const crashes = slot === undefined ? 0 : slot.crashes + (slot.client?.exit ? 1 : 0)
    return crashes > this.options.maxRestarts ? crashes : undefined
  }

  /** The sentence that says a server is not started again, for the failure that used up its last start. */
  givenUpNote(crashes: number): string {
    return `It failed ${crashes} times, more than lsp.max_restarts (${this.options.maxRestarts}) allows: it is not started again in this session.`
  }

  /** The running client for a language and root, started (or restarted after a crash) when needed. */
  async client(language: LanguageSpec, provider: Extract<Provider, { kind: "server" }>, root: string): Promise<LspClient> {
    const key = `${language.id}\0${root}`
    const slot = this.slots.get(key) ?? { client: undefined, starting: undefined, crashes: 0, idle: undefined }
    this.slots.set(key, slot)
    if (slot.client && !slot.client.exit) return this.touch(slot)
    if (slot.starting) return slot.starting.then(() => this.touch(slot))
    if (slot.client?.exit) {
      // It died without being stopped: a crash.
      slot.crashes++
      const { code, signal } = slot.client.exit
      const stderr = slot.client.stderr
      slot.client = undefined
      slot.lastFailure = `${signal ?? `exit code ${code}`}${stderr ? `; stderr: ${stderr.split("\n").slice(-3).join(" | ")}` : ""}`
      slot.lastStderr = stderr
    }
    if (slot.crashes > this.options.maxRestarts) {
      throw new LspCrashedError({
        server: provider.spec.name,
        restarts: this.options.maxRestarts,
        message: `${provider.spec.name} failed ${slot.crashes} times (last: ${slot.lastFailure ?? "unknown"}); it is not started again in this session (limit: ${this.options.maxRestarts} restarts, lsp.max_restarts).`,
        crashes: slot.crashes,
        lastFailure: slot.lastFailure ?? "unknown",
        stderr: slot.lastStderr ?? "",
        command: [provider.program, ...provider.spec.args].map(shellWord).join(" "),
      })
    }
    if (this.closed) throw new LspStartError({ server: provider.spec.name, message: "anvil is shutting down." })
    slot.starting = LspClient.start({
      name: provider.spec.name,
      program: provider.program,
      args: provider.spec.args,
      root,
      env: this.serverEnv(provider.spec),
      ...(provider.spec.initializationOptions !== undefined ? { initializationOptions: provider.spec.initializationOptions } : {}),
      timeoutMs: this.options.startTimeoutMs,
    })
    try {
      slot.client = await slot.starting
    } catch (e) {
      slot.crashes++
      slot.lastFailure = (e as Error).message
      slot.lastStderr = e instanceof LspStartError ? (e.stderr ?? "") : ""
      if (slot.crashes > this.options.maxRestarts && e instanceof LspStartError) {
        throw new LspStartError({ server: e.server, message: `${e.message} ${this.givenUpNote(slot.crashes)}`, ...(e.stderr !== undefined ? { stderr: e.stderr } : {}) })
      }
      throw e
    } finally {
      slot.starting = undefined
    }
    return this.touch(slot)
  }

  /** Whether a server for this language and root is running now (after-edit checks use running or startable ones). */
  running(language: LanguageSpec, root: string): boolean {
    const slot = this.slots.get(`${language.id}\0${root}`)
    return slot?.client !== undefined && !slot.client.exit
  }

  /** The running servers: name, pid, root (bench and tests). */
  list(): ReadonlyArray<{ readonly name: string; readonly pid: number; readonly root: string }> {
    return [...this.slots.values()].flatMap((s) => (s.client && !s.client.exit ? [{ name: s.client.name, pid: s.client.pid, root: s.client.root }] : []))
  }

  private touch(slot: Slot): LspClient {
    if (slot.idle) clearTimeout(slot.idle)
    const client = slot.client!
    client.lastActive = Date.now()
    const check = () => {
      const quiet = Date.now() - client.lastActive
      if (client.busy > 0 || quiet < this.options.idleMs) {
        slot.idle = setTimeout(check, Math.max(50, this.options.idleMs - quiet))
        slot.idle.unref?.()
        return
      }
      slot.idle = undefined
      if (slot.client === client) slot.client = undefined
      void client.stop()
    }
    slot.idle = setTimeout(check, this.options.idleMs)
    slot.idle.unref?.()
    return client
  }

  private serverEnv(spec: ServerSpec): Record<string, string> {
    const env: Record<string, string> = {}
    for (const [k, v] of Object.entries(this.options.env)) if (v !== undefined) env[k] = v
    return { ...env, ...spec.env }
  }

  /** Stops every server and waits for them to be gone. */
  async close(): Promise<void> {
    this.closed = true
    const clients: Array<LspClient> = []
    for (const slot of this.slots.values()) {
      if (slot.idle) clearTimeout(slot.idle)
      if (slot.starting) await slot.starting.catch(() => undefined)
      if (slot.client) clients.push(slot.client)
      slot.client = undefined
    }
    await Promise.all(clients.map((c) => c.stop(500)))
  }
}
