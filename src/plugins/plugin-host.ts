import type { CustomAgent } from "../tool-framework/subagent.ts"
import type { SlashCommand } from "./claude-commands.ts"
import { Effect, Predicate } from "effect"
import type { ConfigShape } from "../config/config.ts"
import { DEFAULT_CALL_TIMEOUT_MS, DEFAULT_HOOK_TIMEOUT_MS, DEFAULT_LOAD_TIMEOUT_MS } from "../config/sections/plugins.ts"
import type { Tool } from "../tool-framework/definition.ts"
import { makeTrust, type TrustShape, type TrustStatus } from "../trust/trust.ts"
import { stampsOnce, type Stamps } from "../trust/content-hash.ts"
import type { CommandConfinement } from "../sandbox/sandbox-contract.ts"
import type { Hooks, PluginDefinition, ToolDefinition } from "./api.ts"
import { readClaudePlugin, type PluginMcpServer } from "./claude-plugin.ts"
import { discoverPlugins, pluginTrustContent, type DiscoveredPlugin, type PluginSource } from "./discovery.ts"
import { hookRunner, withHooks, type HookEntry, type HookRunner } from "./hook-runner.ts"
import { loadPluginModule, pluginCacheDir, problemOf, type Loaded, type LoadProblem } from "./load-module.ts"
import { kebabWarning, mismatchWarning, nameOrigin } from "./plugin-name.ts"
import { countedTimeOut, frozeWhile, loadMemoryIn, skippedSince, type StuckLoad } from "./load-memory.ts"
import { withTimeLimit } from "./time-limit.ts"
import { setFreezeReport, type FreezeReport, type PluginWatch } from "./watchdog.ts"
import { adaptPluginTool } from "./plugin-tool.ts"
import { settled } from "./plugin-value.ts"
import { hookNames, hooksProblem, pluginShape, toolProblem } from "./plugin-shape.ts"

/**
 * Finds, trusts and loads every plugin; the one place `anvil plugins`, `anvil
 * tools`, `anvil tool`, `anvil run` and the chat get plugins from. Each plugin
 * ends in one status — `loaded`, `untrusted`, `disabled` or `error` (with the
 * reason, and file and line when known) — and a broken one never stops the
 * others or the host.
 */

export type PluginStatus = "loaded" | "untrusted" | "disabled" | "error"

/** One plugin as `anvil plugins` shows it. */
export interface PluginReport {
  readonly name: string
  readonly source: PluginSource
  readonly kind: "module" | "claude"
  readonly path: string
  readonly status: PluginStatus
  readonly description?: string
  readonly error?: LoadProblem
  /** For a project plugin: where its trust stands (`changed`: trusted once, the code changed since). */
  readonly trust?: TrustStatus | "assumed"
  readonly tools: ReadonlyArray<string>
  readonly hooks: ReadonlyArray<string>
  readonly skills: ReadonlyArray<string>
  readonly mcpServers: ReadonlyArray<string>
  /** A Claude Code plugin's subagents (`agents/`). */
  readonly agents?: ReadonlyArray<string>
  /** A Claude Code plugin's slash commands (`commands/`). */
  readonly commands?: ReadonlyArray<string>
  /** Parts of a Claude Code plugin anvil does not run. */
  readonly unsupported?: ReadonlyArray<string>
  /** What in a loaded plugin can never work as written (a hook matcher that is no valid regular expression). */
  readonly warnings?: ReadonlyArray<string>
}

export interface PluginSet {
  readonly reports: ReadonlyArray<PluginReport>
  /** The loaded plugins' tools, adapted to the pipeline. */
  readonly tools: ReadonlyArray<Tool>
  readonly hooks: HookRunner
  /** Skill folders of loaded Claude Code plugins, in plugin order. */
  readonly skillFolders: ReadonlyArray<{ readonly dir: string; readonly source: PluginSource; readonly plugin: string; readonly pluginRoot?: boolean }>
  /** MCP servers of loaded Claude Code plugins, for the MCP client. */
  readonly mcpServers: ReadonlyArray<PluginMcpServer & { readonly source: PluginSource }>
  /** Subagents of loaded Claude Code plugins (`agents/`), named `plugin:agent` as Claude Code names them, for the task tool. */
  readonly agents: ReadonlyArray<CustomAgent>
  /** Slash commands of loaded Claude Code plugins (`commands/`), in plugin order. */
  readonly commands: ReadonlyArray<SlashCommand>
  /** Configuration problems and hook failures so far (hook failures are also sent to `onProblem`). */
  readonly problems: ReadonlyArray<string>
}

export interface PluginSettings {
  readonly paths: unknown
  readonly disabled: ReadonlyArray<string>
  readonly loadTimeoutMs: number
  readonly hookTimeoutMs: number
  readonly callTimeoutMs: number
  readonly options: Readonly<Record<string, unknown>>
}

/** The `plugins` section of anvil.json. */
export const pluginSettings = (config: ConfigShape): PluginSettings => ({
  paths: config.get("plugins", {} as Record<string, unknown>).paths,
  disabled: config.get("plugins.disabled", [] as ReadonlyArray<unknown>).filter((n): n is string => typeof n === "string"),
  loadTimeoutMs: config.count("plugins.load_timeout_ms", DEFAULT_LOAD_TIMEOUT_MS),
  hookTimeoutMs: config.count("plugins.hook_timeout_ms", DEFAULT_HOOK_TIMEOUT_MS),
  callTimeoutMs: config.count("plugins.call_timeout_ms", DEFAULT_CALL_TIMEOUT_MS),
  options: config.get("plugins.options", {} as Record<string, unknown>),
})

export interface LoadPluginsOptions {
  readonly root: string
  readonly env: Readonly<Record<string, string | undefined>>
  readonly config: ConfigShape
  /** Every name and alias of the built-in tools (lowercase or not): a plugin tool may not take one. */
  readonly builtinNames: ReadonlyArray<string>
  /** Trust project plugins for this run (`--trust-plugins`). */
  readonly trustProject?: boolean
  /** Where hook failures are reported (stderr, a stream-json event). */
  readonly onProblem?: (message: string) => void
  /** The command sandbox for command hooks of plugins that came with the repository (project plugins). */
  readonly confineProjectHooks?: CommandConfinement
  /** Only these plugins (`anvil plugins check PATH` passes the discovered one). */
  readonly only?: ReadonlyArray<DiscoveredPlugin>
  /** Load plugins that timed out in an earlier run too (`anvil plugins check`); see load-memory.ts. */
  readonly retryTimedOut?: boolean
  /** What standard output gets if a plugin freezes anvil (watchdog.ts); stderr always gets the message. */
  readonly freezeReport?: FreezeReport
}

const describe = (e: unknown) => (e instanceof Error ? e.message : String(e))
/** A report's `warnings`, when there are any. */
const withWarnings = (warnings: ReadonlyArray<string | undefined>) => {
  const said = warnings.filter((w): w is string => w !== undefined)
  return said.length > 0 ? { warnings: said } : {}
}

/** The trust of a discovered project plugin: untrusted/changed/trusted/assumed, or a problem reading it. */
export const trustOf = (trust: TrustShape, plugin: DiscoveredPlugin, stamps?: Stamps) =>
  Effect.runSync(
    trust.check({ kind: "plugin", name: plugin.name, content: pluginTrustContent(plugin) }, stamps).pipe(
      Effect.map((c) => (c.assumed ? ("assumed" as const) : c.status)),
      Effect.catch((e) => Effect.succeed({ problem: e.message })),
    ),
  )

/** Runs `setup` with the load time limit, watched (watchdog.ts); returns what it adds. */
const runSetup = async (
  name: string,
  plugin: PluginDefinition,
  ctx: { root: string; options: Record<string, unknown> },
  timeoutMs: number,
  memory: PluginWatch["memory"],
) => {
  if (!plugin.setup) return undefined
  const work = async () => {
    const value = await settled(plugin.setup!(ctx))
    return Effect.isEffect(value) ? await Effect.runPromise(value as Effect.Effect<unknown>) : value
  }
  const watch = { plugin: name, what: "setup", setting: "plugins.load_timeout_ms", memory }
  return withTimeLimit(work, timeoutMs, `setup did not finish within ${timeoutMs} ms`, watch)
}

/**
 * Whether a discovered plugin loads: the status it ends in when it does not (a second plugin of a name, disabled,
 * a problem, a project plugin not trusted), or the trust it loads with. Takes its name in `seen`.
 */
export const admission = (
  plugin: DiscoveredPlugin,
  seen: Set<string>,
  disabled: ReadonlyArray<string>,
  trustStateOf: (plugin: DiscoveredPlugin) => ReturnType<typeof trustOf>,
): { readonly refused: Pick<PluginReport, "status" | "error" | "trust"> } | { readonly trust?: PluginReport["trust"] } => {
  if (seen.has(plugin.name)) return { refused: { status: "error", error: { message: `another plugin is already named '${plugin.name}'; rename one of them` } } }
  seen.add(plugin.name)
  if (disabled.includes(plugin.name)) return { refused: { status: "disabled" } }
  if (plugin.problem) return { refused: { status: "error", error: { message: plugin.problem, ...(plugin.problemCode ? { code: plugin.problemCode } : {}) } } }
  if (plugin.source !== "project") return {}
  const state = trustStateOf(plugin)
  if (typeof state === "object") return { refused: { status: "error", error: { message: state.problem } } }
  return state === "untrusted" || state === "changed" ? { refused: { status: "untrusted", trust: state } } : { trust: state }
}

export const loadPlugins = async (options: LoadPluginsOptions): Promise<PluginSet> => {
  if (options.freezeReport) setFreezeReport(options.freezeReport)
  const settings = pluginSettings(options.config)
  const problems: Array<string> = []
  const onProblem = (message: string) => {
    problems.push(message)
    options.onProblem?.(message)
  }
  const found = options.only ? { plugins: options.only, problems: [] } : discoverPlugins({ root: options.root, env: options.env, paths: settings.paths, layers: options.config.layers })
  for (const p of found.problems) onProblem(p)
  const trust = makeTrust({ root: options.root, env: options.env, ...(options.trustProject ? { assume: ["plugin"] } : {}) })

  const taken = new Map<string, string>()
  for (const name of options.builtinNames) taken.set(name.toLowerCase(), "a built-in tool")
  const seenNames = new Set<string>()
  const reports: Array<PluginReport> = []
  const tools: Array<Tool> = []
  const entries: Array<HookEntry> = []
  const skillFolders: Array<PluginSet["skillFolders"][number]> = []
  const mcpServers: Array<PluginSet["mcpServers"][number]> = []
  const agents: Array<CustomAgent> = []
  const commands: Array<SlashCommand> = []

  // Each plugin's files are walked once in this pass: by its trust check, whose fingerprint the load-time-out
  // memory below takes too. Trust is checked once per plugin (it hashes the plugin's files).
  const stamps = stampsOnce()
  const trustStates = new Map<DiscoveredPlugin, ReturnType<typeof trustOf>>()
  const trustStateOf = (plugin: DiscoveredPlugin) => {
    if (!trustStates.has(plugin)) trustStates.set(plugin, trustOf(trust, plugin, stamps))
    return trustStates.get(plugin)!
  }
  // The modules that will be loaded start loading together: a plugin whose import never ends then
  // costs its time limit once, not once for each such plugin. They are taken in order below.
  const loading = new Map<DiscoveredPlugin, Promise<Loaded>>()
  // A plugin that timed out while loading in earlier runs is skipped until it changes: it would cost its
  // time limit to every command (load-memory.ts).
  const memory = loadMemoryIn(pluginCacheDir(options.env), stamps)
  // What the watchdog writes if the plugin's code freezes anvil while it loads: that counts as a time-out.
  const frozenMemory = (plugin: DiscoveredPlugin, what: string) => memory.pending(plugin.path, settings.loadTimeoutMs, frozeWhile(what, settings.loadTimeoutMs))
  const startLoad = (plugin: DiscoveredPlugin) =>
    loadPluginModule({
      entry: plugin.entry!,
      folder: plugin.folder ? plugin.path : undefined,
      timeoutMs: settings.loadTimeoutMs,
      env: options.env,
      plugin: plugin.name,
      memory: frozenMemory(plugin, "its import"),
      confined: plugin.source === "project",
    })
  /** A load time-out counted; the message says what comes of it. */
  const timedOut = (plugin: DiscoveredPlugin, problem: LoadProblem): LoadProblem => ({
    ...problem,
    message: `${problem.message}; ${countedTimeOut(memory.remember(plugin.path, settings.loadTimeoutMs, problem.message), plugin.path)}`,
  })
  const stuck = new Map<DiscoveredPlugin, StuckLoad>()
  // Plugins that timed out or froze anvil before, or were loading when a load froze it: each loads alone.
  const alone = new Set<DiscoveredPlugin>()
  const early = new Set<string>()
  for (const plugin of found.plugins) {
    if (early.has(plugin.name)) continue
    early.add(plugin.name)
    if (plugin.kind === "claude" || plugin.problem || settings.disabled.includes(plugin.name)) continue
    const state = plugin.source === "project" ? trustStateOf(plugin) : "trusted"
    if (state !== "trusted" && state !== "assumed") continue
    const before = options.retryTimedOut ? undefined : memory.stuck(plugin.path, settings.loadTimeoutMs)
    if (before) stuck.set(plugin, before)
    else if (memory.alone(plugin.path)) alone.add(plugin)
    else loading.set(plugin, startLoad(plugin))
  }

  for (const plugin of found.plugins) {
    const base = { name: plugin.name, source: plugin.source, kind: plugin.kind, path: plugin.path, tools: [], hooks: [], skills: [], mcpServers: [] }
    const report = (r: Partial<PluginReport> & { status: PluginStatus }) => reports.push({ ...base, ...r })
    const admitted = admission(plugin, seenNames, settings.disabled, trustStateOf)
    if ("refused" in admitted) {
      report(admitted.refused)
      continue
    }
    const withTrust = admitted.trust ? { trust: admitted.trust } : {}
    const pluginOptions = Predicate.isObject(settings.options[plugin.name]) ? (settings.options[plugin.name] as Record<string, unknown>) : {}

    if (plugin.kind === "claude") {
      try {
        const claude = readClaudePlugin({
          name: plugin.name,
          dir: plugin.path,
          root: options.root,
          env: options.env,
          onProblem,
          ...(plugin.manifest ? { manifest: plugin.manifest } : {}),
          ...(plugin.settingsHooks ? { settingsHooks: plugin.settingsHooks } : {}),
          ...(plugin.source === "project" && options.confineProjectHooks ? { confine: options.confineProjectHooks } : {}),
        })
        for (const [name, fn] of Object.entries(claude.hooks)) {
          const timeoutMs = claude.hookTimeoutsMs[name as keyof Hooks]
          entries.push({ plugin: plugin.name, name: name as keyof Hooks, fn: fn as never, ...(timeoutMs !== undefined ? { timeoutMs } : {}) })
        }
        for (const dir of claude.skillDirs) skillFolders.push({ dir, source: plugin.source, plugin: plugin.name, ...(dir === plugin.path ? { pluginRoot: true } : {}) })
        for (const s of claude.mcpServers) mcpServers.push({ ...s, source: plugin.source })
        commands.push(...claude.commands)
        for (const p of claude.agentProblems) onProblem(`plugin '${plugin.name}': ${p}`)
        // Named as Claude Code names them, `plugin:agent`, so two plugins' agents of one name both load (the task tool also takes the plain name when one agent has it).
        for (const a of claude.agents) {
          const name = `${plugin.name}:${a.name}`
          if (agents.some((b) => b.name === name)) onProblem(`plugin '${plugin.name}': the agent '${a.name}' is defined twice; the first one is used`)
          else agents.push({ ...a, name })
        }
        report({
          status: "loaded",
          ...withTrust,
          ...(claude.description ? { description: claude.description } : {}),
          hooks: claude.hookLabels,
          skills: claude.skills,
          mcpServers: claude.mcpServers.map((s) => s.name),
          ...(claude.agents.length > 0 ? { agents: claude.agents.map((a) => a.name) } : {}),
          ...(claude.commands.length > 0 ? { commands: claude.commands.map((c) => c.name) } : {}),
          ...(claude.unsupported.length > 0 ? { unsupported: claude.unsupported } : {}),
          ...withWarnings([kebabWarning(plugin.name, nameOrigin(plugin)), ...claude.warnings]),
        })
      } catch (e) {
        report({ status: "error", ...withTrust, error: { message: describe(e) } })
      }
      continue
    }

    const before = stuck.get(plugin)
    if (before) {
      report({ status: "error", ...withTrust, error: { message: skippedSince(before, plugin.path), timedOut: true } })
      continue
    }
    if (alone.has(plugin)) await Promise.allSettled(loading.values())
    const loaded = await (loading.get(plugin) ?? startLoad(plugin))
    if (!loaded.ok) {
      report({ status: "error", ...withTrust, error: loaded.problem.timedOut ? timedOut(plugin, loaded.problem) : loaded.problem })
      continue
    }
    const shape = pluginShape(loaded.module)
    if (!shape.ok) {
      report({ status: "error", ...withTrust, error: { message: shape.message, file: plugin.entry! } })
      continue
    }
    let defs: ReadonlyArray<ToolDefinition> = shape.plugin.tools ?? []
    let hooks: Hooks = shape.plugin.hooks ?? {}
    try {
      const setupContext = { root: options.root, options: pluginOptions }
      const added = await runSetup(plugin.name, shape.plugin, setupContext, settings.loadTimeoutMs, shape.plugin.setup ? frozenMemory(plugin, "its setup") : undefined)
      if (Predicate.isObject(added)) {
        const more = Array.isArray(added.tools) ? added.tools : []
        const problem = more.map((t, i) => toolProblem(t, `setup's tools[${i}]`)).find(Boolean) ?? hooksProblem(added.hooks)
        if (problem) throw new Error(problem)
        defs = [...defs, ...more]
        hooks = { ...hooks, ...(Predicate.isObject(added.hooks) ? (added.hooks as Hooks) : {}) }
      }
    } catch (e) {
      const problem = { ...problemOf(e, plugin.entry!), message: `setup failed: ${describe(e)}` }
      report({ status: "error", ...withTrust, error: problem.timedOut ? timedOut(plugin, problem) : problem })
      continue
    }
    const clash = defs
      .map((d) => ({ d, owner: taken.get(d.name.toLowerCase()) }))
      .find((c) => c.owner !== undefined)
    const dup = defs.find((d, i) => defs.findIndex((o) => o.name.toLowerCase() === d.name.toLowerCase()) !== i)
    if (clash || dup) {
      const message = clash
        ? `tool '${clash.d.name}' clashes with ${clash.owner}; rename it`
        : `the plugin defines tool '${dup!.name}' twice`
      report({ status: "error", ...withTrust, error: { message, file: plugin.entry! } })
      continue
    }
    for (const d of defs) {
      taken.set(d.name.toLowerCase(), `plugin '${plugin.name}'`)
      tools.push(adaptPluginTool(d, { name: plugin.name, options: pluginOptions, timeoutMs: settings.callTimeoutMs }))
    }
    for (const [name, fn] of Object.entries(hooks)) entries.push({ plugin: plugin.name, name: name as keyof Hooks, fn: fn as never })
    memory.forget(plugin.path)
    report({
      status: "loaded",
      ...withTrust,
      ...(shape.plugin.description ? { description: shape.plugin.description } : {}),
      tools: defs.map((d) => d.name),
      hooks: hookNames(hooks),
      ...withWarnings([mismatchWarning(shape.plugin.name, plugin.name, nameOrigin(plugin))]),
    })
  }
  return {
    reports,
    tools,
    hooks: hookRunner(entries, { timeoutMs: settings.hookTimeoutMs, onProblem }),
    skillFolders,
    mcpServers,
    agents,
    commands,
    problems,
  }
}

/** The set with more hook entries after the plugins' own (a host program's hooks). */
export const withExtraHooks = (set: PluginSet, extra: ReadonlyArray<HookEntry>, onProblem: (message: string) => void): PluginSet => ({
  ...set,
  hooks: hookRunner([...set.hooks.entries, ...extra], { timeoutMs: set.hooks.timeoutMs, onProblem }),
})

/** The set with entries that come and go while the session runs (skill-hooks.ts), after every fixed one. */
export const withScopedHooks = (set: PluginSet, fixed: ReadonlyArray<HookEntry>, scoped: () => ReadonlyArray<HookEntry>, onProblem: (message: string) => void): PluginSet => ({
  ...set,
  hooks: hookRunner([...set.hooks.entries, ...fixed], { timeoutMs: set.hooks.timeoutMs, onProblem, scoped }),
})

/** A plugin set with nothing in it (no plugins found, or plugins not wanted). */
export const emptyPluginSet = (): PluginSet => ({
  reports: [],
  tools: [],
  hooks: hookRunner([], { timeoutMs: DEFAULT_HOOK_TIMEOUT_MS, onProblem: () => {} }),
  skillFolders: [],
  mcpServers: [],
  agents: [],
  commands: [],
  problems: [],
})

/** Every name and alias of some tools (a plugin tool may take none of them). */
export const toolNames = (tools: ReadonlyArray<Tool>): ReadonlyArray<string> =>
  tools.flatMap((t) => [t.name, t.title, ...(t.aliases ?? [])])

/** The tools an agent or a call gets: the given ones and the plugins', all with the plugins' tool hooks around them. */
export const toolsWithPlugins = (base: ReadonlyArray<Tool>, set: PluginSet, onProblem: (message: string) => void = () => {}): ReadonlyArray<Tool> =>
  [...base, ...set.tools].map((t) => withHooks(t, set.hooks, onProblem))

const where = (e: LoadProblem) => (e.file ? `${e.file}${e.line ? `:${e.line}` : ""}: ` : "")

/**
 * One line per plugin that needs the user's attention: untrusted or changed
 * project plugins (with the command that trusts them), plugins that failed, and
 * what a loaded plugin has that can never run (a hook matcher that is no valid regular expression).
 */
export const pluginNotices = (set: PluginSet): ReadonlyArray<string> =>
  set.reports.flatMap((r) => {
    if (r.status === "untrusted") {
      const why = r.trust === "changed" ? "changed since it was trusted" : "not trusted yet"
      return [`project plugin '${r.name}' (${r.path}) is ${why} and was not loaded; review it, then run 'anvil plugins trust ${r.name}' (or pass --trust-plugins for one run)`]
    }
    if (r.status === "error") return [`plugin '${r.name}' was not loaded: ${where(r.error!)}${r.error!.message}`]
    return (r.warnings ?? []).map((w) => `plugin '${r.name}': ${w}`)
  })
