import { Effect, Layer } from "effect"
import type { FileSystem } from "effect/FileSystem"
import { Path } from "effect/Path"
import type { ChildProcessSpawner } from "effect/process/ChildProcessSpawner"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import { Config, ConfigError, type ConfigData, type ConfigShape } from "./config/config.ts"
import type { GitFs } from "./git/git-fs.ts"
import type { Lsp } from "./lsp/service.ts"
import type { HttpClient } from "./net/http-client.ts"
import { OutputSettings } from "./output/output-settings.ts"
import { SpillStore } from "./output/spill-store.ts"
import { Permissions, type AskAnswer, type PermissionRequest, type PermissionsOptions } from "./permission/permissions.ts"
import type { ProcessRunner } from "./process/process-runner.ts"
import type { Sandbox, SandboxOptions, SandboxShape } from "./sandbox/sandbox.ts"
import { readSandboxSettings, SandboxSettingsError } from "./sandbox/settings.ts"
import type { Tool } from "./tool-framework/definition.ts"
import type { ToolSource } from "./tool-framework/registry.ts"
import { ToolRunner } from "./tool-framework/runner.ts"
import { SessionInfo, type SessionInfoShape } from "./tool-framework/session.ts"
import { SubagentRunner } from "./tool-framework/subagent.ts"
import { registryWithLoader } from "./tools/load_tools.ts"
import { UserTerminal } from "./terminal/user-terminal.ts"
import { FileLedger } from "./workspace/file-ledger.ts"
import type { BulkFs } from "./workspace/bulk-fs.ts"
import { projectRootOf } from "./workspace/project-root.ts"
import { privateStateDir } from "./workspace/state-dir.ts"
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
  | GitFs
  | UserTerminal
  | SubagentRunner
  | ProcessRunner
  | BulkFs
  | Lsp
  | Sandbox

/**
 * A layer whose module is imported when the layer is built, not when this
 * file is: a call that does not use a service never evaluates its code.
 */
const lazyLayer = <A, E, R>(load: () => Promise<Layer.Layer<A, E, R>>): Layer.Layer<A, E, R> => Layer.unwrap(Effect.promise(load))

/** Files and paths from @effect/platform-node. */
export const FilesLive = Layer.merge(NodeFileSystem.layer, NodePath.layer)

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
  readonly sandbox?: { readonly modeFlag?: string | undefined; readonly askHost?: SandboxOptions["askHost"] }
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
 * imported only when the service is built (see {@link lazyLayer}).
 */
export const makeToolRuntime = (options: RuntimeOptions) =>
  Layer.unwrap(
    Effect.gen(function* () {
      const path = yield* Path
      const root = yield* projectRootOf(options.cwd, options.root ?? options.env.ANVIL_ROOT)
      const config = options.config
        ? Layer.succeed(Config, options.config)
        : Config.layer({ root, env: options.env, ...(options.configOverrides ? { overrides: options.configOverrides } : {}) })
      const output = OutputSettings.fromConfig(root).pipe(Layer.provide(config))
      const workspace = Layer.unwrap(
        Effect.gen(function* () {
          const settings = yield* OutputSettings
          const extra = (yield* Config).get("sandbox.allow", [] as ReadonlyArray<unknown>)
          return Workspace.layer({
            root,
            cwd: options.cwd,
            // The private state folder holds the spill files when `.anvil` cannot be used.
            extraAllowed: [
              settings.dir,
              privateStateDir(root, options.env),
              ...extra.filter((e): e is string => typeof e === "string").map((e) => path.resolve(root, e)),
            ],
            env: options.env,
          })
        }),
      ).pipe(Layer.provide(Layer.merge(output, config)))
      const store = SpillStore.layer.pipe(Layer.provide(output))
      const onSpill = options.retention === "on-spill"
      const spill = onSpill
        ? lazyLayer(() => import("./output/retention.ts").then((m) => m.RetentionOnSpill)).pipe(Layer.provide(Layer.merge(store, output)))
        : store
      const sessionInfo = options.session ?? { id: "cli", interactive: false }
      const used = usedServices(options)
      const uses = (key: string) => used === "all" || used.has(key)
      const sandbox = sandboxLayer(root, options, sessionInfo.id).pipe(Layer.provide(config))
      const permissions = permissionsLayer(options, uses("anvil/Sandbox") ? sandbox : undefined).pipe(Layer.provide(Layer.mergeAll(config, workspace)))
      const core = Layer.mergeAll(
        config,
        output,
        workspace,
        spill,
        permissions,
        SessionInfo.layer(sessionInfo),
        options.enforceReads ? FileLedger.enforcing : FileLedger.disabled,
        onSpill ? Layer.empty : lazyLayer(() => import("./output/retention.ts").then((m) => m.RetentionLive)).pipe(Layer.provide(output)),
      )
      const lsp = Layer.unwrap(
        Effect.gen(function* () {
          const section = (yield* Config).data.lsp
          const { display } = yield* Workspace
          const { Lsp } = yield* Effect.promise(() => import("./lsp/service.ts"))
          return Lsp.layer({
            root,
            env: options.env,
            section: section === false ? false : section !== null && typeof section === "object" && !Array.isArray(section) ? (section as Record<string, unknown>) : {},
            display,
          })
        }),
      ).pipe(Layer.provide(Layer.merge(config, workspace)))
      // Keyed by each service's `key`, which is what a tool's `requires` names.
      const optional = {
        "anvil/HttpClient": lazyLayer(() => import("./net/http-client.ts").then((m) => m.HttpClient.layer)),
        "anvil/GitFs": lazyLayer(() => import("./git/git-fs.ts").then((m) => m.GitFs.layer)),
        "anvil/ProcessRunner": lazyLayer(() => import("./process/process-runner.ts").then((m) => m.ProcessRunner.layer)),
        "anvil/BulkFs": lazyLayer(() => import("./workspace/bulk-fs.ts").then((m) => m.BulkFs.layer)),
        "anvil/Lsp": lsp,
        "anvil/Sandbox": sandbox,
        "effect/process/ChildProcessSpawner": SpawnerLive,
      }
      const all = Layer.mergeAll(core, ...Object.values(optional), options.terminal ?? UserTerminal.none)
      type Services = Layer.Success<typeof all>
      // Sound for "used": defineTool checked that the core and each tool's `requires` cover what its `run` needs.
      const services = (
        used === "all" ? all : Layer.mergeAll(core, options.terminal ?? UserTerminal.none, ...Object.entries(optional).filter(([key]) => used.has(key)).map(([, layer]) => layer))
      ) as typeof all
      const subagents = options.subagents ? options.subagents.pipe(Layer.provide(services)) : SubagentRunner.unavailable
      // A tool that changes files may get its new LSP errors appended; read-only tools never need it.
      const afterChange = uses("anvil/AfterChange")
        ? lazyLayer(() => import("./tools/lsp-after-edit.ts").then((m) => m.lspAfterChange)).pipe(Layer.provide(Layer.mergeAll(services, lsp, FilesLive)))
        : Layer.empty
      const prepare = options.prepareTools
      const runner = prepare
        ? Layer.unwrap(
            Effect.gen(function* () {
              const config = yield* Config
              const { Sandbox } = yield* Effect.promise(() => import("./sandbox/sandbox.ts"))
              const sandbox = yield* Sandbox
              const tools = yield* Effect.promise(() => prepare({ root, config, tools: options.tools, sandbox }))
              return ToolRunner.layer<Services>(registryWithLoader(tools, options.toolSources))
            }),
          )
        : ToolRunner.layer<Services>(registryWithLoader(options.tools, options.toolSources))
      return runner.pipe(Layer.provideMerge(Layer.mergeAll(services, subagents, afterChange)))
    }),
  ).pipe(Layer.provideMerge(FilesLive))

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

/** anvil.json `sandbox` (and `--sandbox`), checked: a bad setting is a ConfigError. */
const sandboxSettingsOf = (options: Pick<RuntimeOptions, "sandbox">) =>
  Effect.gen(function* () {
    const config = yield* Config
    return yield* Effect.try({
      try: () => readSandboxSettings(config.data.sandbox, options.sandbox?.modeFlag),
      catch: (e) => new ConfigError(e instanceof SandboxSettingsError ? `anvil.json: ${e.message}` : String(e)),
    })
  })

/**
 * Permissions, with the command sandbox when the tools run commands (a
 * confined call of an asking tool may then be allowed by sandbox.auto_allow);
 * the sandbox settings are checked either way.
 */
const permissionsLayer = <R>(options: RuntimeOptions, sandbox: Layer.Layer<Sandbox, ConfigError, R> | undefined) => {
  const onAsk = options.onAsk ?? (() => Effect.succeed(true))
  if (!sandbox) return Layer.unwrap(sandboxSettingsOf(options).pipe(Effect.as(Permissions.layer(onAsk, { ...options.permissions }))))
  return Layer.unwrap(
    Effect.gen(function* () {
      const { Sandbox } = yield* Effect.promise(() => import("./sandbox/sandbox.ts"))
      const { status } = yield* Sandbox
      return Permissions.layer(onAsk, {
        ...options.permissions,
        // A getter: reading `confining` probes for bubblewrap, which only a command needs.
        sandbox: { get confining() { return status.confining }, autoAllow: status.settings.autoAllow },
      })
    }),
  ).pipe(Layer.provide(sandbox))
}

/** The session's command sandbox from anvil.json `sandbox` (and `--sandbox`); a bad setting is a ConfigError. */
export const sandboxLayer = (root: string, options: Pick<RuntimeOptions, "env" | "sandbox">, sessionId: string) =>
  Layer.unwrap(
    Effect.gen(function* () {
      const settings = yield* sandboxSettingsOf(options)
      const { Sandbox } = yield* Effect.promise(() => import("./sandbox/sandbox.ts"))
      return Sandbox.layer({
        root,
        env: options.env,
        settings,
        sessionId,
        ...(options.sandbox?.askHost
          ? { askHost: options.sandbox.askHost, saveHost: (host: string) => import("./sandbox/save-host.ts").then((m) => m.saveNetworkHost(root, host)) }
          : {}),
      })
    }),
  )
