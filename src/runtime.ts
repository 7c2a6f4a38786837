import { Effect, Layer } from "effect"
import { FileSystem } from "effect/FileSystem"
import { Path } from "effect/Path"
import type { ChildProcessSpawner } from "effect/process/ChildProcessSpawner"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import { Config, ConfigError, type ConfigData, type ConfigShape } from "./config/config.ts"
import { GitFs } from "./git/git-fs.ts"
import { Lsp } from "./lsp/service.ts"
import { HttpClient } from "./net/http-client.ts"
import { OutputSettings } from "./output/output-settings.ts"
import { RetentionLive, RetentionOnSpill } from "./output/retention.ts"
import { SpillStore } from "./output/spill-store.ts"
import { Permissions, type AskAnswer, type PermissionRequest, type PermissionsOptions } from "./permission/permissions.ts"
import { lazyChildProcessSpawner } from "./process/lazy-spawner.ts"
import { ProcessRunner } from "./process/process-runner.ts"
import { Sandbox, type SandboxOptions, type SandboxShape } from "./sandbox/sandbox.ts"
import { saveNetworkHost } from "./sandbox/save-host.ts"
import { readSandboxSettings, SandboxSettingsError } from "./sandbox/settings.ts"
import type { Tool } from "./tool-framework/definition.ts"
import type { ToolSource } from "./tool-framework/registry.ts"
import { ToolRunner } from "./tool-framework/runner.ts"
import { SessionInfo, type SessionInfoShape } from "./tool-framework/session.ts"
import { SubagentRunner } from "./tool-framework/subagent.ts"
import { registryWithLoader } from "./tools/load_tools.ts"
import { lspAfterChange } from "./tools/lsp-after-edit.ts"
import { UserTerminal } from "./terminal/user-terminal.ts"
import { FileLedger } from "./workspace/file-ledger.ts"
import { BulkFs } from "./workspace/bulk-fs.ts"
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

/** The platform: file system, paths and child processes from @effect/platform-node. */
export const PlatformLive = lazyChildProcessSpawner.pipe(
  Layer.provideMerge(Layer.mergeAll(NodeFileSystem.layer, NodePath.layer)),
)

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
}

/**
 * The whole wiring in one place: platform → config → workspace → output
 * (settings, spill store, retention) → permissions → the tool runner.
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
      const spill = onSpill ? RetentionOnSpill.pipe(Layer.provide(Layer.merge(store, output))) : store
      const sessionInfo = options.session ?? { id: "cli", interactive: false }
      const sandbox = sandboxLayer(root, options, sessionInfo.id).pipe(Layer.provide(config))
      const permissions = Layer.unwrap(
        Effect.gen(function* () {
          const { status } = yield* Sandbox
          return Permissions.layer(options.onAsk ?? (() => Effect.succeed(true)), {
            ...options.permissions,
            // A getter: reading `confining` probes for bubblewrap, which only a command needs.
            sandbox: { get confining() { return status.confining }, autoAllow: status.settings.autoAllow },
          })
        }),
      ).pipe(Layer.provide(Layer.mergeAll(config, workspace, sandbox)))
      const lsp = Layer.unwrap(
        Effect.gen(function* () {
          const section = (yield* Config).data.lsp
          const { display } = yield* Workspace
          return Lsp.layer({
            root,
            env: options.env,
            section: section === false ? false : section !== null && typeof section === "object" && !Array.isArray(section) ? (section as Record<string, unknown>) : {},
            display,
          })
        }),
      ).pipe(Layer.provide(Layer.merge(config, workspace)))
      const session = SessionInfo.layer(sessionInfo)
      const ledger = options.enforceReads ? FileLedger.enforcing : FileLedger.disabled
      const services = Layer.mergeAll(
        config,
        output,
        workspace,
        spill,
        permissions,
        session,
        ledger,
        onSpill ? Layer.empty : RetentionLive.pipe(Layer.provide(output)),
        HttpClient.layer,
        GitFs.layer,
        ProcessRunner.layer,
        BulkFs.layer,
        lsp,
        sandbox,
        options.terminal ?? UserTerminal.none,
      )
      const subagents = options.subagents ? options.subagents.pipe(Layer.provide(services)) : SubagentRunner.unavailable
      const afterChange = lspAfterChange.pipe(Layer.provide(Layer.mergeAll(services, PlatformLive)))
      const prepare = options.prepareTools
      const runner = prepare
        ? Layer.unwrap(
            Effect.gen(function* () {
              const config = yield* Config
              const sandbox = yield* Sandbox
              const tools = yield* Effect.promise(() => prepare({ root, config, tools: options.tools, sandbox }))
              return ToolRunner.layer<ToolServices>(registryWithLoader(tools, options.toolSources))
            }),
          )
        : ToolRunner.layer<ToolServices>(registryWithLoader(options.tools, options.toolSources))
      return runner.pipe(Layer.provideMerge(Layer.mergeAll(services, subagents, afterChange)))
    }),
  ).pipe(Layer.provideMerge(PlatformLive))

/** The session's command sandbox from anvil.json `sandbox` (and `--sandbox`); a bad setting is a ConfigError. */
export const sandboxLayer = (root: string, options: Pick<RuntimeOptions, "env" | "sandbox">, sessionId: string) =>
  Layer.unwrap(
    Effect.gen(function* () {
      const config = yield* Config
      const settings = yield* Effect.try({
        try: () => readSandboxSettings(config.data.sandbox, options.sandbox?.modeFlag),
        catch: (e) => new ConfigError(e instanceof SandboxSettingsError ? `anvil.json: ${e.message}` : String(e)),
      })
      return Sandbox.layer({
        root,
        env: options.env,
        settings,
        sessionId,
        ...(options.sandbox?.askHost ? { askHost: options.sandbox.askHost, saveHost: (host: string) => saveNetworkHost(root, host) } : {}),
      })
    }),
  )
