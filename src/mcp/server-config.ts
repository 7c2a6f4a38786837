import { Schema, SchemaIssue } from "effect"
import { McpServerEntry } from "../config/sections/mcp-servers.ts"

export { McpServerEntry }
export type McpServerEntry = typeof McpServerEntry.Type

/** Where a server's definition came from; project and plugin-folder servers need trust. */
export type ServerScope = "user" | "project" | "plugin"

/** A server as configured, after `${VAR}` expansion. */
export interface ServerSpec {
  /** The name under `mcpServers` (tools are `mcp__<name>__<tool>`). */
  readonly name: string
  /** The file that defined it. */
  readonly source: string
  readonly scope: ServerScope
  /** The entry exactly as written (what trust is given to). */
  readonly raw: unknown
  /** Trust was settled by whoever handed the definition over (a trusted plugin folder). */
  readonly pretrusted?: boolean
  readonly enabled: boolean
  readonly timeoutMs: number
  readonly startupTimeoutMs: number
  readonly permission: "allow" | "ask" | "deny"
  readonly allowReadOnly: boolean
  readonly transport: StdioTransportSpec | HttpTransportSpec
  /** Values that came from the environment or headers/env: masked wherever a message might show them. */
  readonly secrets: ReadonlyArray<string>
  /** Why the entry cannot be used (a missing variable, no command or url); the server is then "failed". */
  readonly problem?: string
}

export interface StdioTransportSpec {
  readonly kind: "stdio"
  readonly command: string
  readonly args: ReadonlyArray<string>
  readonly env: Readonly<Record<string, string>>
  /** Absolute working directory. */
  readonly cwd: string
}

export interface HttpTransportSpec {
  readonly kind: "http" | "sse"
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
}

export const DEFAULT_CALL_TIMEOUT_MS = 600_000
export const DEFAULT_STARTUP_TIMEOUT_MS = 30_000

/**
 * Expands `${VAR}` and `${VAR:-default}` (Claude Code's forms) from `env`.
 * A variable that is unset and has no default is reported in `missing`.
 */
export const expandVars = (
  text: string,
  env: Readonly<Record<string, string | undefined>>,
  missing: Set<string>,
  secrets: Set<string>,
): string =>
  text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (_all, name: string, fallback: string | undefined) => {
    const value = env[name]
    if (value !== undefined && value !== "") {
      if (value.length >= 4) secrets.add(value)
      return value
    }
    if (fallback !== undefined) return fallback
    missing.add(name)
    return ""
  })

const decodeEntry = Schema.decodeUnknownExit(McpServerEntry, { errors: "all", onExcessProperty: "ignore" })
const issuesOf = SchemaIssue.makeFormatterStandardSchemaV1()

/** Why an entry does not decode, key by key: `'mcpServers.x.command' is 5: expected string`. */
const entryProblems = (name: string, raw: unknown, issue: SchemaIssue.Issue): string => {
  const all = issuesOf(issue).issues
  const parts = all.slice(0, 3).map((i) => {
    const path = (i.path ?? []).map((p) => (typeof p === "object" && p !== null && "key" in p ? p.key : p))
    let value: unknown = raw
    for (const key of path) value = typeof value === "object" && value !== null ? (value as Record<PropertyKey, unknown>)[key as PropertyKey] : undefined
    const got = JSON.stringify(value) ?? String(value)
    const expected = i.message.replace(/^Expected /, "").replace(/ \| undefined$/, "")
    return `'${["mcpServers", name, ...path.map(String)].join(".")}' is ${got.length > 60 ? `${got.slice(0, 57)}...` : got}: expected ${expected}`
  })
  return `${parts.join("; ")}${all.length > 3 ? `; and ${all.length - 3} more` : ""}`
}

const finite = (n: number | undefined, fallback: number) => (n !== undefined && Number.isFinite(n) && n > 0 ? Math.floor(n) : fallback)

/**
 * Turns one `mcpServers` entry into a ServerSpec. Never throws: an unusable
 * entry becomes a spec with `problem` set, so `anvil mcp` can show it.
 */
export const serverSpec = (
  name: string,
  raw: unknown,
  where: { readonly source: string; readonly scope: ServerScope; readonly root: string },
  env: Readonly<Record<string, string | undefined>>,
  resolvePath: (base: string, p: string) => string,
): ServerSpec => {
  const base = {
    name,
    source: where.source,
    scope: where.scope,
    raw,
  }
  const exit = decodeEntry(raw)
  if (exit._tag === "Failure") {
    const failure = exit.cause.reasons.find((r) => r._tag === "Fail")?.error
    const message = failure instanceof Schema.SchemaError ? entryProblems(name, raw, failure.issue) : String(exit.cause).split("\n").slice(0, 3).join(" ")
    return {
      ...base,
      enabled: true,
      timeoutMs: DEFAULT_CALL_TIMEOUT_MS,
      startupTimeoutMs: DEFAULT_STARTUP_TIMEOUT_MS,
      permission: "ask",
      allowReadOnly: false,
      transport: { kind: "stdio", command: "", args: [], env: {}, cwd: where.root },
      secrets: [],
      problem: `invalid entry: ${message} (fix it in ${where.source}, or set "enabled": false)`,
    }
  }
  const entry = exit.value
  const missing = new Set<string>()
  const secrets = new Set<string>()
  const expand = (s: string) => expandVars(s, env, missing, secrets)
  const expandAll = (record: Readonly<Record<string, string>> | undefined) => {
    const out: Record<string, string> = {}
    for (const [k, v] of Object.entries(record ?? {})) {
      out[k] = expand(v)
      // Whatever goes into a header or the server's environment is treated as a secret.
      if (out[k]!.length >= 4) secrets.add(out[k]!)
    }
    return out
  }
  const kind = entry.type === "streamable-http" ? "http" : (entry.type ?? (entry.url !== undefined && entry.command === undefined ? "http" : "stdio"))
  let problem: string | undefined
  let transport: ServerSpec["transport"]
  if (kind === "stdio") {
    if (entry.command === undefined || entry.command.trim() === "") problem = `no "command" (a stdio server needs one; an HTTP server needs "url")`
    transport = {
      kind: "stdio",
      command: expand(entry.command ?? ""),
      args: (entry.args ?? []).map(expand),
      env: expandAll(entry.env),
      cwd: entry.cwd ? resolvePath(where.root, expand(entry.cwd)) : where.root,
    }
  } else {
    if (entry.url === undefined || entry.url.trim() === "") problem = `no "url" (an ${kind} server needs one)`
    const url = expand(entry.url ?? "")
    transport = { kind, url, headers: expandAll(entry.headers) }
    if (problem === undefined && missing.size === 0) {
      if (!URL.canParse(url)) problem = `"url" is not a valid URL`
      else if (!["http:", "https:"].includes(new URL(url).protocol)) problem = `"url" must be an http:// or https:// URL, not ${new URL(url).protocol}//…`
    }
  }
  if (missing.size > 0) {
    problem = `environment variable${missing.size > 1 ? "s" : ""} ${[...missing].join(", ")} not set (used in the server's configuration; set ${missing.size > 1 ? "them" : "it"} or write \${NAME:-default})`
  }
  return {
    ...base,
    enabled: entry.enabled !== false,
    // Without a setting, Claude Code's variables (milliseconds) apply, then anvil's defaults.
    timeoutMs: finite(entry.timeout, finite(Number(env.MCP_TOOL_TIMEOUT), DEFAULT_CALL_TIMEOUT_MS)),
    startupTimeoutMs: finite(entry.startupTimeout, finite(Number(env.MCP_TIMEOUT), DEFAULT_STARTUP_TIMEOUT_MS)),
    permission: entry.permission ?? "ask",
    allowReadOnly: entry.allowReadOnly === true,
    transport,
    secrets: [...secrets].sort((a, b) => b.length - a.length),
    ...(problem !== undefined ? { problem } : {}),
  }
}

/** Replaces every secret of a server in a message with [REDACTED]. */
export const maskSecrets = (text: string, secrets: ReadonlyArray<string>): string => {
  let out = text
  for (const secret of secrets) out = out.split(secret).join("[REDACTED]")
  return out
}

/** The transport as `anvil mcp` shows it: the command line or the URL (secrets masked). */
export const describeTransport = (spec: ServerSpec): string => {
  const t = spec.transport
  const text = t.kind === "stdio" ? [t.command, ...t.args].join(" ") : t.url
  return maskSecrets(text, spec.secrets)
}
