import { Context, Effect, Layer, Scope } from "effect"
import { Path } from "effect/Path"
import type { ChildProcessSpawner } from "effect/process/ChildProcessSpawner"
import { Config, ConfigError, type ConfigData, type ConfigShape } from "./config/config.ts"
import type { GitFs } from "./git/git-fs.ts"
import type { Lsp } from "./lsp/service.ts"
import type { HttpClient } from "./net/http-client.ts"
import type { FetchHops, HopVerdict } from "./net/fetch-hops.ts"
import { OutputSettings } from "./output/output-settings.ts"
import { retentionOnSpill } from "./output/retention-on-spill.ts"
import { SpillStore } from "./output/spill-store.ts"
import { Permissions, type AskAnswer, type PermissionDecision, type PermissionRequest, type PermissionsOptions } from "./permission/permissions.ts"
import type { ProcessRunner } from "./process/process-runner.ts"
import type { BackgroundShells } from "./shell/background-shells.ts"
import type { Sandbox } from "./sandbox/sandbox.ts"
import type { SandboxOptions, SandboxShape } from "./sandbox/sandbox-contract.ts"
import { readSandboxSettings, SandboxSettingsError, type SandboxSettings } from "./sandbox/settings.ts"
import { readRuleMasks } from "./permission/read-masks.ts"
import { hasStandInRecords, standInDir } from "./workspace/stand-in-records.ts"
import type { ProjectSandbox } from "./trust/project-sandbox.ts"
import { isRecord } from "./protocol/is-record.ts"
import { projectMayNeedTrust, untrustedLanguageServers } from "./config/ignored.ts"
import { AfterChange } from "./tool-framework/after-change.ts"
import type { Tool } from "./tool-framework/definition.ts"
import { makeRegistry, type ToolSource } from "./tool-framework/registry.ts"
import { ToolRunner } from "./tool-framework/runner.ts"
import { SessionInfo, type SessionInfoShape } from "./tool-framework/session.ts"
import { SubagentRunner } from "./tool-framework/subagent.ts"
import { UserTerminal } from "./terminal/user-terminal.ts"
import { FileLedger } from "./workspace/file-ledger.ts"
import type { BulkFs } from "./workspace/bulk-fs.ts"
import { FileSystem, lazyFileSystem, loadNodeFileSystem } from "./workspace/file-system.ts"
import { nodePath } from "./workspace/node-path.ts"
import { projectRootOf } from "./workspace/project-root.ts"
import { privateStateDir, xdgConfigHome } from "./workspace/state-dir.ts"
import { fromHome } from "./workspace/home-path.ts"
import { Workspace } from "./workspace/workspace.ts"

/** The services a tool's `run` may require. Plugins get exactly these. */
export type ToolServices =
  | Workspace
  | Config
  | OutputSettings
  | SpillStore
  | Permissions
  | FileLedger
  | SessionInfo
  | FileSystem
  | Path
  | ChildProcessSpawner
  | HttpClient
  | FetchHops
  | GitFs
  | UserTerminal
  | SubagentRunner
  | ProcessRunner
  | BulkFs
  | Lsp
  | Sandbox
  | BackgroundShells

/**
 * A layer whose module is imported when the layer is built, not when this
 * file is: a call that does not use a service never evaluates its code.
 */
const lazyLayer = <A, E, R>(load: () => Promise<Layer.Layer<A, E, R>>): Layer.Layer<A, E, R> => Layer.unwrap(Effect.promise(load))

/** Files and paths from @effect/platform-node (the file system's module imported when the layer is built). */
export const FilesLive = Layer.merge(Layer.effect(FileSystem, Effect.promise(loadNodeFileSystem)), Layer.succeed(Path, nodePath))

/** Child processes: @effect/platform-node's spawner, its module imported on the first spawn. */
const SpawnerLive = lazyLayer(() => import("./process/lazy-spawner.ts").then((m) => m.lazyChildProcessSpawner)).pipe(Layer.provide(FilesLive))

/**
 * The platform: file system, paths and child processes from
 * @effect/platform-node (the spawner's module is imported on the first spawn).
 */
export const PlatformLive = Layer.merge(SpawnerLive, FilesLive)

export interface RuntimeOptions {
  /** The process's working directory. */
  readonly cwd: string
  /** The process environment, read once here. */
  readonly env: Readonly<Record<string, string | undefined>>
  /** `--root DIR`; otherwise ANVIL_ROOT, otherwise the nearest `.git`/`anvil.json` ancestor. */
  readonly root?: string | undefined
  /** The tools to register. */
  readonly tools: ReadonlyArray<Tool>
  /** Tools that join while the runtime lives (MCP servers' tools). */
  readonly toolSources?: ReadonlyArray<ToolSource>
  /** Why a tool left out of `tools` is refused when called (see ToolRegistry.withheld). */
  readonly withheld?: (name: string) => string | undefined
  /** How an "ask" permission is answered. Default: approved (a direct invocation). */
  readonly onAsk?: (request: PermissionRequest) => Effect.Effect<boolean | AskAnswer>
  /** Approvals given up front (`--allow`). */
  readonly permissions?: PermissionsOptions
  /** Settings applied over the config files. */
  readonly configOverrides?: ConfigData
  /** Configuration already loaded (the agent reads it once at start); the files are then not read again. */
  readonly config?: ConfigShape
  /** The session calls belong to. Default: a direct (non-agent) run with id "cli". */
  readonly session?: SessionInfoShape
  /** Enforce read-before-write (agent sessions). Default: off. */
  readonly enforceReads?: boolean
  /** The person tools may ask (question). Default: none (no TTY); the CLI passes `UserTerminal.fromStreams`. */
  readonly terminal?: Layer.Layer<UserTerminal>
  /**
   * Completes the tool list once the root and the configuration are known (the
   * CLI adds plugins here), inside the same runtime rather than a second one
   * built only to read the configuration.
   */
  readonly prepareTools?: (input: {
    readonly root: string
    readonly config: ConfigShape
    readonly tools: ReadonlyArray<Tool>
    /** The command sandbox (for repository command hooks). */
    readonly sandbox: SandboxShape
  }) => Promise<ReadonlyArray<Tool>>
  /** The command sandbox: `--sandbox MODE`, and who approves a host outside sandbox.network (chat). */
  readonly sandbox?: {
    readonly modeFlag?: string | undefined
    readonly askHost?: SandboxOptions["askHost"]
    /** Told the notice when the project's sandbox settings that widen were ignored for want of trust (`anvil tool`'s stderr). */
    readonly onProjectIgnored?: (notice: string) => void
    /**
     * Folders outside the project the caller gave the session (Claude Code's `--add-dir`): the tools may reach them,
     * as `sandbox.allow` entries, and confined commands write there, as `sandbox.writable` ones. Absolute.
     */
    readonly addDirs?: ReadonlyArray<string>
  }
  /**
   * When expired spill files are swept: "session" (default) at start and every hour while the runtime lives;
   * "on-spill" after the first spill only (a one-call process, where a sweep at start would slow every call).
   */
  readonly retention?: "session" | "on-spill"
  /** Runs the task tool's subagents (agent sessions). Default: none (task fails cleanly). Built with the other services. */
  readonly subagents?: Layer.Layer<SubagentRunner, never, Exclude<ToolServices, SubagentRunner>>
  /**
   * "all" (default): every service of {@link ToolServices} is built, as an agent session and its own code use them.
   * "used": the core and what the tools declare in `requires` (see Tool.requires), for a call of one tool; with
   * `prepareTools` or `toolSources` (tools that declare nothing) it is "all" again.
   */
  readonly services?: "all" | "used"
}

/**
 * The whole wiring in one place: platform → config → workspace → output
 * (settings, spill store, retention) → permissions → the services the tools
 * use → the tool runner. Each service beyond the core comes from a module
 * imported only when the service is made.
 *
 * The services are made one after another into one context rather than as a
 * layer each: in a fresh process every layer built costs about
 * 0.25 ms of CPU (its memo map, scope and fiber), and the two dozen layers this
 * wiring used to be were a fifth of an `anvil tool` call (20 trivial services:
 * 10.5 ms of CPU as merged layers, 7.8 ms made into one context).
 */
export const makeToolContext = (options: RuntimeOptions) =>
  Effect.gen(function* () {
    const scope = yield* Scope.Scope
    const used = usedServices(options)
    const uses = (key: string) => used === "all" || used.has(key)
    // The platform's file system where every service is made or a tool streams files (it names FileSystem in
    // its requires); otherwise one that imports it on its first call: a read never does.
    const files = uses(FileSystem.key) ? yield* Effect.promise(loadNodeFileSystem) : lazyFileSystem()
    const platform = Context.make(Path, nodePath).pipe(Context.add(FileSystem, files))
    // The context so far; each service is made with everything made before it.
    let context: Context.Context<never> = platform as Context.Context<never>
    // Sound as long as each service is made after those it needs (checked by the tests of every tool).
    const withContext = <A, E, R>(make: Effect.Effect<A, E, R>) => Effect.provideContext(make as Effect.Effect<A, E, never>, context)
    const add = <I, S, E, R>(key: Context.Key<I, S>, make: Effect.Effect<S, E, R>) =>
      Effect.map(withContext(make), (service) => {
        context = Context.add(context, key, service) as Context.Context<never>
      })
    // A service that is a plain value is put in directly: providing the context to an effect only to succeed
    // with it rebuilds the fiber's context cache on the way in and out.
    const put = <I, S>(key: Context.Key<I, S>, service: S) =>
      Effect.sync(() => {
        context = Context.add(context, key, service) as Context.Context<never>
      })
    const addLayer = <A, E, R>(layer: Layer.Layer<A, E, R>) =>
      Effect.map(Effect.provideContext(Layer.buildWithScope(layer as Layer.Layer<A, E>, scope), context), (built) => {
        context = Context.merge(context, built) as Context.Context<never>
      })
    const path = Context.get(platform, Path)
    const root = yield* projectRootOf(options.cwd, options.root ?? options.env.ANVIL_ROOT).pipe(Effect.provideContext(platform))
    // A configuration handed in is guarded too (a no-op for one already guarded: what was left out is gone from it).
    yield* options.config
      ? Effect.flatMap(trustedConfig(options.config, root), (config) => put(Config, config))
      : add(
          Config,
          Config.load({ root, env: options.env, ...(options.configOverrides ? { overrides: options.configOverrides } : {}) }).pipe(
            Effect.flatMap((loaded) => trustedConfig(loaded, root)),
          ),
        )
    const config = Context.get(context as Context.Context<Config>, Config)
    yield* add(OutputSettings, OutputSettings.make(root))
    const settings = Context.get(context as Context.Context<OutputSettings>, OutputSettings)
    // The project's own anvil.json widens the sandbox (or the folders tools may reach) only once trusted.
    const sandboxSection = yield* projectSandboxOf(config, root, options.sandbox?.modeFlag)
    const { section } = sandboxSection
    if (sandboxSection.notice) options.sandbox?.onProjectIgnored?.(sandboxSection.notice)
    const listed = (key: string): ReadonlyArray<string> =>
      isRecord(section) && Array.isArray(section[key]) ? (section[key] as ReadonlyArray<unknown>).filter((e): e is string => typeof e === "string") : []
    // The private state folder holds the spill files when `.anvil` cannot be used: only those are reachable,
    // not the rest of it (the sandbox's stand-in ledger there names files anvil removes).
    const spill = [settings.dir, path.join(privateStateDir(root, options.env), "tool-output")]
    // `~/x` is the home folder's, as in every other path setting (sandbox/protected-paths.ts expandPath).
    const added = [...listed("allow").map((e) => fromHome(e, options.env.HOME) ?? path.resolve(root, e)), ...(options.sandbox?.addDirs ?? [])]
    // What the sandbox hides from commands stays out of the file tools' reach there too (loaded only with such folders).
    const withheld =
      added.length === 0
        ? []
        : (yield* Effect.promise(() => import("./sandbox/tool-reach.ts"))).withheldFromTools(
            { allowRead: listed("allow_read"), denyRead: listed("deny_read") },
            root,
            spill,
            options.env.HOME,
            xdgConfigHome(options.env),
            options.env,
          )
    yield* add(
      Workspace,
      Workspace.make({
        root,
        cwd: options.cwd,
        extraAllowed: [...spill, ...added],
        withheld,
        env: options.env,
        // The file tools hold the paths confined commands may not change (sandbox/protected-paths.ts), these too.
        protectedPaths: listed("protected"),
      }),
    )
    // An anvil killed during a confined command (kill -9) left its stand-ins (an empty anvil.json, .claude/) in the
    // project: they go before any tool sees the tree (`git_add .` staged them), not only with the next confined command.
    const standIns = standInDir(root, options.env)
    if (hasStandInRecords(standIns)) yield* Effect.promise(() => import("./sandbox/stand-in-ledger.ts").then((m) => m.sweepStandIns(standIns)))
    yield* add(SpillStore, SpillStore.make)
    const onSpill = options.retention === "on-spill"
    if (onSpill) yield* add(SpillStore, retentionOnSpill)
    const sessionInfo = options.session ?? { id: "cli", interactive: false }
    // The sandbox settings are checked either way (a bad one is a ConfigError); the sandbox itself is made for tools that run commands.
    const sandboxSettings = yield* sandboxSettingsOf(sandboxSection, options, config, root)
    const sandbox = uses("anvil/Sandbox") ? yield* makeSandbox(root, options, sandboxSettings, sessionInfo.id, config) : undefined
    if (sandbox) yield* put(sandbox.key, sandbox.service)
    yield* add(Permissions, Permissions.make(options.onAsk ?? (() => Effect.succeed(true)), permissionsOptions(options, sandbox?.service, root)))
    yield* put(SessionInfo, sessionInfo)
    yield* options.enforceReads ? add(FileLedger, FileLedger.makeEnforcing) : put(FileLedger, FileLedger.none)
    if (!onSpill) yield* withContext(Effect.flatMap(Effect.promise(() => import("./output/retention.ts")), (m) => m.startRetention))
    if (options.terminal) yield* addLayer(options.terminal)
    else yield* put(UserTerminal, UserTerminal.nobody)
    const workspace = Context.get(context as Context.Context<Workspace>, Workspace)
    let lsp: Effect.Effect<void, never, Scope.Scope> | undefined = Effect.gen(function* () {
      lsp = Effect.void
      const section = config.data.lsp
      const { Lsp } = yield* Effect.promise(() => import("./lsp/service.ts"))
      yield* add(
        Lsp,
        Lsp.make({
          root,
          env: options.env,
          section: section === false ? false : section !== null && typeof section === "object" && !Array.isArray(section) ? (section as Record<string, unknown>) : {},
          display: workspace.display,
          untrusted: untrustedLanguageServers(config),
        }),
      )
    })
    // Keyed by each service's `key`, which is what a tool's `requires` names.
    const optional: Record<string, () => Effect.Effect<void, never, Scope.Scope>> = {
      "anvil/HttpClient": () => Effect.flatMap(Effect.promise(() => import("./net/http-client.ts")), (m) => add(m.HttpClient, m.HttpClient.make)),
      // fetch's redirects to another host are judged by the same rules, as the fetch tool's own calls.
      "anvil/FetchHops": () =>
        Effect.flatMap(Effect.promise(() => import("./net/fetch-hops.ts")), (m) => {
          const permissions = Context.get(context as Context.Context<Permissions>, Permissions)
          const fetch = options.tools.find((t) => t.requires?.some((k) => k.key === m.FetchHops.key))
          return put(m.FetchHops, m.FetchHops.of({ judge: (url) => hopVerdict(fetch ? permissions.judge(fetch, { url }) : "ask") }))
        }),
      "anvil/GitFs": () => Effect.flatMap(Effect.promise(() => import("./git/git-fs.ts")), (m) => put(m.GitFs, m.GitFs.live)),
      "anvil/ProcessRunner": () => Effect.flatMap(Effect.promise(() => import("./process/process-runner.ts")), (m) => add(m.ProcessRunner, m.ProcessRunner.make)),
      "anvil/BackgroundShells": () =>
        Effect.flatMap(Effect.promise(() => import("./shell/background-shells.ts")), (m) => add(m.BackgroundShells, m.BackgroundShells.make(sessionInfo.interactive))),
      "anvil/BulkFs": () => Effect.flatMap(Effect.promise(() => import("./workspace/bulk-fs.ts")), (m) => put(m.BulkFs, m.BulkFs.live)),
      "anvil/Lsp": () => lsp!,
      "effect/process/ChildProcessSpawner": () =>
        Effect.flatMap(Effect.promise(() => import("./process/lazy-spawner.ts")), (m) => add(m.ChildProcessSpawner, m.makeLazySpawner)),
    }
    for (const [key, make] of Object.entries(optional)) if (uses(key)) yield* make()
    if (options.subagents) yield* addLayer(options.subagents)
    else yield* put(SubagentRunner, SubagentRunner.absent)
    // A tool that changes files may get its new LSP errors appended; read-only tools never need it.
    if (uses("anvil/AfterChange")) {
      yield* lsp
      yield* Effect.flatMap(Effect.promise(() => import("./tools/lsp-after-edit.ts")), (m) => add(AfterChange, m.makeLspAfterChange))
    }
    type Services = ToolServices | SubagentRunner
    const prepare = options.prepareTools
    // With `prepareTools` every service is made (see usedServices), the sandbox too.
    const tools = prepare && sandbox ? yield* Effect.promise(() => prepare({ root, config, tools: options.tools, sandbox: sandbox.service })) : options.tools
    // The loader (load_tools) joins every registry but that of a call of one named tool (see usedServices),
    // which cannot be asking for it: that call never evaluates its module.
    const registry =
      used !== "all" && tools.length === 1 && tools[0]!.name !== LOAD_TOOLS_NAME
        ? makeRegistry(tools)
        : (yield* Effect.promise(() => import("./tools/load_tools.ts"))).registryWithLoader(
            tools,
            options.toolSources,
            options.withheld,
            Context.get(context as Context.Context<Permissions>, Permissions).deniedOutright,
          )
    yield* add(ToolRunner, ToolRunner.make<Services>(registry))
    return context as Context.Context<ToolRunner | Services | AfterChange | FileSystem | Path>
  })

/**
 * The configuration in force: the project file's settings that need the user's trust (model servers, language-server
 * commands, loosening permission rules, …; see trust/project-settings.ts) are left out until trusted. The trust
 * module is loaded only for a project file that has such settings.
 */
export const trustedConfig = (config: ConfigShape, root: string): Effect.Effect<ConfigShape> =>
  projectMayNeedTrust(config.layers)
    ? Effect.flatMap(Effect.promise(() => import("./trust/project-settings.ts")), (m) => m.guardProjectConfig(config, root))
    : Effect.succeed(config)

/** load_tools' name (tools/load_tools.ts LOAD_TOOLS, not imported here so that a one-tool call does not load it). */
const LOAD_TOOLS_NAME = "load_tools"

/** {@link makeToolContext} as a layer. */
export const makeToolRuntime = (options: RuntimeOptions) => Layer.effectContext(makeToolContext(options))

/**
 * Which optional services a runtime builds: "all", or the keys the tools'
 * `requires` name, with the command sandbox for a tool that runs commands
 * confined and the after-change check for a tool that may change files.
 */
const usedServices = (options: RuntimeOptions): "all" | ReadonlySet<string> => {
  if (options.services !== "used" || options.prepareTools || (options.toolSources?.length ?? 0) > 0) return "all"
  const keys = new Set<string>()
  for (const tool of options.tools) {
    for (const key of tool.requires ?? []) keys.add(key.key)
    if (tool.sandboxedCall) keys.add("anvil/Sandbox")
    if (tool.readOnly !== true) keys.add("anvil/AfterChange")
  }
  return keys
}

/**
 * The `sandbox` section in force: the project's own widens it only once trusted (trust/project-sandbox.ts,
 * loaded only for a project file with a `sandbox` section).
 */
const projectSandboxOf = (config: ConfigShape, root: string, modeFlag: string | undefined): Effect.Effect<ProjectSandbox> =>
  config.layers.some((l) => l.source === "project file" && l.data.sandbox !== undefined)
    ? Effect.flatMap(Effect.promise(() => import("./trust/project-sandbox.ts")), (m) => m.resolveProjectSandbox(config, root, modeFlag))
    : Effect.succeed({ section: config.data.sandbox, ignored: [] })

/** The caller's `--add-dir` folders join the folders confined commands may write. */
const withAddDirs = (settings: SandboxSettings, addDirs: ReadonlyArray<string> | undefined): SandboxSettings =>
  addDirs && addDirs.length > 0 ? { ...settings, writable: [...settings.writable, ...addDirs] } : settings

/** anvil.json `sandbox` (and `--sandbox`), checked: a bad setting is a ConfigError. */
const sandboxSettingsOf = (project: ProjectSandbox, options: Pick<RuntimeOptions, "sandbox">, config: ConfigShape, root: string) =>
  Effect.try({
    try: (): SandboxSettings => ({
      ...withAddDirs(readSandboxSettings(project.section, options.sandbox?.modeFlag), options.sandbox?.addDirs),
      // What read may not open, commands do not read either, where the sandbox can hide it (permission/read-masks.ts).
      readMasks: readRuleMasks(config, root),
      ...(project.notice ? { projectIgnored: project.notice } : {}),
    }),
    catch: (e) => new ConfigError(e instanceof SandboxSettingsError ? `anvil.json: ${e.message}` : String(e)),
  })

/**
 * The session's command sandbox and its service key (its module imported only here); its temporary
 * folder and proxy go with the scope.
 */
const makeSandbox = (root: string, options: Pick<RuntimeOptions, "env" | "sandbox">, settings: SandboxSettings, sessionId: string, config: ConfigShape) =>
  Effect.flatMap(Effect.promise(() => Promise.all([import("./sandbox/sandbox.ts"), import("./llm/model-secrets.ts")])), ([{ Sandbox }, { modelSecrets }]) =>
    Sandbox.make({
      root,
      env: options.env,
      settings,
      sessionId,
      // The model's key is never passed to a command (sandbox/command-env.ts).
      modelSecrets: modelSecrets(config),
      ...(options.sandbox?.askHost
        ? {
            askHost: options.sandbox.askHost,
            // The user's own "always": the saved list stays in force when nothing of the project's was ignored before.
            saveHost: async (host: string) => {
              await import("./sandbox/save-host.ts").then((m) => m.saveNetworkHost(root, host))
              if (!settings.projectIgnored) await import("./trust/project-sandbox.ts").then((m) => m.retrustProjectSandbox(root, options.env))
            },
          }
        : {}),
    }).pipe(Effect.map((service) => ({ key: Sandbox, service }))),
  )

/**
 * The permission options, with the command sandbox when the tools run
 * commands: a confined call of an asking tool may then be allowed by
 * sandbox.auto_allow.
 */
const permissionsOptions = (options: RuntimeOptions, sandbox: SandboxShape | undefined, root: string): PermissionsOptions => {
  // A rule the user saved with "always" is their own decision: trusted, so the project file's copy applies later.
  const afterSave: PermissionsOptions["afterSave"] = (rules) =>
    Effect.flatMap(Effect.promise(() => import("./trust/project-settings.ts")), (m) => m.trustSavedRules(root, options.env, rules))
  // Without an onAsk the call's own command line is the answer (anvil tool): no time passes while "asking".
  const answersAtOnce = options.onAsk === undefined
  if (!sandbox) return { ...options.permissions, afterSave, answersAtOnce }
  const { status } = sandbox
  return {
    ...options.permissions,
    afterSave,
    answersAtOnce,
    // A getter: reading `confining` probes for bubblewrap, which only a command needs.
    sandbox: { get confining() { return status.confining }, autoAllow: status.settings.autoAllow },
  }
}

/** A permission decision on a redirect's host as fetch's engine takes it. */
const hopVerdict = (decision: PermissionDecision | "ask"): HopVerdict =>
  decision === "ask" ? { follow: false, asks: true } : decision.allowed ? { follow: true } : { follow: false, denied: decision.reason }
