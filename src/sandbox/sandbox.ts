import { Context, Data, Effect, Layer } from "effect"
import { existsSync, lstatSync, mkdirSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import type { SpawnCommand, SpawnWrap } from "../process/managed-process.ts"
import { bwrapArgs } from "./bwrap-args.ts"
import { diagnose, type SandboxRefusal } from "./diagnose.ts"
import { buildPolicy, classifyPath, mayKeepState, showPath, type SandboxFacts, type SandboxPolicy } from "./policy.ts"
import { forgetProbeIfFailed, probeSandbox, type SandboxSupport } from "./probe.ts"
import type { SandboxProxy } from "./proxy.ts"
import { abstractScopeAvailable, scopedCommand } from "./abstract-scope.ts"
import { RELAY_COMMAND } from "./relay-command.ts"
import { envFilter, type ModelSecrets } from "./command-env.ts"
import { MARK_VAR } from "../process/process-table.ts"
import { prepareCage } from "../process/parked-cage.ts"
import { hostAllowed, type SandboxSettings } from "./settings.ts"
import { privateStateDir, xdgConfigHome } from "../workspace/state-dir.ts"
import { standInDir } from "../workspace/stand-in-records.ts"
import { standInLedger, type StandInLedger } from "./stand-in-ledger.ts"
import { selfCommand } from "../process/self-command.ts"
import { listeningSockets } from "./unix-sockets.ts"
import { snapshotNestedGit, undoNestedGit, type NestedGitSnapshot } from "./nested-git.ts"
import { nestedGitFile, nestedGitStore, type NestedGitStore } from "./nested-git-store.ts"
import { makeRunFolder, sweepStaleRunFolders } from "./run-folders.ts"

/** What the command sandbox does in this session. */
export interface SandboxStatus {
  readonly settings: SandboxSettings
  readonly support: SandboxSupport
  /** Commands run confined (a mode other than off, and the machine allows it). */
  readonly confining: boolean
  /** Set when a mode other than off was asked for and the sandbox cannot run: what, and how to fix it. */
  readonly warning?: string
}

/**
 * A confined command could not be run as the settings ask, with why and the user's next step. `machine`: the sandbox
 * is required (`sandbox.require`) and cannot run here, or anvil's network proxy did not start. `rules`: the `read`
 * rules cannot be kept by hiding places (policy.ts masksRefused), so the command is not run at all rather than with
 * some of them readable.
 */
export class SandboxUnavailableError extends Data.TaggedError("SandboxUnavailableError")<{
  readonly message: string
  readonly refusedBy: "machine" | "rules"
  readonly nextStep: string
}> {}

/** A command about to run, and whether it asked to leave the sandbox (bash `sandbox: false`, approved by a person). */
export interface WrapRequest {
  /** The working directory the command runs in. */
  readonly cwd: string
  readonly unconfined?: boolean
  /** The command line, for naming a covered socket it used when its error does not. */
  readonly command?: string | undefined
  /**
   * How long what the command leaves in the background may keep its output open once it exited, as the runner waits
   * unconfined (see drain-init.ts); without it the sandbox ends them with the command.
   */
  readonly drainMs?: number
  /**
   * The command itself went through the permission flow (a bash call: a person, --yes, an --allow or allow rule
   * approved it), so `read` asking about every file does not stop it (rule-masks.ts). Others (verify, hooks) are refused.
   */
  readonly approved?: boolean
}

/** How the command will run, and what to do once it ended. */
export interface WrappedCommand {
  /** The process runner's spawn hook that puts the command inside bubblewrap; undefined when it runs as it is. */
  readonly wrap?: SpawnWrap
  readonly confined: boolean
  /** The environment variables withheld from the command (secrets, see command-env.ts), once it started. */
  readonly envWithheld: () => ReadonlyArray<string>
  /** After the run: background processes kept the output open past drainMs and the sandbox ended them (see WrapRequest.drainMs). */
  readonly heldOpen: () => boolean
  /** Removes stand-ins and reads the output for what the sandbox refused. Call once, after the run. */
  readonly finish: (output: string) => Effect.Effect<ReadonlyArray<SandboxRefusal>>
}

export interface SandboxShape {
  readonly status: SandboxStatus
  /** The mounts a command would get now, approved as bash's are or not (undefined when commands are not confined). */
  readonly policy: (approved?: boolean) => SandboxPolicy | undefined
  /** Puts one command inside the sandbox (the one step between a command and the process runner). */
  readonly wrap: (request: WrapRequest) => Effect.Effect<WrappedCommand, SandboxUnavailableError>
  /**
   * A command may come soon (the model, which may call bash, is answering): its cage is made now, off its path
   * (process/parked-cage.ts), not while the session starts, where it delayed the first request.
   */
  readonly commandComing: () => void
}

export interface SandboxOptions {
  readonly root: string
  readonly env: Readonly<Record<string, string | undefined>>
  readonly settings: SandboxSettings
  readonly sessionId: string
  /**
   * Asked when the proxy meets a host outside sandbox.network (chat): "once"
   * allows it for this session, "always" also saves it. Without it such hosts
   * are refused.
   */
  readonly askHost?: (host: string) => Promise<"once" | "always" | "deny">
  /** Saves an "always" host to the project's sandbox.network. */
  readonly saveHost?: (host: string) => Promise<void>
  /** The program line that starts anvil itself (for the relay inside the sandbox). */
  readonly self?: ReadonlyArray<string>
  /** The credentials anvil reaches its model with: never passed to a command, whatever sandbox.allow_env says. */
  readonly modelSecrets?: ModelSecrets
}

/** What anvil itself puts in a command's environment (its process mark, the caller's PATH): never withheld. */
const ANVIL_VARS = [MARK_VAR, "ANVIL_CALLER_PATH"]

/** The one-line warning for a sandbox that cannot run. */
export const unavailableWarning = (support: SandboxSupport): string | undefined =>
  support.available ? undefined : `the command sandbox is not available: ${support.reason}; commands run unconfined and ask for approval as usual. To fix: ${support.fix}`

const stillSocket = (path: string): boolean => lstatSync(path, { throwIfNoEntry: false })?.isSocket() === true

/** Removes `path` if the command made it; true when there was something to remove. */
const removeMade = (path: string): boolean => {
  try {
    lstatSync(path)
  } catch {
    return false
  }
  rmSync(path, { recursive: true, force: true })
  return true
}

const madeRefusal = (root: string, path: string): SandboxRefusal => {
  const shown = showPath(root, path)
  return {
    kind: "protected",
    subject: shown,
    message: `The sandbox removed ${shown}, which the command made: it would point git at other config and hooks, which run code later. Run this one command with sandbox: false (the user is asked) if it is really wanted.`,
  }
}

export const makeSandbox = (options: SandboxOptions): { service: SandboxShape; close: () => Promise<void> } => {
  const { settings } = options
  // Probed on first use, not when the session starts: the probe starts bubblewrap (about 10 ms of
  // CPU), which a call that runs no command (`anvil tool read`) should not pay.
  let probed: SandboxSupport | undefined
  // Made with the first confined command (it sweeps what a killed anvil left in the project).
  let ledgerMade: StandInLedger | undefined
  const ledger = () => (ledgerMade ??= standInLedger(standInDir(options.root, options.env)))
  const probe = (): SandboxSupport =>
    (probed ??= settings.mode === "off" ? { available: false, reason: "sandbox.mode is off", fix: "" } : probeSandbox(options.env))
  const status: SandboxStatus = {
    settings,
    get support() {
      return probe()
    },
    get confining() {
      return settings.mode !== "off" && probe().available
    },
    get warning() {
      return settings.mode !== "off" ? unavailableWarning(probe()) : undefined
    },
  }
  const home = options.env.HOME
  let sessionTmp: string | undefined
  let sweeping: Promise<number> | undefined
  let overlays: string | undefined
  let overlayCount = 0
  let proxy: Promise<SandboxProxy> | undefined
  // Whether confined or not: the rule is about what the model's commands may learn, not about the OS sandbox.
  const filterEnv = envFilter({ allow: settings.allowEnv ?? [], deny: settings.denyEnv ?? [], model: options.modelSecrets })
  const approvedHosts: Array<string> = []
  const refused: Array<string> = []
  const asking = new Map<string, Promise<boolean>>()

  const tmp = (): string => {
    if (sessionTmp === undefined) {
      const safe = options.sessionId.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 40)
      sessionTmp = realpathSync(makeRunFolder(safe))
      // What killed anvils left in /tmp goes now, beside this session's first command (not at every start).
      sweeping = sweepStaleRunFolders()
    }
    return sessionTmp
  }
  const facts = (): SandboxFacts => ({
    root: realpathSync(options.root),
    home: home ? (() => { try { return realpathSync(home) } catch { return home } })() : undefined,
    configHome: xdgConfigHome(options.env),
    sessionTmp: tmp(),
  })
  // The project's private state folder (real path), made once; undefined where it cannot be.
  let stateDir: string | undefined | null = null
  const stateFolder = (): string | undefined => {
    if (stateDir === null) {
      const dir = privateStateDir(options.root, options.env)
      try {
        mkdirSync(dir, { recursive: true, mode: 0o700 })
        stateDir = realpathSync(dir)
      } catch {
        stateDir = undefined // every walk reads the whole tree
      }
    }
    return stateDir
  }
  // The sockets outside are looked up for each command's mounts only (a server may have started since).
  const commandFacts = (): SandboxFacts => {
    const state = stateFolder()
    return { ...facts(), sockets: listeningSockets(), env: options.env, ...(state !== undefined ? { stateDir: state } : {}) }
  }
  const policy = (approved?: boolean) => (status.confining ? buildPolicy(settings, { ...commandFacts(), approved: approved === true }) : undefined)
  // The nested git repositories as the last confined command left them (taken before the first one).
  let nestedGit: NestedGitSnapshot | undefined
  let nestedChecks = 0
  // Where the walk's folders are kept for the next anvil process; undefined where commands could write it.
  let nestedStore: NestedGitStore | undefined
  // The snapshot's folders differ from what the store holds.
  let nestedUnsaved = false
  const takeNestedGit = (p: SandboxPolicy): NestedGitSnapshot => {
    if (nestedGit) return nestedGit
    const real = stateFolder()
    const root = facts().root
    nestedStore = real !== undefined && mayKeepState(real, root, p.writable) ? nestedGitStore(nestedGitFile(real), root) : undefined
    const snapshot = snapshotNestedGit(facts().root, true, nestedStore?.load())
    nestedUnsaved = snapshot.read > 0
    return snapshot
  }

  const gate = async (host: string): Promise<boolean> => {
    const hosts = settings.network.kind === "hosts" ? settings.network.hosts : []
    if (hostAllowed(hosts, host) || hostAllowed(approvedHosts, host)) return true
    if (options.askHost) {
      let pending = asking.get(host)
      if (!pending) {
        pending = options.askHost(host).then(async (answer) => {
          if (answer === "deny") return false
          approvedHosts.push(host)
          if (answer === "always") await options.saveHost?.(host).catch(() => undefined)
          return true
        })
        asking.set(host, pending)
        void pending.finally(() => asking.delete(host))
      }
      if (await pending) return true
    }
    refused.push(host)
    return false
  }

  const wrap = (request: WrapRequest): Effect.Effect<WrappedCommand, SandboxUnavailableError> =>
    Effect.gen(function* () {
      // Unconfined, the process limit still holds: a cgroup where anvil can make one, else the user's RLIMIT_NPROC (process/).
      const max = settings.maxProcesses
      let withheld: ReadonlyArray<string> = []
      const filtered = (env: Readonly<Record<string, string>>) => {
        const f = filterEnv(env, ANVIL_VARS)
        withheld = f.withheld
        return f.env
      }
      const envWithheld = () => withheld
      const plain: WrappedCommand = {
        confined: false,
        wrap: (c: SpawnCommand) => ({ ...c, env: filtered(c.env), ...(max > 0 ? { maxProcesses: max } : {}) }),
        envWithheld,
        heldOpen: () => false,
        finish: () => Effect.succeed([]),
      }
      if (settings.mode === "off" || request.unconfined) return plain
      const support = probe()
      if (!support.available) {
        if (settings.require) {
          return yield* new SandboxUnavailableError({
            refusedBy: "machine",
            message: `${status.warning} (sandbox.require is on, so the command was not run)`,
            nextStep: "Install bubblewrap, or set sandbox.require to false in anvil.json to run commands unconfined.",
          })
        }
        return plain
      }
      const temp = tmp()
      let socketPath: string | undefined
      if (settings.network.kind === "hosts") {
        // Imported when first needed: node:net costs every session's start-up otherwise.
        if (!proxy) proxy = import("./proxy.ts").then(({ startProxy }) => startProxy(join(temp, "proxy.sock"), gate))
        const running = yield* Effect.promise(() => proxy!.then((x) => x as SandboxProxy | Error, (e: Error) => e))
        if (running instanceof Error) {
          return yield* new SandboxUnavailableError({
            refusedBy: "machine",
            message: `anvil's network proxy could not start: ${running.message}`,
            nextStep: `Check that anvil may make a Unix socket in its temporary folder (${temp}), or set sandbox.network to "off" or "on" in anvil.json (no proxy).`,
          })
        }
        socketPath = running.socketPath
      }
      // Built under the ledger's lock, with the stand-ins placed and recorded: another command of this
      // or another anvil cannot take away a mount point this one's bubblewrap still needs.
      const held = ledger().hold(() => buildPolicy(settings, { ...commandFacts(), approved: request.approved === true })!)
      const p = held.value
      // Fail closed: hiding only the first places a walk reached would let a command that makes many decoys (or
      // 50,000 files) read the rest.
      if (p.masksRefused !== undefined) {
        held.release()
        return yield* new SandboxUnavailableError({ refusedBy: "rules", ...p.masksRefused })
      }
      // Outside the session folder, which the command may write: only what anvil wrote is laid over info/exclude.
      const overlay = (name: string, text: string) => {
        const file = join((overlays ??= makeRunFolder("overlay")), `${name}-${++overlayCount}`)
        writeFileSync(file, text, { mode: 0o600 })
        return file
      }
      const excludeFile = p.gitExclude ? overlay("exclude", p.gitExclude.text) : undefined
      const redactedFiles = p.redacted.map((r) => overlay("redacted", r.text))
      if (p.mode === "workspace-write") nestedGit = takeNestedGit(p)
      // A project that is no git repository yet has no .git for the mounts to protect: one the command makes is checked after it.
      const rootGitMissing = !existsSync(join(facts().root, ".git"))
      const hosts = settings.network.kind === "hosts" ? settings.network.hosts : []
      const self = options.self ?? selfCommand()
      const bwrap = support.bwrap
      const scoped = settings.network.kind === "on" && abstractScopeAvailable()
      const root = process.getuid?.() === 0
      // RLIMIT_NPROC counts the processes of one user in one user namespace, so inside the sandbox's own it
      // limits this command's tree alone; the kernel does not apply it to root (a cgroup does that, if any).
      const nproc = max > 0 && !root && support.prlimit !== undefined ? { prlimit: support.prlimit, max } : undefined
      // In the session folder, which the command may write: one it makes itself only adds the answer's note.
      const drain = request.drainMs !== undefined ? { ms: request.drainMs, marker: join(temp, `.anvil-held-${process.pid}-${++overlayCount}`) } : undefined
      const wrapHook: SpawnWrap = (command: SpawnCommand) => {
        const [file, ...args] = command.argv
        // With a host list the relay goes first: it forwards 127.0.0.1 to the proxy's socket, then runs the command.
        // With the machine's network, anvil first takes the command out of reach of abstract sockets bound outside.
        const inner = socketPath !== undefined
          ? { file: self[0]!, args: [...self.slice(1), RELAY_COMMAND, socketPath, hosts.join(","), file!, ...args] }
          : scoped ? scopedCommand(self, file!, args) : { file: file!, args }
        // bubblewrap cannot lay a file over a socket that is gone (it would have to make one where nothing may be
        // written, and fails): looked at again at the last moment, when a server that stopped meanwhile has removed it.
        const policy = { ...p, hiddenSockets: p.hiddenSockets.filter(stillSocket) }
        return {
          argv: [bwrap, ...bwrapArgs({ policy, ...(excludeFile ? { gitExcludeFile: excludeFile } : {}), redactedFiles, ...(nproc ? { nproc } : {}), ...(drain ? { drain } : {}), shareNet: settings.network.kind === "on", root, cwd: command.cwd, ...inner })],
          cwd: command.cwd,
          env: { ...filtered(command.env), TMPDIR: temp, TMP: temp, TEMP: temp, TEMPDIR: temp },
          // --die-with-parent in its own PID namespace (bwrap-args.ts): nothing of it outlives it or anvil.
          contained: true,
          ...(max > 0 ? { maxProcesses: max } : {}),
        }
      }
      const refusedBefore = refused.length
      let finished = false
      let wasHeld = false
      // Kept for every call of finish (the runner calls it once to clean up, bash again with the output).
      const undone: Array<SandboxRefusal> = []
      return {
        confined: true,
        wrap: wrapHook,
        envWithheld,
        // Read (and the marker removed) by finish, which runs however the run ended.
        heldOpen: () => wasHeld,
        finish: (output: string) =>
          Effect.sync(() => {
            if (!finished) {
              finished = true
              held.release()
              if (drain) {
                wasHeld = existsSync(drain.marker)
                rmSync(drain.marker, { force: true })
              }
              for (const file of [...(excludeFile ? [excludeFile] : []), ...redactedFiles]) rmSync(file, { force: true })
              // Nothing of the command runs any more (its PID namespace ended with it): what it made here goes.
              for (const path of p.mustStayAbsent) if (removeMade(path)) undone.push(madeRefusal(facts().root, path))
              if (nestedGit) {
                const checked = undoNestedGit(facts().root, nestedGit, nestedChecks++ === 0, (path) => classifyPath(p, path) === "writable", undefined, rootGitMissing)
                nestedGit = checked.after
                undone.push(...checked.refusals)
                if (nestedUnsaved || nestedGit.read > 0) nestedStore?.save(nestedGit)
                nestedUnsaved = false
              }
            }
            forgetProbeIfFailed(options.env, output)
            return [...undone, ...diagnose({
              policy: p,
              network: settings.network,
              root: facts().root,
              cwd: request.cwd,
              home,
              output,
              ...(request.command !== undefined ? { command: request.command } : {}),
              refusedHosts: [...new Set(refused.slice(refusedBefore))],
            })]
          }),
      } satisfies WrappedCommand
    })

  const close = async () => {
    if (proxy) await proxy.then((x) => x.close()).catch(() => undefined)
    if (sessionTmp) rmSync(sessionTmp, { recursive: true, force: true })
    // Usually done while the command ran; a one-shot anvil would otherwise exit in the middle of it.
    await sweeping?.catch(() => undefined)
    if (overlays) rmSync(overlays, { recursive: true, force: true })
  }
  const commandComing = () => {
    if (settings.maxProcesses > 0) prepareCage(settings.maxProcesses)
  }
  return { service: { status, policy, wrap, commandComing }, close }
}

/**
 * Confines one command that is not a bash call (a repository's command hook):
 * the spawn hook to start it with, and what to call once it ended. Rejects
 * when the sandbox is required and cannot run.
 */
export type CommandConfinement = (cwd: string) => Promise<{ readonly wrap?: SpawnWrap; readonly finish: () => Promise<void> }>

/** A confinement backed by a session's sandbox, which may still be starting (plugins load before the tool runtime). */
export const confinementOf = (sandbox: Promise<SandboxShape> | SandboxShape): CommandConfinement => async (cwd) => {
  const wrapped = await Effect.runPromise((await sandbox).wrap({ cwd }))
  return { ...(wrapped.wrap ? { wrap: wrapped.wrap } : {}), finish: () => Effect.runPromise(wrapped.finish("")).then(() => undefined) }
}

/** The command sandbox of a session (README, "The command sandbox", says what it confines). */
export class Sandbox extends Context.Service<Sandbox, SandboxShape>()("anvil/Sandbox") {
  /** A sandbox for the session; its temporary folder and proxy go when the scope closes. */
  static make = (options: SandboxOptions) =>
    Effect.acquireRelease(
      Effect.sync(() => makeSandbox(options)),
      (s) => Effect.promise(() => s.close()),
    ).pipe(Effect.map((s) => s.service))

  /** {@link Sandbox.make} as a layer. */
  static layer = (options: SandboxOptions) => Layer.effect(Sandbox, Sandbox.make(options))

  /** Commands run as they are (tests of other things, and mode off). */
  static off = Layer.succeed(Sandbox, makeSandbox({ root: "/", env: {}, sessionId: "off", settings: { mode: "off", require: false, writable: [], protected: [], denyRead: [], allowRead: [], allowEnv: [], denyEnv: [], maxProcesses: 0, network: { kind: "off" }, autoAllow: false } }).service)
}
