import { Effect } from "effect"
import { makeConfig, mergeConfig, type ConfigData, type ConfigLayer, type ConfigShape } from "../config/config.ts"
import type { IgnoredSetting } from "../config/ignored.ts"
import { LSP_SETTING_KEYS } from "../config/sections/lsp.ts"
import { DEFAULT_CALL_TIMEOUT_MS, DEFAULT_HOOK_TIMEOUT_MS, DEFAULT_LOAD_TIMEOUT_MS, pluginPathEntries } from "../config/sections/plugins.ts"
import { MCP_DEFAULTS } from "../config/sections/mcp.ts"
import { isRecord } from "../protocol/is-record.ts"
import { makeTrust, type TrustShape, type TrustSubject } from "./trust.ts"

/**
 * Settings of the project's own anvil.json that a cloned repository could turn
 * against the user apply only once the user trusted them (`anvil config trust`),
 * like the project's plugins, MCP servers and sandbox settings, in the same
 * store (`~/.config/anvil/trust.json`, content hashes, a change asks again):
 * - `providers.<name>`: `base_url`, `headers`, `api_key_env`, `api_key` — where
 *   the model requests (and the user's API key) go, and which key they carry;
 * - `lsp.<language>`: `command`, `args`, `env`, `initializationOptions` — a
 *   program anvil starts outside the command sandbox (a language whose command
 *   the project names gets no server until trusted, as an untrusted MCP server
 *   is not started; see config/ignored.ts untrustedLanguageServers);
 * - `permission` rules that loosen: `allow`, or `ask` where your own file says
 *   `deny` (narrowing rules always apply);
 * - `tools.grep.rg_path` and `tools.bash.shell` (programs anvil runs), `tools.fetch.credentials.<host>`
 *   (which secrets go to which host) and `tools.fetch.verify_tls: false` (certificates unchecked);
 * - `verify`, only where it would run outside the command sandbox (see project-verify.ts);
 * - what changes the user's own plugins (their code, not the project's): `plugins.options.<name>` of a user
 *   plugin (options are handed to its code), a `plugins.hook_timeout_ms`, `load_timeout_ms` or `call_timeout_ms`
 *   other than the user's (a longer one stalls every call, a shorter one makes a guard fail to load or its hook
 *   time out and be skipped), and `plugins.disabled` naming a user plugin (a repository must not switch off the
 *   user's guard); the project's own plugins' names in `plugins.disabled` apply untrusted;
 * - `mcp.startup_timeout_ms` other than the user's (how long the first request waits for MCP servers).
 * Until then they are left out of the configuration in force and reported. `plugins.disabled` and `plugins.paths`
 * of both files add up: the project's list may disable more, never bring back a plugin the user disabled, and its
 * paths add plugin folders (whose plugins need trust as the project's) without dropping the user's.
 * The user's own file, the environment and command-line options need no trust.
 */

/** What one trust decision covers, and the keys of the project file it lets apply. */
interface Guarded {
  readonly subject: TrustSubject
  /** Keys of the project file (as path parts) left out while the subject is not trusted. */
  readonly paths: ReadonlyArray<ReadonlyArray<string>>
  readonly values: ReadonlyArray<unknown>
  /**
   * Needs trust only where it would run outside the command sandbox (the project's `verify`): the
   * configuration keeps it, and the session decides once it knows whether commands are confined
   * (trust/project-verify.ts). `anvil config trust` trusts it like the others.
   */
  readonly unconfinedOnly?: true
  /** What stays of each path's value while untrusted (the part that needs no trust); absent: the key is left out. */
  readonly untrustedPart?: ReadonlyArray<unknown>
}

const PROVIDER_KEYS = ["base_url", "headers", "api_key_env", "api_key"] as const
/**
 * Settings that name a program anvil runs: the rg grep uses, and the shell every
 * bash command runs in (outside the sandbox where it is off or cannot run, with
 * the user approving the command line, not the shell).
 */
const PROGRAM_SETTINGS: ReadonlyArray<readonly [string, string]> = [["grep", "rg_path"], ["bash", "shell"]]
const LSP_KEYS = ["command", "args", "env", "initializationOptions"] as const

const text = (value: unknown): string => JSON.stringify(value) ?? "undefined"
const sameValue = (a: unknown, b: unknown) => text(a) === text(b)
const recordAt = (data: unknown, ...path: ReadonlyArray<string>): Readonly<Record<string, unknown>> => {
  let node = data
  for (const part of path) node = isRecord(node) ? node[part] : undefined
  return isRecord(node) ? node : {}
}

/**
 * Keys of one entry that differ from what the user's own settings give: the same value in both files
 * needs no trust.
 */
const pickedKeys = (project: Readonly<Record<string, unknown>>, base: Readonly<Record<string, unknown>>, keys: ReadonlyArray<string>) =>
  keys.filter((k) => project[k] !== undefined && !sameValue(project[k], base[k]))

/** Per-entry subjects: `providers.<name>`, `lsp.<language>`. */
const entrySubjects = (
  kind: string,
  section: string,
  project: ConfigData,
  base: ConfigData,
  keys: ReadonlyArray<string>,
  skip: ReadonlyArray<string> = [],
): Array<Guarded> =>
  Object.entries(recordAt(project, section)).flatMap(([name, entry]) => {
    if (skip.includes(name) || !isRecord(entry)) return []
    const picked = pickedKeys(entry, recordAt(base, section, name), keys)
    if (picked.length === 0) return []
    const covered = Object.fromEntries(keys.filter((k) => entry[k] !== undefined).map((k) => [k, entry[k]]))
    return [{ subject: { kind, name, content: { text: text(covered) } }, paths: picked.map((k) => [section, name, k]), values: picked.map((k) => entry[k]) }]
  })

type Level = "allow" | "ask" | "deny"
const isLevel = (v: unknown): v is Level => v === "allow" || v === "ask" || v === "deny"

/** The level the user's own entry gives a pattern of a tool (its own, else the tool's level). */
const userLevel = (user: unknown, pattern: string): unknown =>
  typeof user === "string" ? user : isRecord(user) ? (user[pattern] ?? user["*"]) : undefined

/** One permission rule as a trust subject: `bash` (the tool's level) or `bash npm *` (a pattern). */
export const permissionSubject = (tool: string, pattern: string, level: string): TrustSubject => ({
  kind: "permission",
  name: pattern === "*" ? tool : `${tool} ${pattern}`,
  content: { text: text({ tool, pattern, level }) },
})

/** The permission rules of the project that loosen what the user's own settings give, one subject each. */
const permissionSubjects = (project: ConfigData, base: ConfigData): Array<Guarded> => {
  const user = recordAt(base, "permission")
  return Object.entries(recordAt(project, "permission")).flatMap(([tool, entry]) => {
    const rules: ReadonlyArray<[string, unknown]> = typeof entry === "string" ? [["*", entry]] : isRecord(entry) ? Object.entries(entry) : []
    return rules.flatMap(([pattern, level]): Array<Guarded> => {
      const own = userLevel(user[tool], pattern)
      // An allow your own rules already give (your deny patterns still win over it) and narrowing rules need no trust.
      if (!isLevel(level) || !((level === "allow" && own !== "allow") || (level === "ask" && own === "deny"))) return []
      const path = typeof entry === "string" ? ["permission", tool] : ["permission", tool, pattern]
      return [{ subject: permissionSubject(tool, pattern, level), paths: [path], values: [level] }]
    })
  })
}

/** One setting of the project file as a trust subject of its own (kind "setting", named by its dotted key). */
const setting = (key: string, value: unknown, path: ReadonlyArray<string>): Guarded => ({
  subject: { kind: "setting", name: key, content: { text: text(value) } },
  paths: [path],
  values: [value],
})

/**
 * `mcp.startup_timeout_ms` other than the user's (or the default): how long the first request waits for MCP
 * servers still starting. A longer one stalls every session on a server that hangs; 0 sends the first request
 * without the user's servers' tools.
 */
const mcpSubjects = (project: ConfigData, base: ConfigData): Array<Guarded> => {
  const value = recordAt(project, "mcp").startup_timeout_ms
  // As the session reads it (config.get): any number, else the default.
  const inForce = (v: unknown) => (typeof v === "number" ? v : MCP_DEFAULTS.startup_timeout_ms)
  return value !== undefined && inForce(value) !== inForce(recordAt(base, "mcp").startup_timeout_ms)
    ? [setting("mcp.startup_timeout_ms", value, ["mcp", "startup_timeout_ms"])]
    : []
}

/** A time limit as it applies (config.count): a value that is none (a warning) counts as the default it falls back to. */
const limitOf = (v: unknown, fallback: number) => (typeof v === "number" && Number.isFinite(v) && v >= 1 ? Math.floor(v) : fallback)

/**
 * The plugins' time limits, each with its default. Any other value than the user's needs trust while the user has
 * plugins: a longer one lets a plugin stall anvil for that long; a shorter one makes the user's guard fail to load
 * (its hooks then never run) or its hook or tool time out and be skipped.
 */
const PLUGIN_LIMITS: ReadonlyArray<readonly [string, number]> = [
  ["hook_timeout_ms", DEFAULT_HOOK_TIMEOUT_MS],
  ["load_timeout_ms", DEFAULT_LOAD_TIMEOUT_MS],
  ["call_timeout_ms", DEFAULT_CALL_TIMEOUT_MS],
]

/**
 * The project's plugin settings that change the user's own plugins (`userPlugins`, their names): options handed
 * to one, a time limit other than the user's (or the default), and disabling one; only while there is any.
 */
const pluginSubjects = (project: ConfigData, base: ConfigData, userPlugins: ReadonlyArray<string>): Array<Guarded> => {
  if (userPlugins.length === 0) return []
  const plugins = recordAt(project, "plugins")
  const baseOptions = recordAt(base, "plugins", "options")
  const disabled: ReadonlyArray<unknown> = Array.isArray(plugins.disabled) ? plugins.disabled : []
  const theirs = disabled.filter((n) => typeof n === "string" && userPlugins.includes(n))
  return [
    ...PLUGIN_LIMITS.flatMap(([key, fallback]) => {
      const value = plugins[key]
      return value !== undefined && limitOf(value, fallback) !== limitOf(recordAt(base, "plugins")[key], fallback)
        ? [setting(`plugins.${key}`, value, ["plugins", key])]
        : []
    }),
    ...Object.entries(recordAt(project, "plugins", "options"))
      .filter(([name, value]) => userPlugins.includes(name) && !sameValue(value, baseOptions[name]))
      .map(([name, value]) => setting(`plugins.options.${name}`, value, ["plugins", "options", name])),
    ...(theirs.length > 0
      ? [{ ...setting("plugins.disabled", theirs, ["plugins", "disabled"]), untrustedPart: [disabled.filter((n) => !theirs.includes(n))] }]
      : []),
  ]
}

/**
 * The names of the user's own plugins (anything not from the repository: the user's plugins folder, the paths
 * the user's file names, `ANVIL_PLUGIN_DIRS` outside the project, Claude Code's user plugins), found without
 * loading any; looked for only when the project's file has plugin settings that could reach them.
 */
const userPluginNames = (config: ConfigShape, root: string, project: ConfigData): Effect.Effect<ReadonlyArray<string>> => {
  const plugins = recordAt(project, "plugins")
  if (plugins.options === undefined && plugins.disabled === undefined && PLUGIN_LIMITS.every(([key]) => plugins[key] === undefined)) return Effect.succeed([])
  return Effect.promise(async () => {
    const { discoverPlugins } = await import("../plugins/discovery.ts")
    // Every path either file names (the project's add to the user's, see mergeablePlugins).
    const found = discoverPlugins({ root, env: config.env, paths: mergedPaths(recordAt(config.data, "plugins").paths, userPaths(config)), layers: config.layers })
    return found.plugins.filter((p) => p.source === "user").map((p) => p.name)
  })
}

/** The user's `plugins.paths` (or `skills.paths`), then the project's that the user's list lacks; what is not a path (a warning) left out. */
const mergedPaths = (project: unknown, user: unknown): ReadonlyArray<string> => {
  const theirs = pluginPathEntries(user)
  return [...theirs, ...pluginPathEntries(project).filter((p) => !theirs.includes(p))]
}

/** `plugins.paths` of the layers below the project file (the user's file, its own settings). */
const userPaths = (config: ConfigShape): unknown => {
  const at = config.layers.findIndex((l) => l.source === "project file")
  return config.layers.slice(0, at < 0 ? config.layers.length : at).reduce<unknown>((paths, l) => recordAt(l.data, "plugins").paths ?? paths, undefined)
}

/**
 * The project's `plugins` section as it may merge into the user's: its `paths` and `disabled` added to the user's
 * (as the sandbox's narrowing lists add up: a repository must not drop the user's plugin folders), and a value of the wrong type (a warning, which would replace the user's
 * in the merge and leave the default: no disabled plugins, no options) left out where the user's file has one.
 */
const mergeablePlugins = (data: ConfigData, base: ConfigData): ConfigData => {
  if (data.plugins === undefined || !isRecord(base.plugins)) return data
  if (!isRecord(data.plugins)) return without(data, ["plugins"])
  const own = data.plugins
  const theirs = base.plugins
  let plugins: Record<string, unknown> = own
  if (own.options !== undefined && !isRecord(own.options) && isRecord(theirs.options)) plugins = { ...plugins, options: theirs.options }
  if (own.paths !== undefined && theirs.paths !== undefined) plugins = { ...plugins, paths: mergedPaths(own.paths, theirs.paths) }
  const userDisabled: ReadonlyArray<unknown> | undefined = Array.isArray(theirs.disabled) ? theirs.disabled : undefined
  if (own.disabled !== undefined && userDisabled) {
    const listed: ReadonlyArray<unknown> = Array.isArray(own.disabled) ? own.disabled : []
    if (!Array.isArray(own.disabled) || userDisabled.some((n) => !listed.includes(n))) {
      plugins = { ...plugins, disabled: [...userDisabled, ...listed.filter((n) => !userDisabled.includes(n))] }
    }
  }
  return plugins === own ? data : { ...data, plugins }
}

/**
 * The project's `skills.paths` added to the user's, as its `plugins.paths` are: a repository must not drop the
 * user's skill folders. What it adds needs no trust (a skill is instructions, not code, as `.anvil/skills` is) and
 * counts as the project's skills wherever it points (skills/skill-catalog.ts).
 */
const mergeableSkills = (data: ConfigData, base: ConfigData): ConfigData => {
  if (!isRecord(data.skills) || !isRecord(base.skills) || data.skills.paths === undefined || base.skills.paths === undefined) return data
  return { ...data, skills: { ...data.skills, paths: mergedPaths(data.skills.paths, base.skills.paths) } }
}

/** The trust subject of the project's `verify` command (kind "setting", as the other programs a project names). */
export const verifySubject = (command: unknown): TrustSubject => ({ kind: "setting", name: "verify", content: { text: text(command) } })

/** Everything of the project file (`project`) that needs trust, measured against the user's own settings (`base`). */
export const guardedSettings = (project: ConfigData, base: ConfigData, userPlugins: ReadonlyArray<string> = []): ReadonlyArray<Guarded> => [
  ...(project.verify !== undefined && !sameValue(project.verify, base.verify)
    ? [{ subject: verifySubject(project.verify), paths: [["verify"]], values: [project.verify], unconfinedOnly: true as const }]
    : []),
  ...entrySubjects("provider", "providers", project, base, PROVIDER_KEYS),
  ...permissionSubjects(project, base),
  ...entrySubjects("lsp", "lsp", project, base, LSP_KEYS, LSP_SETTING_KEYS),
  ...PROGRAM_SETTINGS.flatMap(([tool, key]) => {
    const value = recordAt(project, "tools", tool)[key]
    return value !== undefined && !sameValue(value, recordAt(base, "tools", tool)[key])
      ? [{ subject: { kind: "setting", name: `tools.${tool}.${key}`, content: { text: text(value) } }, paths: [["tools", tool, key]], values: [value] }]
      : []
  }),
  // Certificate checks off: a man in the middle then reads what fetch sends, your credentials for that host included.
  ...(recordAt(project, "tools", "fetch").verify_tls === false && recordAt(base, "tools", "fetch").verify_tls !== false
    ? [{ subject: { kind: "setting", name: "tools.fetch.verify_tls", content: { text: "false" } }, paths: [["tools", "fetch", "verify_tls"]], values: [false] }]
    : []),
  ...Object.entries(recordAt(project, "tools", "fetch", "credentials"))
    .filter(([host, value]) => !sameValue(value, recordAt(base, "tools", "fetch", "credentials")[host]))
    .map(([host, value]) => ({
      subject: { kind: "credentials", name: host, content: { text: text(value) } },
      paths: [["tools", "fetch", "credentials", host]],
      values: [value],
    })),
  ...pluginSubjects(project, base, userPlugins),
  ...mcpSubjects(project, base),
]

/** Removes a dotted key (path parts as written; a permission pattern may hold dots) from a copy of `data`. */
const without = (data: ConfigData, path: ReadonlyArray<string>): ConfigData => {
  const [head, ...rest] = path
  if (head === undefined || !(head in data)) return data
  const copy: Record<string, unknown> = { ...data }
  if (rest.length === 0) delete copy[head]
  else if (isRecord(copy[head])) copy[head] = without(copy[head] as ConfigData, rest)
  return copy
}

/** Sets a key (path parts as written) to `value` in a copy of `data`, where every part but the last exists. */
const withValue = (data: ConfigData, path: ReadonlyArray<string>, value: unknown): ConfigData => {
  const [head, ...rest] = path
  if (head === undefined || !(head in data)) return data
  if (rest.length === 0) return { ...data, [head]: value }
  return isRecord(data[head]) ? { ...data, [head]: withValue(data[head] as ConfigData, rest, value) } : data
}

/** A key as notices show it: dotted, with a name that holds dots or spaces (a pattern, a host) in brackets. */
const showKey = (path: ReadonlyArray<string>): string =>
  path.map((p, i) => (i === 0 ? p : /^[\w-]+$/.test(p) ? `.${p}` : `[${JSON.stringify(p)}]`)).join("")

/**
 * The project's permission section as it merges into the user's: what is left once its untrusted loosening
 * rules are gone must not undo the user's own rules through the merge, where a plain string replaces an
 * object. A tool level the project gives next to the user's patterns becomes the project's `"*"`, and the
 * user's tool level stays in force beside project patterns that come without one.
 */
const mergeablePermission = (project: ConfigData, user: ConfigData): ConfigData => {
  const out: Record<string, unknown> = {}
  for (const [tool, entry] of Object.entries(project)) {
    const own = user[tool]
    if (typeof entry === "string") out[tool] = isRecord(own) ? { "*": entry } : entry
    else if (isRecord(entry)) out[tool] = typeof own === "string" && entry["*"] === undefined ? { "*": own, ...entry } : entry
    else out[tool] = entry
  }
  return out
}

/**
 * The configuration in force at `root`: `config` with the project file's untrusted settings left out
 * (`ignored` lists them), its project layer holding what applies. Reads the trust store only when the
 * project file has something that needs trust.
 */
export const guardProjectConfig = (config: ConfigShape, root: string, store?: TrustShape): Effect.Effect<ConfigShape> =>
  Effect.gen(function* () {
    const at = config.layers.findIndex((l) => l.source === "project file")
    if (at < 0) return config
    const project = config.layers[at]!.data
    const base = config.layers.slice(0, at).reduce<ConfigData>((d, l) => mergeConfig(d, l.data), {})
    const guarded = guardedSettings(project, base, yield* userPluginNames(config, root, project))
    const ignored: Array<IgnoredSetting> = []
    let data = project
    if (guarded.length > 0) {
      const trust = store ?? makeTrust({ root, env: config.env })
      for (const g of guarded) {
        if (g.unconfinedOnly) continue
        // A store that cannot be read trusts nothing.
        const { status } = yield* trust.check(g.subject).pipe(Effect.orElseSucceed(() => ({ status: "untrusted" as const })))
        if (status === "trusted") continue
        g.paths.forEach((path, i) => {
          ignored.push({ key: showKey(path), path, value: g.values[i], trust: status, file: config.layers[at]!.file ?? "anvil.json" })
          const part = g.untrustedPart?.[i]
          data = part === undefined ? without(data, path) : withValue(data, path, part)
        })
      }
    }
    data = mergeableSkills(mergeablePlugins(data, base), base)
    if (isRecord(data.permission) && Object.keys(recordAt(base, "permission")).length > 0) {
      data = { ...data, permission: mergeablePermission(data.permission as ConfigData, recordAt(base, "permission")) }
    }
    if (data === project) return config
    const layers: ReadonlyArray<ConfigLayer> = config.layers.map((l, i) => (i === at ? { ...l, data } : l))
    const merged = layers.reduce<ConfigData>((d, l) => mergeConfig(d, l.data), {})
    // A configuration guarded before keeps what it listed (those keys are gone from its project layer).
    return makeConfig(merged, config.env, config.sources, layers, config.warnings, [...(config.ignored ?? []), ...ignored])
  })

/** Trusts everything of the project file that is ignored now (or what `only` picks); returns the keys trusted. */
export const trustProjectSettings = (config: ConfigShape, root: string, only?: (path: ReadonlyArray<string>) => boolean) =>
  Effect.gen(function* () {
    const at = config.layers.findIndex((l) => l.source === "project file")
    if (at < 0) return []
    const base = config.layers.slice(0, at).reduce<ConfigData>((d, l) => mergeConfig(d, l.data), {})
    const trust = makeTrust({ root, env: config.env })
    const trusted: Array<string> = []
    const project = config.layers[at]!.data
    for (const g of guardedSettings(project, base, yield* userPluginNames(config, root, project))) {
      if (only && !g.paths.some(only)) continue
      const check = yield* trust.check(g.subject)
      if (check.status === "trusted") continue
      yield* trust.trust(g.subject)
      trusted.push(...g.paths.map(showKey))
    }
    return trusted
  })

/**
 * Trusts permission rules anvil itself saved to the project's anvil.json (the user answered "always"):
 * they are the user's own decision, so they apply in later sessions without `anvil config trust`.
 */
export const trustSavedRules = (root: string, env: ConfigShape["env"], rules: ReadonlyArray<{ readonly tool: string; readonly pattern?: string }>) => {
  const trust = makeTrust({ root, env })
  return Effect.forEach(rules, (r) => trust.trust(permissionSubject(r.tool, r.pattern ?? "*", "allow")), { discard: true }).pipe(Effect.ignore)
}
