import { Context, Effect, Layer } from "effect"
import type { LspEngine, LspSettings } from "./engine.ts"
import { LspCrashedError, LspPositionError, LspRequestError, LspStartError, type LspError } from "./errors.ts"
import { languageFor, languagesFromConfig, type LanguageSpec } from "./servers.ts"

/** What the `lsp` section of anvil.json says, read once per session. */
export interface LspServiceOptions {
  readonly root: string
  readonly env: Readonly<Record<string, string | undefined>>
  /** The `lsp` section (an object), or `false` to turn every server off. */
  readonly section: Readonly<Record<string, unknown>> | false
  /** Path → how tools show it. */
  readonly display: (absolute: string) => string
  /**
   * Languages whose server the project's anvil.json sets but the user has not trusted (language → the notice
   * saying so and what to do): no server is started for them, as an untrusted MCP server is not.
   */
  readonly untrusted?: Readonly<Record<string, string>>
}

export interface LspShape {
  /** False when `lsp` is `false` or `lsp.enabled` is false. */
  readonly enabled: boolean
  /** Whether write/edit/multiedit/patch report the new errors of the files they change (`lsp.after_edit`, default true). */
  readonly afterEdit: boolean
  readonly settings: LspSettings
  /** Whether some configured language covers this file (by extension or `#!` line); cheap, loads no server code. */
  readonly covers: (file: string, firstLine: string | undefined) => boolean
  /** Runs `f` with the engine, loading it on first use. Domain failures become typed LspErrors; anything else is a defect. */
  readonly use: <A>(f: (engine: LspEngine) => Promise<A>) => Effect.Effect<A, LspError>
}

const number = (section: Readonly<Record<string, unknown>>, key: string, fallback: number): number => {
  const v = section[key]
  return typeof v === "number" && Number.isFinite(v) && v >= 0 ? Math.floor(v) : fallback
}

const isLspError = (e: unknown): e is LspError =>
  e instanceof LspStartError || e instanceof LspCrashedError || e instanceof LspRequestError || e instanceof LspPositionError

/**
 * The language servers of a session. Building the layer costs nothing: the
 * engine (and vscode-jsonrpc) is imported the first time a tool needs it, and
 * the layer's finalizer stops every server it started.
 */
export class Lsp extends Context.Service<Lsp, LspShape>()("anvil/Lsp") {
  static make = (options: LspServiceOptions) =>
    Effect.gen(function* () {
      const section = options.section === false ? {} : options.section
      const enabled = options.section !== false && section.enabled !== false
      const settings: LspSettings = {
        idleMs: number(section, "idle_timeout_ms", 300_000),
        maxRestarts: number(section, "max_restarts", 3),
        diagnosticsWaitMs: number(section, "diagnostics_wait_ms", 10_000),
        requestTimeoutMs: number(section, "request_timeout_ms", 15_000),
        startTimeoutMs: number(section, "start_timeout_ms", 30_000),
      }
      let engine: Promise<LspEngine> | undefined
      const load = () =>
        (engine ??= import("./engine.ts").then((m) => new m.LspEngine(options.root, options.env, section, settings, enabled, options.display, options.untrusted)))
      yield* Effect.addFinalizer(() => (engine ? Effect.promise(() => engine!.then((e) => e.close())) : Effect.void))
      let languages: ReadonlyArray<LanguageSpec> | undefined
      return Lsp.of({
        enabled,
        afterEdit: enabled && section.after_edit !== false,
        settings,
        covers: (file, firstLine) => languageFor((languages ??= languagesFromConfig(section, options.untrusted).languages), file, firstLine) !== undefined,
        use: <A>(f: (engine: LspEngine) => Promise<A>) =>
          Effect.tryPromise({ try: () => load().then(f), catch: (e) => e }).pipe(
            Effect.catch((e) => (isLspError(e) ? Effect.fail(e) : Effect.die(e))),
          ),
      })
    })

  /** {@link Lsp.make} as a layer. */
  static layer = (options: LspServiceOptions) => Layer.effect(Lsp, Lsp.make(options))

  /** No servers at all (tests and embedders that want none). */
  static none = Layer.succeed(Lsp, {
    enabled: false,
    afterEdit: false,
    settings: { idleMs: 0, maxRestarts: 0, diagnosticsWaitMs: 0, requestTimeoutMs: 0, startTimeoutMs: 0 },
    covers: () => false,
    use: () => Effect.die(new Error("LSP is not available here.")),
  })
}
