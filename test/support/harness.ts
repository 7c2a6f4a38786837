import { Effect, Layer, ManagedRuntime } from "effect"
import { afterAll } from "bun:test"
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { envelopeProblems } from "../../src/protocol/envelope.ts"
import { makeToolRuntime, type RuntimeOptions, type ToolServices } from "../../src/runtime.ts"
import type { Tool } from "../../src/tool-framework/definition.ts"
import { ToolRunner, type RunOptions, type ToolOutcome } from "../../src/tool-framework/runner.ts"
import { loadBuiltinTools } from "../../src/tools/builtin.ts"
import { tempDir } from "./temp-dirs.ts"

/** Every built-in tool, loaded once for the test files. */
export const builtinTools = await loadBuiltinTools()

/** A fresh temp folder (real path), removed when the test run ends. */
export { tempDir }

/** A tree spec: path → file content (string or bytes), or `{ link: target }` for a symlink, or `{ dir: true }`. */
export type TreeSpec = Record<string, string | Uint8Array | { link: string } | { dir: true }>

export const writeTree = (root: string, tree: TreeSpec): string => {
  for (const [rel, spec] of Object.entries(tree)) {
    const file = join(root, rel)
    mkdirSync(dirname(file), { recursive: true })
    if (typeof spec === "string" || spec instanceof Uint8Array) writeFileSync(file, spec)
    else if ("link" in spec) symlinkSync(spec.link, file)
    else mkdirSync(file, { recursive: true })
  }
  return root
}

/** A temp project (with an anvil.json marker unless `marker: false`) holding `tree`. */
export const project = (tree: TreeSpec = {}, options: { marker?: boolean } = {}): string => {
  const root = tempDir()
  if (options.marker !== false) writeFileSync(join(root, "anvil.json"), "{}\n")
  return writeTree(root, tree)
}

export interface CallOptions extends Partial<Omit<RuntimeOptions, "tools">>, RunOptions {
  readonly tools?: ReadonlyArray<Tool>
  readonly callId?: string
}

/**
 * Runs one call through the real pipeline (config, workspace, permissions,
 * truncation, spill) and fails the test if the envelope breaks the contract.
 */
export const callTool = async (root: string, name: string, params: unknown, options: CallOptions = {}): Promise<ToolOutcome> => {
  const layer = runtimeLayer(root, options)
  const outcome = await Effect.runPromise(
    Effect.gen(function* () {
      const runner = yield* ToolRunner
      return yield* runner.run(
        { name, params, ...(options.callId ? { callId: options.callId } : {}) },
        { taskToolAvailable: options.taskToolAvailable ?? false, ...(options.cancelled ? { cancelled: options.cancelled } : {}) },
      )
    }).pipe(Effect.provide(layer)),
  )
  assertEnvelope(outcome.envelope)
  return outcome
}

const runtimeLayer = (root: string, options: CallOptions) =>
  makeToolRuntime({
    cwd: options.cwd ?? root,
    env: options.env ?? {},
    root,
    tools: options.tools ?? builtinTools,
    ...(options.toolSources ? { toolSources: options.toolSources } : {}),
    ...(options.onAsk ? { onAsk: options.onAsk } : {}),
    // In-process tool tests run commands unconfined unless they set a mode; test/sandbox covers the sandbox.
    configOverrides: { sandbox: { mode: "off" }, ...options.configOverrides },
    ...(options.session ? { session: options.session } : {}),
    ...(options.enforceReads ? { enforceReads: true } : {}),
    ...(options.terminal ? { terminal: options.terminal } : {}),
    ...(options.subagents ? { subagents: options.subagents } : {}),
  }) as Layer.Layer<ToolRunner | ToolServices>

/** Several calls on one runtime: services (the FileLedger, the session) live across calls, as in one agent session. */
export interface ToolSession {
  /** One call through the pipeline, envelope contract asserted. */
  readonly call: (name: string, params: unknown, options?: RunOptions & { readonly callId?: string }) => Promise<ToolOutcome>
  /** Runs an effect with the session's services (e.g. to inspect or seed the FileLedger). */
  readonly run: <A, E>(effect: Effect.Effect<A, E, ToolRunner | ToolServices>) => Promise<A>
}

const sessions: Array<ManagedRuntime.ManagedRuntime<ToolRunner | ToolServices, unknown>> = []
afterAll(async () => {
  for (const runtime of sessions.splice(0)) await runtime.dispose()
})

/** A runtime kept for several calls (disposed after the test file): `session(root, { enforceReads: true })`. */
export const session = (root: string, options: Omit<CallOptions, "callId"> = {}): ToolSession => {
  const runtime = ManagedRuntime.make(runtimeLayer(root, options))
  sessions.push(runtime)
  return {
    call: async (name, params, callOptions = {}) => {
      const outcome = await runtime.runPromise(
        Effect.gen(function* () {
          const runner = yield* ToolRunner
          return yield* runner.run(
            { name, params, ...(callOptions.callId ? { callId: callOptions.callId } : {}) },
            { taskToolAvailable: callOptions.taskToolAvailable ?? options.taskToolAvailable ?? false },
          )
        }),
      )
      assertEnvelope(outcome.envelope)
      return outcome
    },
    run: (effect) => runtime.runPromise(effect),
  }
}

/** Throws when a value breaks the envelope contract. */
export const assertEnvelope = (value: unknown): void => {
  const problems = envelopeProblems(value)
  if (problems.length > 0) throw new Error(`envelope contract broken:\n${problems.join("\n")}\n${JSON.stringify(value, null, 2)}`)
}
