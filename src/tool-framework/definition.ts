import type { Context, Effect, Schema } from "effect"
import type { Subjects } from "../permission/subjects.ts"
import type { RetrievalHint } from "../protocol/hint.ts"
import type { ToolError } from "../protocol/tool-error.ts"

import type { PermissionLevel } from "../permission/permission-level.ts"
import type { FileSystem } from "effect/FileSystem"
import type { Path } from "effect/Path"
import type { Config } from "../config/config.ts"
import type { OutputSettings } from "../output/output-settings.ts"
import type { SpillStore } from "../output/spill-store.ts"
import type { FileLedger } from "../workspace/file-ledger.ts"
import type { Workspace } from "../workspace/workspace.ts"
import type { SessionInfo } from "./session.ts"

export type { PermissionLevel }

/**
 * What a tool's `run` returns on success. The pipeline turns it into the
 * envelope: it adds stats.time_ms, context.cwd/params_input, the header line
 * and the rendered hints, then applies the truncation layer.
 */
export interface ToolResult {
  /** "partial" when the result is cut, a fallback, a dry run or partly failed. Default "success". */
  readonly status?: "success" | "partial"
  /** The tool's payload, with the category field names (entries, paths, matches, content, applied). */
  readonly data: Readonly<Record<string, unknown>>
  /** What follows the header line in the model-visible text. */
  readonly text: string
  /** The header after "# ", e.g. "Read: app/main.py". Default: the tool's title. */
  readonly header?: string
  /** Counts and sizes, added to stats beside time_ms. */
  readonly stats?: Readonly<Record<string, number | string>>
  /** Extra envelope context (path_resolved, …). */
  readonly context?: Readonly<Record<string, unknown>>
  /** Suggested next calls, most useful first. Rendered into the text when the status is partial. */
  readonly hints?: ReadonlyArray<RetrievalHint>
  /** The tool's own truncation, for execution_meta (reason such as "line_limit", the shown range, the total). */
  readonly truncation?: ToolTruncation
  /** Extra execution_meta fields (e.g. file_ops for writes). */
  readonly meta?: Readonly<Record<string, unknown>>
  /**
   * The whole of what `text` shows only part of (every match of a search the
   * text cuts short). The pipeline saves it to a spill file and ends the text
   * with where it is, so nothing cut is lost: `what` names it ("4000 matches").
   */
  readonly full?: {
    readonly text: string
    readonly what: string
    /** Lines at its start the text already shows, up to this one (the Read hint starts after them). */
    readonly shownLines?: number
    /** Lines before the ones the text shows (a later page): when nothing follows them, the Read hint returns these. */
    readonly shownFrom?: number
    /** The complete lists (every path, every file with its count), saved in the spill JSON over `data`'s cut ones. */
    readonly data?: Readonly<Record<string, unknown>>
    /** The line naming the file opens the text instead of ending it (a long text's end may itself be cut). */
    readonly lead?: boolean
    /** The result's status stands (a change that succeeded is not `partial` because its report was cut). */
    readonly keepStatus?: boolean
    /** A document (a fetched page) saved byte for byte; other texts are lines and end with a line break. */
    readonly document?: boolean
  }
}

export interface ToolTruncation {
  readonly reason: string
  readonly shown_range?: { readonly start_line: number; readonly end_line: number }
  readonly total_estimate?: number
}

/** Per-call facts a tool may need beyond its parameters. */
/**
 * What {@link Tool.beforeCall} settled on: the parameters, and a hook's word on
 * the permission — "allow" spares the call the question its tool would ask
 * (deny and ask rules still apply), "ask" puts the question even where the
 * rules allow the call.
 */
export interface BeforeCall<P> {
  readonly params: P
  readonly permission?: HookPermission | undefined
}

/** A hook's word on a call's permission, with the reason it gave. */
export interface HookPermission {
  readonly decision: "allow" | "ask"
  readonly reason?: string | undefined
}

export interface ToolCallInfo {
  /** The model's id for this call (or a generated one). */
  readonly callId: string
  /** The parameters exactly as given, before aliases and decoding. */
  readonly rawParams: unknown
}

/**
 * A tool: a value the registry holds and the pipeline runs. Built-ins, plugins
 * and MCP adapters all produce this shape, usually through {@link defineTool}.
 *
 * `R` names the services `run` needs (Workspace, FileSystem, Path, Config, …);
 * the runtime provides them, so a tool never touches process globals.
 */
/** What decoding a tool's parameters needs of effect's Schema module. */
export type SchemaModule = Pick<typeof Schema, "decodeUnknownExit" | "toCodecJson">

export interface Tool<P = any, R = any> {
  /** The id the model calls, lowercase: "read", "list", "git_status". */
  readonly name: string
  /** The header the model sees: "Read", "LS", "Grep". */
  readonly title: string
  /** The model-facing prompt: what the tool does and how to call it well. */
  readonly description: string
  /** Parameter schema: decodes the call and is exported as the JSON Schema the model is given. */
  readonly parameters: Schema.Codec<P, any, never, never>
  /**
   * The JSON Schema the model is given, when it comes from elsewhere (an MCP
   * server's inputSchema) instead of being derived from `parameters`.
   */
  readonly jsonSchema?: Readonly<Record<string, unknown>>
  /**
   * The Schema module that made `parameters`, when it is not the host's: a plugin's schemas come from the copy of
   * effect the binary gives plugins, and the host's copy cannot decode that copy's declarations (Schema.Date,
   * Schema.BigInt: their checks and JSON forms are the other copy's).
   */
  readonly schemaModule?: SchemaModule
  /** Other names that reach this tool (case-insensitive). */
  readonly aliases?: ReadonlyArray<string>
  /**
   * Accepted alternative parameter names, mapped onto canonical ones: { file_path: "path" }. A key
   * `list[].name` renames a field inside each object of the list parameter `list`: { "edits[].old_str": "old_string" }.
   */
  readonly parameterAliases?: Readonly<Record<string, string>>
  /** Default permission when no rule matches. Default "allow". */
  readonly permission?: PermissionLevel
  /**
   * What the permission patterns of `permission.<tool>` are matched against
   * for a call, when the generic reading of the parameters (a command, a URL's
   * host, file paths) does not fit the tool. Example: skill names the skill a
   * load asks for, so `"skill": { "*": "allow", "deploy": "ask" }` asks before
   * loading deploy. Undefined for a call means only the tool-wide level applies. Paths (kind "path") are
   * named as the call names them: the framework makes them root-relative and follows their links.
   */
  readonly permissionSubjects?: (params: P) => Subjects | undefined
  /**
   * For tools that run commands under the command sandbox: `true` when this
   * call runs confined (with `sandbox.auto_allow` it then needs no approval),
   * `false` when it asks to run outside the sandbox (always put to a person,
   * never approved by --yes or a configured allow rule). Undefined: neither.
   */
  readonly sandboxedCall?: (params: P) => boolean | undefined
  /** True when the tool paginates itself; the framework then never truncates it (context.truncation_skip). */
  readonly paginates?: boolean
  /** True when the tool never changes anything (files, processes, remote state); such calls may run concurrently. */
  readonly readOnly?: boolean
  /**
   * Masks secrets in the parameters before they are recorded: the pipeline
   * stores `redact(raw)` as context.params_input (and so in spill files and
   * history) instead of the raw call. `run` still receives the real values.
   * Example: fetch replaces Authorization headers and tokens with "[REDACTED]".
   */
  readonly redact?: (raw: unknown) => unknown
  /**
   * Runs after the parameters are decoded and before the permission check:
   * returns the parameters to use (the same, or replaced), optionally with a
   * hook's word on the permission, or fails with a {@link ToolError} to refuse
   * the call. Plugins' `tool.before` hooks are put here, so a permission rule
   * judges what will actually run.
   */
  readonly beforeCall?: (params: P, call: ToolCallInfo) => Effect.Effect<BeforeCall<P>, ToolError>
  /**
   * Runs after `beforeCall` and before the permission check, with the services `run` gets: fails with the
   * ToolError `run` would fail with for a call no approval can make work (a file tool's protected path), so
   * nobody is asked about a call that is refused anyway.
   */
  readonly precheck?: (params: P) => Effect.Effect<void, ToolError, R>
  /**
   * The services `run` needs beyond {@link CoreServices} (their
   * `Context.Service` classes): a one-tool call (`anvil tool NAME`) builds
   * only the core and these, so reading a file never loads the code of the
   * language servers, git or the command sandbox. {@link defineTool} checks
   * that core and list together cover `R`. Plugin and MCP tools, which come
   * without it, run where every service is built.
   */
  readonly requires?: ReadonlyArray<Context.Key<any, any>>
  /**
   * A stand-in's wait for the tool it stands for (an MCP server's tool while the server starts or reads its
   * changed list): the runner waits, then looks the name up again and runs what it finds, so hooks and permission
   * rules never judge the stand-in. Real tools leave it out.
   */
  readonly ready?: () => Effect.Effect<void, ToolError>
  /** The work. Fails only with {@link ToolError}; anything else is a defect and becomes INTERNAL_ERROR. */
  readonly run: (params: P, call: ToolCallInfo) => Effect.Effect<ToolResult, ToolError, R>
}

/** The services a list of keys stands for. */
type ServicesOf<K extends ReadonlyArray<Context.Key<any, any>>> = K[number] extends infer E ? (E extends Context.Key<infer I, any> ? I : never) : never

/**
 * The services every call gets whatever its tool declares: the pipeline's own
 * and the cheap ones most tools use. (Permissions is built for every call too,
 * but a tool that uses it names it: its module imports this one.)
 */
export type CoreServices = Workspace | Config | OutputSettings | SpillStore | FileLedger | SessionInfo | FileSystem | Path

/**
 * Nothing, or (a type error) the services of `R` that neither the core nor `requires` provide.
 * An `R` of `any` (a tool typed as plain `Tool<P>`) says nothing to check.
 */
type Covering<R, K extends ReadonlyArray<Context.Key<any, any>>> = 0 extends 1 & R
  ? unknown
  : [Exclude<R, CoreServices | ServicesOf<K>>] extends [never]
  ? unknown
  : { readonly requires: { readonly "services run needs that requires does not name": Exclude<R, CoreServices | ServicesOf<K>> } }

/**
 * Defines a tool. The identity function with the types spelled out, so a
 * plugin author gets parameter inference from the schema:
 *
 * ```ts
 * export default defineTool({
 *   name: "word_count", title: "WordCount", description: "Counts words.",
 *   parameters: Schema.Struct({ text: Schema.String }),
 *   run: ({ text }) => Effect.succeed({ data: { words: text.split(/\s+/).length }, text: "…" }),
 * })
 * ```
 */
export const defineTool = <P, R = never, const K extends ReadonlyArray<Context.Key<any, any>> = readonly []>(
  tool: Tool<P, R> & { readonly requires?: K } & Covering<R, K>,
): Tool<P, R> => tool
