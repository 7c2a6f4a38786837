/**
 * anvil's plugin API, version 1: what `import { … } from "anvil/plugin"` gives
 * a plugin. The host resolves `anvil/plugin` and `effect` to its own copies, so
 * a plugin never bundles a second Effect and its Schemas are the host's.
 *
 * This file is self-contained (it imports only `effect`): build.ts turns it
 * into the type declarations `anvil plugins init` writes, and the binary hands
 * its values to plugins at run time. Keep every export documented and the
 * names stable; breaking changes need `api: 2`.
 *
 * ```ts
 * import { defineTool } from "anvil/plugin"
 * import { Schema } from "effect"
 *
 * export default defineTool({
 *   name: "word_count",
 *   description: "Counts the words of a text.",
 *   parameters: Schema.Struct({ text: Schema.String }),
 *   readOnly: true,
 *   run: ({ text }) => ({ words: text.split(/\s+/).filter(Boolean).length }),
 * })
 * ```
 */
import { Context, Data, Effect, Schema } from "effect"

/** The plugin API version this host speaks; `definePlugin({ api })` must equal it. */
export const PLUGIN_API_VERSION = 1 as const

/**
 * Checked file access inside the project, the same sandbox the built-in tools
 * use: paths are relative to the project root (or absolute inside it, or in a
 * folder `sandbox.allow` adds); anything else fails with ACCESS_DENIED.
 */
export interface PluginFiles {
  /** A file's text (UTF-8). Fails with NOT_FOUND, ACCESS_DENIED or IS_DIRECTORY. */
  readonly read: (path: string) => Promise<string>
  /** Writes a file whole (temp file and rename: readers never see half of it); parent folders are made. */
  readonly write: (path: string, content: string) => Promise<void>
  /** Whether a path exists inside the sandbox (false for anything outside it). */
  readonly exists: (path: string) => Promise<boolean>
  /** The checked absolute path of `path`; fails with ACCESS_DENIED outside the sandbox. */
  readonly resolve: (path: string) => Promise<string>
}

/** What a tool's `run` gets beside its parameters. */
export interface ToolContext {
  /** The project root (absolute). */
  readonly root: string
  /** The folder anvil was started in (absolute). */
  readonly cwd: string
  /** The id of this call, as the model gave it. */
  readonly callId: string
  /** Aborted when the call is cancelled (Ctrl-C, a time limit); pass it to fetch and child processes. */
  readonly signal: AbortSignal
  /** Reports progress; the messages are kept in the call's execution_meta (`progress`). */
  readonly progress: (message: string) => void
  /** Checked file access inside the project. */
  readonly files: PluginFiles
  /** This plugin's settings: `plugins.options.<plugin name>` in anvil.json (an empty object when unset). */
  readonly options: Readonly<Record<string, unknown>>
}

/** The {@link PluginFiles} of the current call, for a `run` that returns an Effect: `const files = yield* Files`. */
export class Files extends Context.Service<Files, PluginFiles>()("anvil/plugin/Files") {}

/** The {@link ToolContext} of the current call, for a `run` that returns an Effect: `const ctx = yield* CurrentCall`. */
export class CurrentCall extends Context.Service<CurrentCall, ToolContext>()("anvil/plugin/CurrentCall") {}

/** The services an Effect returned by a plugin's `run` or hook may require; the host provides them. */
export type PluginServices = Files | CurrentCall

/** The error codes a plugin may fail with (the envelope's `error.code`). */
export type ToolFailureCode =
  | "NOT_FOUND"
  | "ACCESS_DENIED"
  | "PERMISSION_DENIED"
  | "INVALID_PARAM"
  | "TIMEOUT"
  | "EXECUTION_ERROR"
  | "CONFLICT"
  | "NETWORK_ERROR"
  | "RATE_LIMIT"

/**
 * An expected failure: throw it (or fail an Effect with it) and the call ends
 * with an error envelope of that code and message. Anything else a tool throws
 * is a bug in the plugin and comes back as INTERNAL_ERROR.
 */
export class ToolFailure extends Data.TaggedError("ToolFailure")<{
  /** Default EXECUTION_ERROR. */
  readonly code?: ToolFailureCode
  /** What went wrong and what to do instead; the model reads it. */
  readonly message: string
}> {}

/**
 * What `run` may return, directly, in a Promise or as an Effect's success:
 * - a string: the text the model sees (data `{ output }`);
 * - a {@link ToolOutput}: text and data given separately;
 * - any other JSON value: the data, shown to the model as JSON.
 * An object of envelope keys only (status, data, text, error, stats, context) with `text`, or with `status` beside
 * `data` or `error`, is read as an envelope;
 * a status other than "success", "partial" or "error" (with `error: {code, message}`), or a `text` that is no string,
 * ends the call with INVALID_RESULT naming the plugin.
 */
export type ToolReturn = string | ToolOutput | Readonly<Record<string, unknown>> | ReadonlyArray<unknown> | number | boolean | null

/** A result with its text and data apart. Recognised by `text` being its only required key. */
export interface ToolOutput {
  /** What the model reads. */
  readonly text: string
  /** Structured result, in the envelope's `data`. */
  readonly data?: Readonly<Record<string, unknown>>
  /** "partial" when the answer is incomplete on purpose (cut, a fallback). Default "success". */
  readonly status?: "success" | "partial"
}

/** A value, a Promise of it, or an Effect producing it. */
export type MaybeEffect<A> = A | Promise<A> | Effect.Effect<A, unknown, PluginServices>

/** A hook's answer: a value, a Promise of it, or an Effect needing no services. */
export type HookReturn<A> = A | Promise<A> | Effect.Effect<A, unknown, never>

/** An object schema of a tool's parameters: `Schema.Struct({ … })`. */
export type ParametersSchema = Schema.Codec<any, any, never, never> & { readonly fields: Schema.Struct.Fields }

/** A tool a plugin adds. It runs through the same pipeline as the built-in ones. */
export interface ToolDefinition<S extends ParametersSchema = ParametersSchema> {
  /** The name the model calls: a letter, then letters, digits, `_` or `-` (at most 64). Must not clash with another tool. */
  readonly name: string
  /** What the tool does and when to use it; the model reads this to decide. */
  readonly description: string
  /** The header of its answers ("# Title: …"). Default: the name. */
  readonly title?: string
  /** The parameters as `Schema.Struct`; decoded before `run`, exported as JSON Schema to the model. */
  readonly parameters: S
  /**
   * True when the tool changes nothing (files, processes, remote state). Such
   * calls are allowed without asking; other plugin tools ask by default (a
   * `permission.<name>` rule in anvil.json decides otherwise).
   */
  readonly readOnly?: boolean
  /** The work. May return a value, a Promise or an Effect; throw {@link ToolFailure} for an expected failure. */
  readonly run: (params: Schema.Schema.Type<S>, ctx: ToolContext) => MaybeEffect<ToolReturn>
}

/** A tool call as `tool.before` sees it. */
export interface ToolCallEvent {
  /** The tool's name ("bash", "edit", a plugin's tool). */
  readonly tool: string
  /** The decoded parameters. */
  readonly params: Readonly<Record<string, unknown>>
  readonly callId: string
}

/**
 * `tool.before`'s answer: nothing (go on), a refusal the model sees, or new parameters and/or a word on the
 * permission. `permission: "allow"` spares the call the question its tool would ask (deny rules, ask rules and
 * the question before leaving the command sandbox still apply); `"ask"` puts the question even where the rules
 * allow the call (`reason` is shown with it). Of several hooks, "ask" wins over "allow".
 */
export type ToolBeforeResult =
  | void
  | undefined
  | {
      readonly params?: Record<string, unknown>
      readonly permission?: "allow" | "ask"
      readonly reason?: string
    }
  | { readonly deny: string }
  /**
   * Ends the turn instead (Claude Code's `continue: false`): the call does not run, the model is not asked again,
   * and the reason is shown to the person (stderr, a `hook_stopped` system message), never to the model.
   */
  | { readonly stop: string }

/** A finished call as `tool.after` sees it: the whole result, before truncation. */
export interface ToolResultEvent extends ToolCallEvent {
  readonly result: {
    readonly status: "success" | "partial"
    readonly text: string
    readonly data: Readonly<Record<string, unknown>>
  }
}

/**
 * `tool.after`'s answer: nothing, or a replacement text and/or data; `stop` ends the turn after this call (its
 * result stands; the model is not asked again; the reason is for the person, as `tool.before`'s `stop`).
 */
export type ToolAfterResult = void | undefined | { readonly text?: string; readonly data?: Record<string, unknown>; readonly stop?: string }

/** A permission question as `permission.ask` sees it (the call's default or a rule said "ask"). */
export interface PermissionEvent {
  readonly tool: string
  readonly params: Readonly<Record<string, unknown>>
}

/** Session facts for `session.start`, `session.end` and `prompt.system`. */
export interface SessionEvent {
  readonly sessionId: string
  readonly root: string
  /** The session's file (JSON lines), as Claude Code's hooks get `transcript_path`. */
  readonly transcriptPath?: string
  /** Set at `session.end`: how the session ended ("success", "error", "interrupted", …). */
  readonly outcome?: string
  /** "resume" when the session goes on from its file (`--continue`, `--resume`), else "startup" (Claude Code's SessionStart source). */
  readonly source?: "startup" | "resume"
}

/** What a command run by bash is, for `shell.env`. */
export interface ShellEvent {
  readonly command: string
}

/**
 * Hooks, each optional. They run in a fixed order — user plugins, then project
 * plugins, each alphabetically by plugin name — with a time limit each
 * (`plugins.hook_timeout_ms`, default 5000). A hook that throws or times out
 * is reported and skipped; it never breaks the call. One that timed out twice
 * in a row is skipped without waiting for the next 60 s of the session.
 */
export interface Hooks {
  /** Before a tool runs, and before its permission check (which then judges the parameters as changed): see the parameters, replace them, or deny the call with a reason. */
  readonly "tool.before"?: (event: ToolCallEvent) => HookReturn<ToolBeforeResult>
  /** After a tool ran successfully: the full result before truncation; may replace its text or data. */
  readonly "tool.after"?: (event: ToolResultEvent) => HookReturn<ToolAfterResult>
  /** When a call needs approval: "allow" or "deny" answers for the user; nothing (or "ask") leaves it to them. */
  readonly "permission.ask"?: (event: PermissionEvent) => HookReturn<void | undefined | "allow" | "deny" | "ask">
  /** Extra environment variables for a bash command. */
  readonly "shell.env"?: (event: ShellEvent) => HookReturn<void | undefined | Readonly<Record<string, string>>>
  /** Text added to the agent's system prompt. */
  readonly "prompt.system"?: (event: SessionEvent) => HookReturn<void | undefined | string>
  /** When an agent session starts (`anvil run`, `anvil chat`). */
  readonly "session.start"?: (event: SessionEvent) => HookReturn<void>
  /** When an agent session ends. */
  readonly "session.end"?: (event: SessionEvent) => HookReturn<void>
}

/** The names of the hooks, in the order the documentation lists them. */
export const HOOK_NAMES = [
  "tool.before",
  "tool.after",
  "permission.ask",
  "shell.env",
  "prompt.system",
  "session.start",
  "session.end",
] as const satisfies ReadonlyArray<keyof Hooks>

/** What `setup` is given once, when the plugin loads. */
export interface SetupContext {
  readonly root: string
  /** `plugins.options.<plugin name>` from anvil.json. */
  readonly options: Readonly<Record<string, unknown>>
}

/** A plugin with a name, tools and hooks. */
export interface PluginDefinition {
  /**
   * The plugin's name is its file's name without the extension, or its folder's name (known before its code runs:
   * `anvil plugins`, `anvil plugins trust NAME`, `plugins.disabled` and `plugins.options` use it). Optional; given,
   * it must be that name: another is a warning (`plugin_name_mismatch`) and the file's name holds.
   */
  readonly name?: string
  /** The API version the plugin was written for; must be {@link PLUGIN_API_VERSION}. */
  readonly api: typeof PLUGIN_API_VERSION
  /** One line about the plugin. */
  readonly description?: string
  readonly tools?: ReadonlyArray<ToolDefinition<any>>
  readonly hooks?: Hooks
  /** Runs once at load (time-limited like an import); may add tools and hooks it builds. */
  readonly setup?: (ctx: SetupContext) => HookReturn<void | undefined | { readonly tools?: ReadonlyArray<ToolDefinition<any>>; readonly hooks?: Hooks }>
}

/**
 * Defines one tool; export it (or an array of them) as the module's default.
 * The identity at run time; it gives `run` its parameter types.
 */
export const defineTool = <S extends ParametersSchema>(tool: ToolDefinition<S>): ToolDefinition<S> => tool

/** Defines a plugin (tools, hooks, setup); export it as the module's default. The identity at run time. */
export const definePlugin = (plugin: PluginDefinition): PluginDefinition => plugin

