import { readFileSync, realpathSync } from "node:fs"
import { COUNT_ARGS, DEFAULT_LOG_LIMIT, MAX_LOG_LIMIT, diffArgs, gitCommand, gitSetup, logArgs, sameCommand, statusArgs, type GitCommand } from "./git-command.ts"
import { detectsRenames, findRepository, repositorySettings, untrackedMode } from "./repository-place.ts"
import { isRecord } from "../protocol/is-record.ts"

/**
 * `anvil tool git_status|git_diff|git_log` starts the git it will run at the very beginning (src/main.ts),
 * from the command line alone, so that git works on another core while anvil loads its runtime. The git
 * service (git-cli.ts) takes such a process over only when the command it makes itself — program,
 * arguments, folder, environment — is the same (git-command.ts makes both); anything else, or a call that
 * never runs git (refused, another backend, a plugin's hooks first), leaves it to be killed and forgotten.
 * Only reads start early: status, diff, log and rev-list, with optional locks off (git-command.ts), so an
 * early git that is thrown away changed nothing. The log's count (rev-list) starts only once the log has shown
 * the history is longer than the limit: a shorter one never needs it.
 */

/** What one git command printed and how it exited. */
export interface EarlyOutput {
  readonly stdout: Uint8Array
  readonly stderr: Uint8Array
  readonly exitCode: number | null
}

/** An early git taken over: its output once it exited, and how to end it. */
export interface AdoptedGit {
  readonly output: Promise<EarlyOutput>
  readonly kill: () => void
}

interface EarlyGit extends AdoptedGit {
  readonly command: GitCommand
}

/** Started and not yet taken over or killed. */
const pending: Array<EarlyGit> = []
let killedAtExit = false

/** Whether `params` has no other keys than `keys`. */
const onlyKeys = (params: Record<string, unknown>, keys: ReadonlyArray<string>) => Object.keys(params).every((k) => keys.includes(k))

const maybeBoolean = (v: unknown) => v === undefined || typeof v === "boolean"

/**
 * A git command planned to start early, and when it starts: at once, or (`after`) once the command before it
 * exited and its output says the tool will run this one too.
 */
export interface PlannedGit extends GitCommand {
  readonly after?: (before: EarlyOutput) => boolean
}

/** Planned arguments, with the condition of a command that waits for the one before it (see PlannedGit). */
type PlannedArgs = { readonly args: ReadonlyArray<string>; readonly after?: (before: EarlyOutput) => boolean }

/** How many records git printed with `-z` (NUL-separated, the last NUL optional), as the log's reader splits them. */
const recordCount = (bytes: Uint8Array): number => {
  let n = 0
  for (const b of bytes) if (b === 0) n++
  return bytes.length > 0 && bytes[bytes.length - 1] !== 0 ? n + 1 : n
}

/**
 * The arguments of the git commands `anvil tool NAME [JSON]` will run, for the plain forms of the read-only
 * git tools; none for any other command line (flags, aliases, a path to resolve, parameters the tool will
 * refuse). A wrong guess costs a git process, never an answer: the service compares before it adopts.
 */
const plannedArgs = (argv: ReadonlyArray<string>, settings: () => ReadonlyMap<string, string>): ReadonlyArray<PlannedArgs> => {
  if (argv[0] !== "tool" || argv.length > 3) return []
  const params: unknown = argv[2] === undefined ? {} : JSON.parse(argv[2])
  if (!isRecord(params)) return []
  switch (argv[1]) {
    case "git_status":
      return onlyKeys(params, ["short"]) && maybeBoolean(params.short) ? [{ args: statusArgs(untrackedMode(settings())) }] : []
    case "git_diff":
      return onlyKeys(params, ["staged"]) && maybeBoolean(params.staged) ? [{ args: diffArgs({ staged: params.staged === true, prefixes: [], renames: detectsRenames(settings(), "diff") }) }] : []
    case "git_log": {
      const limit = params.limit ?? DEFAULT_LOG_LIMIT
      if (!onlyKeys(params, ["limit", "oneline"]) || !maybeBoolean(params.oneline) || !Number.isInteger(limit)) return []
      if ((limit as number) < 1 || (limit as number) > MAX_LOG_LIMIT) return []
      // The count is wanted only when the log shows the history is longer than the limit (cli-backend.ts asks for it
      // then): started when the log has exited and printed more commits than the limit, still while anvil loads.
      const cut = (log: EarlyOutput) => log.exitCode === 0 && recordCount(log.stdout) > (limit as number)
      return [{ args: logArgs(limit as number) }, { args: COUNT_ARGS, after: cut }]
    }
    default:
      return []
  }
}

const readText = (path: string): string | undefined => {
  try {
    return readFileSync(path, "utf8")
  } catch {
    return undefined
  }
}

/** The git commands the command line `argv` (the words after `anvil`) will run in `cwd`; none when unsure. */
export const plannedGitCommands = (
  argv: ReadonlyArray<string>,
  cwd: string,
  env: Readonly<Record<string, string | undefined>>,
): ReadonlyArray<PlannedGit> => {
  // ANVIL_ROOT may move the working folder to the root it names: the plain case only.
  if (argv[0] !== "tool" || !argv[1]?.startsWith("git_") || env.ANVIL_ROOT !== undefined) return []
  try {
    const setup = gitSetup(env, "auto")
    const place = setup && findRepository(realpathSync(cwd))
    if (setup === undefined || place === undefined || place.brokenLink !== undefined) return []
    const args = plannedArgs(argv, () => repositorySettings(place.commondir, env, readText))
    return args.map((a) => ({ ...gitCommand(setup, place.dir, a.args), ...(a.after ? { after: a.after } : {}) }))
  } catch {
    return []
  }
}

/** Ends an early git's process group (it leads one, as every process anvil starts). */
const killGroup = (child: Bun.Subprocess) => () => {
  if (child.exitCode !== null || child.signalCode !== null) return
  try {
    process.kill(-child.pid, "SIGKILL")
  } catch {
    // already gone
  }
}

/** Starts one early git with its output read into memory at once (a long diff never waits on a full pipe). */
const spawnEarly = (command: GitCommand): Promise<EarlyOutput> | undefined => {
  let child: Bun.Subprocess<"ignore", "pipe", "pipe">
  try {
    child = Bun.spawn([command.file, ...command.args], { cwd: command.cwd, env: { ...command.env }, detached: true, stdin: "ignore", stdout: "pipe", stderr: "pipe" })
  } catch {
    return undefined
  }
  const output = Promise.all([new Response(child.stdout).bytes(), new Response(child.stderr).bytes(), child.exited]).then(
    ([stdout, stderr]) => ({ stdout, stderr, exitCode: child.exitCode }),
    // Never rejects: whoever adopts it waits on it. A pipe that cannot be read is the run's failure.
    (e: unknown) => ({ stdout: new Uint8Array(0), stderr: new TextEncoder().encode(`its output could not be read (${String(e)})`), exitCode: null }),
  )
  pending.push({ command, output, kill: killGroup(child) })
  return output
}

/** Counts discards: a command waiting for the one before it starts only if none came in between. */
let discards = 0

/**
 * Starts the git commands of `argv` (see plannedGitCommands): those that start at once now, one that waits
 * for the command before it when that one has exited and its output asks for it. Returns how many started at
 * once, and a promise settled when every one started (a waiting one included) exited. Every one still waiting
 * when the process exits is killed.
 */
export const startEarlyGit = (
  argv: ReadonlyArray<string>,
  cwd: string,
  env: Readonly<Record<string, string | undefined>>,
): { readonly started: number; readonly exited: Promise<unknown> } => {
  const outputs: Array<Promise<unknown>> = []
  let started = 0
  let previous: Promise<EarlyOutput | undefined> = Promise.resolve(undefined)
  for (const { after, ...command } of plannedGitCommands(argv, cwd, env)) {
    let output: Promise<EarlyOutput | undefined>
    if (after === undefined) {
      output = spawnEarly(command) ?? Promise.resolve(undefined)
      started++
    } else {
      const generation = discards
      // Chained on the output before the service's own wait on it (registered first, it runs first): started and
      // waiting before the service, having read that output, asks for this command.
      output = previous.then((before) => (before !== undefined && generation === discards && after(before) ? spawnEarly(command) : undefined))
    }
    outputs.push(output)
    previous = output
  }
  if (outputs.length > 0 && !killedAtExit) {
    killedAtExit = true
    process.once("exit", discardEarlyGit)
  }
  return { started, exited: Promise.all(outputs) }
}

/** How many early gits are started and not yet taken over or killed. */
export const waitingEarlyGit = (): number => pending.length

/**
 * The early git started for exactly `command`, taken over (it is the caller's from now on), or undefined. A
 * command that was not planned means the plan was wrong: every early git still waiting is killed.
 */
export const adoptEarlyGit = (command: GitCommand): AdoptedGit | undefined => {
  if (pending.length === 0) return undefined
  const at = pending.findIndex((early) => sameCommand(early.command, command))
  if (at === -1) {
    discardEarlyGit()
    return undefined
  }
  return pending.splice(at, 1)[0]
}

/** Kills every early git not taken over (the call went another way, or is over). */
export const discardEarlyGit = (): void => {
  discards++
  for (const early of pending.splice(0)) early.kill()
}
