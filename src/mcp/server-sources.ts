import { isAbsolute, join, resolve } from "node:path"
import { parseJsonc } from "../config/jsonc.ts"
import { readSettingsFile, unreadableSettingsMessage } from "../config/settings-file.ts"
import { serverSpec, type ServerScope, type ServerSpec } from "./server-config.ts"
import { isRecord } from "../protocol/is-record.ts"
import { userConfigHome } from "../workspace/state-dir.ts"

/**
 * A set of server definitions from one place: a config file, or servers handed
 * over by another part of anvil (the `.mcp.json` of a Claude Code plugin folder).
 */
export interface ServerSource {
  /** The file the servers were read from (shown by `anvil mcp`). */
  readonly source: string
  readonly scope: ServerScope
  /** The `mcpServers` object: name → entry. */
  readonly servers: Readonly<Record<string, unknown>>
  /** The giver already settled trust for these servers (a trusted plugin folder): no separate trust needed. */
  readonly trusted?: boolean
}

/** A config file with an `mcpServers` object that could not be read. */
export interface SourceProblem {
  readonly source: string
  readonly message: string
}


/**
 * Reads `mcpServers` of one JSON(C) file; a missing file gives nothing, a broken one a problem.
 * `only` marks a file that holds nothing else (`.mcp.json`): one without `mcpServers` is a problem too.
 */
const readSource = (file: string, scope: ServerScope, only = false): ServerSource | SourceProblem | undefined => {
  const read = readSettingsFile(file)
  if (read.kind === "missing") return undefined
  if (read.kind === "unreadable") return { source: file, message: unreadableSettingsMessage(file, read.reason) }
  const text = read.text
  try {
    const parsed = parseJsonc(text)
    if (only && (!isRecord(parsed) || parsed.mcpServers === undefined)) {
      // VS Code's mcp.json names them "servers"; the same entries work here under "mcpServers".
      const named = isRecord(parsed) && isRecord(parsed.servers) ? ' (it has "servers", as VS Code writes them: rename the key to "mcpServers")' : ""
      return { source: file, message: `has no "mcpServers" object, so it defines no server${named}` }
    }
    if (!isRecord(parsed) || parsed.mcpServers === undefined) return undefined
    if (!isRecord(parsed.mcpServers)) return { source: file, message: `"mcpServers" must be an object of name → server` }
    return { source: file, scope, servers: parsed.mcpServers }
  } catch (e) {
    return { source: file, message: `not valid JSON (${(e as Error).message})` }
  }
}

/** The user's config folder: $XDG_CONFIG_HOME/anvil or ~/.config/anvil. */
export const userConfigDir = (env: Readonly<Record<string, string | undefined>>): string | undefined => {
  const base = userConfigHome(env)
  return base ? join(base, "anvil") : undefined
}

/**
 * The standard places, lowest precedence first: the user's anvil.json, the
 * project's `.mcp.json`, the project's anvil.json. A later definition of the
 * same name replaces an earlier one.
 */
export const standardSources = (
  root: string,
  env: Readonly<Record<string, string | undefined>>,
): { readonly sources: ReadonlyArray<ServerSource>; readonly problems: ReadonlyArray<SourceProblem> } => {
  const userDir = userConfigDir(env)
  const files: Array<[string, ServerScope, boolean]> = [
    ...(userDir ? [[join(userDir, "anvil.json"), "user", false] as [string, ServerScope, boolean]] : []),
    [join(root, ".mcp.json"), "project", true],
    [join(root, "anvil.json"), "project", false],
  ]
  const sources: Array<ServerSource> = []
  const problems: Array<SourceProblem> = []
  for (const [file, scope, only] of files) {
    const read = readSource(file, scope, only)
    if (read === undefined) continue
    if ("message" in read) problems.push(read)
    else sources.push(read)
  }
  return { sources, problems }
}

/** The servers of several sources (later sources win by name), expanded against `env`. */
export const serverSpecs = (
  sources: ReadonlyArray<ServerSource>,
  root: string,
  env: Readonly<Record<string, string | undefined>>,
): ReadonlyArray<ServerSpec> => {
  const byName = new Map<string, ServerSpec>()
  const resolvePath = (base: string, p: string) => (isAbsolute(p) ? p : resolve(base, p))
  for (const source of sources) {
    for (const [name, raw] of Object.entries(source.servers)) {
      const spec = serverSpec(name, raw, { source: source.source, scope: source.scope, root }, env, resolvePath)
      byName.set(name, source.trusted ? { ...spec, pretrusted: true } : spec)
    }
  }
  return [...byName.values()]
}

/** A server a Claude Code plugin folder declares, as the plugin loader hands it over. */
export interface HandedServer {
  readonly plugin: string
  readonly name: string
  readonly config: Readonly<Record<string, unknown>>
}

/**
 * Servers of Claude Code plugin folders, named `plugin_<plugin>_<server>` (so
 * their tools are `mcp__plugin_<plugin>_<server>__<tool>`, as in Claude Code).
 * The folder was trusted as a whole before its servers are handed over.
 */
export const pluginServerSources = (servers: ReadonlyArray<HandedServer>): ReadonlyArray<ServerSource> =>
  servers.map((s) => ({ source: `plugin ${s.plugin}`, scope: "plugin", servers: { [`plugin_${s.plugin}_${s.name}`]: s.config }, trusted: true }))
