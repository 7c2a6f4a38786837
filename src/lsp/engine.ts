import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { toDiagnostic, type Diagnostic } from "./answer-text.ts"
import { LspClient } from "./client.ts"
import { LspCrashedError, LspRequestError } from "./errors.ts"
import { LspPool, type Provider } from "./pool.ts"
import { fromLspPosition, lspLines, toLspPosition } from "./positions.ts"
import { languageFor, languagesFromConfig, type LanguageSpec, type ServerHelper } from "./servers.ts"

/** Settings of the `lsp` section, with their defaults applied. */
export interface LspSettings {
  readonly idleMs: number
  readonly maxRestarts: number
  readonly diagnosticsWaitMs: number
  readonly requestTimeoutMs: number
  readonly startTimeoutMs: number
}

export type { Diagnostic }

/** No server serves this file: what was tried and how to get one. */
export interface NoProvider {
  readonly kind: "no_provider"
  /** The language, when the file has one with no installed server; undefined for files of no known language. */
  readonly language: string | undefined
  readonly tried: ReadonlyArray<string>
  readonly install: string | undefined
  /** True the first time in this session this language's install hint is given. */
  readonly firstHint: boolean
  /** "language": its `lsp.<language>` entry turns it off; "all": `lsp` is false or `lsp.enabled` is false. */
  readonly disabled: "language" | "all" | false
  /** Entries of anvil.json's `lsp` section that could not be used. */
  readonly problems: ReadonlyArray<string>
  /** Set when the project's anvil.json sets this language's server and the user has not trusted it: why, and what to do. */
  readonly untrusted?: string
  /** Set when its server kept crashing (more than lsp.max_restarts times): it is not started again this session. */
  readonly crashed?: CrashReport
}

/** A server given up on after its crashes: how often, the last failure, its stderr's end, its command line. */
export interface CrashReport {
  readonly server: string
  readonly crashes: number
  readonly maxRestarts: number
  readonly lastFailure: string
  readonly stderr: string
  readonly command: string
}

/** A server that serves the file. */
export interface Served {
  readonly kind: "served"
  readonly language: string
  readonly server: string
  readonly missingHelpers: ReadonlyArray<Pick<ServerHelper, "name" | "install" | "lost">>
}

export interface DiagnosticsResult extends Served {
  readonly diagnostics: ReadonlyArray<Diagnostic>
  readonly freshness: "current" | "stale" | "pending"
  readonly ageMs?: number
  readonly mode: "pull" | "push"
  /** Diagnostics the server sent that are not in LSP's shape, left out. */
  readonly dropped: number
}

export interface Location {
  /** Relative to the project root when inside it, else absolute. */
  readonly path: string
  readonly line: number
  readonly character: number
  readonly end_line: number
  readonly end_character: number
  /** The text of the line (files inside the project only). */
  readonly text: string | null
}

/** How long a position request (definition, hover) waits at most for the server's first analysis of the file. */
const POSITION_WAIT_MS = 5000

/**
 * What the LSP tools call: finds the language and server of a file, syncs its
 * text and asks the question, converting positions both ways. Loaded lazily
 * (it pulls in vscode-jsonrpc) the first time an LSP tool or an after-edit
 * check needs a server.
 */
export class LspEngine {
  readonly pool: LspPool
  readonly languages: ReadonlyArray<LanguageSpec>
  readonly problems: ReadonlyArray<string>

  constructor(
    readonly root: string,
    env: Readonly<Record<string, string | undefined>>,
    section: Readonly<Record<string, unknown>>,
    readonly settings: LspSettings,
    /** False when `lsp` turns every server off. */
    private readonly enabled: boolean,
    /** Path → how it is shown (relative to the root). */
    private readonly display: (absolute: string) => string,
    /** Languages whose project-set server is not trusted: language → why, and the next step. */
    untrusted: Readonly<Record<string, string>> = {},
  ) {
    const { languages, problems } = languagesFromConfig(section, untrusted)
    this.languages = languages
    this.problems = problems
    this.pool = new LspPool({ root, env, idleMs: settings.idleMs, maxRestarts: settings.maxRestarts, startTimeoutMs: settings.startTimeoutMs })
  }

  /** The language and server for a file, or the degraded answer's facts. */
  resolve(file: string, text: string): NoProvider | (Served & { readonly spec: LanguageSpec; readonly provider: Extract<Provider, { kind: "server" }> }) {
    const language = languageFor(this.languages, file, text.slice(0, 200).split("\n")[0])
    const problems = this.problems
    if (!language) return { kind: "no_provider", language: undefined, tried: [], install: undefined, firstHint: false, disabled: false, problems }
    if (!this.enabled) return { kind: "no_provider", language: language.id, tried: [], install: undefined, firstHint: false, disabled: "all", problems }
    if (language.untrusted !== undefined) {
      const firstHint = this.pool.firstHint(language)
      return { kind: "no_provider", language: language.id, tried: [], install: undefined, firstHint, disabled: false, problems, untrusted: language.untrusted }
    }
    const provider = this.pool.provider(language)
    if (provider.kind === "none") {
      return {
        kind: "no_provider",
        language: language.id,
        tried: provider.tried,
        install: language.install,
        firstHint: !language.disabled && this.pool.firstHint(language),
        disabled: language.disabled ? "language" : false,
        problems,
      }
    }
    return {
      kind: "served",
      language: language.id,
      server: provider.spec.name,
      missingHelpers: provider.missingHelpers.map(({ name, install, lost }) => ({ name, install, lost })),
      spec: language,
      provider,
    }
  }

  /**
   * The running server for a file, or, once it crashed past lsp.max_restarts, the answer that no server serves
   * it: the same as when none is installed, naming the crashes instead.
   */
  private async clientFor(found: Extract<ReturnType<LspEngine["resolve"]>, { kind: "served" }>, file: string): Promise<LspClient | NoProvider> {
    try {
      return await this.pool.client(found.spec, found.provider, this.pool.rootFor(found.spec, file))
    } catch (e) {
      if (!(e instanceof LspCrashedError)) throw e
      const crashed = { server: e.server, crashes: e.crashes, maxRestarts: e.restarts, lastFailure: e.lastFailure, stderr: e.stderr, command: e.command }
      return { kind: "no_provider", language: found.language, tried: [], install: undefined, firstHint: false, disabled: false, problems: this.problems, crashed }
    }
  }

  /**
   * Runs the requests of one call on a server; a server that died during them for the last time lsp.max_restarts
   * allows says so (asking again will not help; the next call gets the no-provider answer).
   */
  private async lastCrashNamed<A>(spec: LanguageSpec, file: string, f: () => Promise<A>): Promise<A> {
    try {
      return await f()
    } catch (e) {
      const crashes = e instanceof LspRequestError && !e.timedOut ? this.pool.givenUp(spec, this.pool.rootFor(spec, file)) : undefined
      if (crashes === undefined) throw e
      const { server, method, message } = e as LspRequestError
      throw new LspRequestError({ server, method, timedOut: false, message: `${message} ${this.pool.givenUpNote(crashes)}`, final: true })
    }
  }

  async diagnostics(file: string, text: string, waitMs = this.settings.diagnosticsWaitMs): Promise<NoProvider | DiagnosticsResult> {
    const found = this.resolve(file, text)
    if (found.kind === "no_provider") return found
    const client = await this.clientFor(found, file)
    if (!(client instanceof LspClient)) return client
    return this.lastCrashNamed(found.spec, file, async () => {
      client.sync(file, found.spec.languageId, text)
      const answer = await client.diagnostics(file, waitMs, this.settings.requestTimeoutMs)
      const lines = lspLines(text)
      const { spec: _spec, provider: _provider, ...served } = found
      return {
        ...served,
        diagnostics: answer.items.map((d) => toDiagnostic(d, lines)),
        freshness: answer.freshness,
        ...(answer.ageMs !== undefined ? { ageMs: answer.ageMs } : {}),
        mode: answer.mode,
        dropped: answer.dropped,
      }
    })
  }

  /** Runs a position request (definition, hover) on a synced file. `line`/`character` are 1-based code points. */
  async atPosition<T>(
    file: string,
    text: string,
    line: number,
    character: number,
    method: string,
  ): Promise<NoProvider | (Served & { readonly result: T | null })> {
    const found = this.resolve(file, text)
    if (found.kind === "no_provider") return found
    const position = toLspPosition(lspLines(text), line, character)
    const client = await this.clientFor(found, file)
    if (!(client instanceof LspClient)) return client
    return this.lastCrashNamed(found.spec, file, async () => {
      client.sync(file, found.spec.languageId, text)
      // A server asked about a file it has not analysed yet may answer from a half-loaded project
      // (typescript-language-server gives the import line as the definition of an imported name):
      // wait, briefly, for its diagnostics of this version, its sign that the analysis is done.
      if (!client.pulls) {
        await client.diagnostics(file, Math.min(this.settings.diagnosticsWaitMs, POSITION_WAIT_MS), this.settings.requestTimeoutMs).catch(() => undefined)
      }
      const result = await client.request<T | null>(
        method,
        { textDocument: { uri: Bun.pathToFileURL(file).href }, position },
        this.settings.requestTimeoutMs,
      )
      const { spec: _spec, provider: _provider, ...served } = found
      return { ...served, result }
    })
  }

  /** Definition answers (Location, Location[], LocationLink[]) as tool locations. */
  locations(result: unknown): ReadonlyArray<Location> {
    const list = result === null || result === undefined ? [] : Array.isArray(result) ? result : [result]
    const out: Array<Location> = []
    for (const entry of list as Array<Record<string, any>>) {
      const uri: unknown = entry.targetUri ?? entry.uri
      const range = entry.targetSelectionRange ?? entry.range
      if (typeof uri !== "string" || !uri.startsWith("file:") || !range) continue
      const absolute = fileURLToPath(uri)
      const inside = absolute === this.root || absolute.startsWith(`${this.root}/`)
      let lines: ReadonlyArray<string> = []
      try {
        lines = lspLines(readFileSync(absolute, "utf8"))
      } catch {
        // gone or unreadable: positions stay as the server gave them
      }
      const start = fromLspPosition(lines, range.start)
      const end = fromLspPosition(lines, range.end)
      out.push({
        path: inside ? this.display(absolute) : absolute,
        line: start.line,
        character: start.character,
        end_line: end.line,
        end_character: end.character,
        text: inside ? (lines[range.start.line] ?? null) : null,
      })
    }
    return out
  }

  close(): Promise<void> {
    return this.pool.close()
  }
}
