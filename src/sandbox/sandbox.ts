import { Context, Effect, Layer } from "effect"
import { existsSync, lstatSync, rmSync } from "node:fs"
import { join } from "node:path"
import type { SpawnCommand, SpawnWrap } from "../process/managed-process.ts"
import { bwrapArgs } from "./bwrap-args.ts"
import { diagnose, type SandboxRefusal } from "./diagnose.ts"
import { buildPolicy } from "./policy.ts"
import { SandboxUnavailableError, unavailableWarning, type CommandConfinement, type SandboxOptions, type SandboxShape, type SandboxStatus, type WrapRequest, type WrappedCommand } from "./sandbox-contract.ts"
import { forgetProbeIfFailed, probeSandbox, type SandboxSupport } from "./probe.ts"
import type { SandboxProxy } from "./proxy.ts"
import { abstractScopeAvailable, scopedCommand } from "./abstract-scope.ts"
import { RELAY_COMMAND } from "./relay-command.ts"
import { envFilter } from "./command-env.ts"
import { MARK_VAR } from "../process/process-table.ts"
import { prepareCage } from "../process/parked-cage.ts"
import { standInDir } from "../workspace/stand-in-records.ts"
import { standInLedger, type StandInLedger } from "./stand-in-ledger.ts"
import { selfCommand } from "../process/self-command.ts"
import { nestedGitWatch } from "./nested-git-watch.ts"
import { hostGate } from "./host-gate.ts"
import { removeMadePaths } from "./made-paths.ts"
import { sessionFolders } from "./session-folders.ts"

/** What anvil itself puts in a command's environment (its process mark, the caller's PATH): never withheld. */
const ANVIL_VARS = [MARK_VAR, "ANVIL_CALLER_PATH"]

const stillSocket = (path: string): boolean => lstatSync(path, { throwIfNoEntry: false })?.isSocket() === true

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
  let proxy: Promise<SandboxProxy> | undefined
  // Whether confined or not: the rule is about what the model's commands may learn, not about the OS sandbox.
  const filterEnv = envFilter({ allow: settings.allowEnv ?? [], deny: settings.denyEnv ?? [], model: options.modelSecrets })
  const { gate, refused } = hostGate(settings, options.askHost, options.saveHost)
  const { tmp, facts, stateFolder, commandFacts, overlay, next, close: closeFolders } = sessionFolders(options)
  const policy = (approved?: boolean) => (status.confining ? buildPolicy(settings, { ...commandFacts(), approved: approved === true }) : undefined)
  const nested = nestedGitWatch(() => facts().root, stateFolder)

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
      const excludeFile = p.gitExclude ? overlay("exclude", p.gitExclude.text) : undefined
      const redactedFiles = p.redacted.map((r) => overlay("redacted", r.text))
      if (p.mode === "workspace-write") nested.before(p)
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
      const drain = request.drainMs !== undefined ? { ms: request.drainMs, marker: join(temp, `.anvil-held-${process.pid}-${next()}`) } : undefined
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
              undone.push(...removeMadePaths(facts().root, p.mustStayAbsent), ...nested.after(p, rootGitMissing))
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
    await closeFolders()
  }
  const commandComing = () => {
    if (settings.maxProcesses > 0) prepareCage(settings.maxProcesses)
  }
  return { service: { status, policy, wrap, commandComing }, close }
}


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
