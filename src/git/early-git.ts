import { readFileSync, realpathSync } from "node:fs"
import { COUNT_ARGS, DEFAULT_LOG_LIMIT, MAX_LOG_LIMIT, diffArgs, gitCommand, gitSetup, logArgs, sameCommand, statusArgs, type GitCommand } from "./git-command.ts"
import { detectsCopies, detectsRenames, findRepository, repositorySettings, untrackedMode } from "./repository-place.ts"
import { isRecord } from "../protocol/is-record.ts"

/**
 * `anvil tool git_status|git_diff|git_log` starts the git it will run at the very beginning (src/main.ts),
 * from the command line alone, so that git works on another core while anvil loads its runtime. The git
 * service (git-cli.ts) takes such a process over only when the command it makes itself — program,
 * arguments, folder, environment — is the same (git-command.ts makes both); anything else, or a call that
 * never runs git (refused, another backend, a plugin's hooks first), leaves it to be killed and forgotten.
 * Only reads start early: status, diff, log and rev-list, with optional locks off (git-command.ts), so an
 * early git that is thrown away changed nothing.
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
 * The arguments of the git commands `anvil tool NAME [JSON]` will run, for the plain forms of the read-only
 * git tools; none for any other command line (flags, aliases, a path to resolve, parameters the tool will
 * refuse). A wrong guess costs a git process, never an answer: the service compares before it adopts.
 */
const plannedArgs = (argv: ReadonlyArray<string>, settings: () => ReadonlyMap<string, string>): ReadonlyArray<ReadonlyArray<string>> => {
  if (argv[0] !== "tool" || argv.length > 3) return []
  const params: unknown = argv[2] === undefined ? {} : JSON.parse(argv[2])
  if (!isRecord(params)) return []
  switch (argv[1]) {
    case "git_status":
      return onlyKeys(params, ["short"]) && maybeBoolean(params.short) ? [statusArgs(untrackedMode(settings()))] : []
    case "git_diff":
      return onlyKeys(params, ["staged"]) && maybeBoolean(params.staged) ? [diffArgs({ staged: params.staged === true, prefixes: [], renames: detectsRenames(settings(), "diff"), copies: detectsCopies(settings(), "diff") })] : []
    case "git_log": {
      const limit = params.limit ?? DEFAULT_LOG_LIMIT
      if (!onlyKeys(params, ["limit", "oneline"]) || !maybeBoolean(params.oneline) || !Number.isInteger(limit)) return []
      if ((limit as number) < 1 || (limit as number) > MAX_LOG_LIMIT) return []
      // The count is wanted when the history is longer than the limit, as most are.
      return [logArgs(limit as number), COUNT_ARGS]
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
): ReadonlyArray<GitCommand> => {
  // ANVIL_ROOT may move the working folder to the root it names: the plain case only.
  if (argv[0] !== "tool" || !argv[1]?.startsWith("git_") || env.ANVIL_ROOT !== undefined) return []
  try {
    const setup = gitSetup(env, "auto")
    const place = setup && findRepository(realpathSync(cwd))
    // GIT_DIR or GIT_WORK_TREE set: the tool decides whether it runs at all (git-dir-env.ts). Without a work tree
    // (a bare repository) only git_log runs.
    if (setup === undefined || place === undefined || place.brokenLink !== undefined || env.GIT_DIR || env.GIT_WORK_TREE) return []
    if (place.noWorkTree && argv[1] !== "git_log") return []
    const args = plannedArgs(argv, () => repositorySettings(place.commondir, env, readText))
    return args.map((a) => gitCommand(setup, place.dir, a))
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

/**
 * Starts the git commands of `argv` (see plannedGitCommands) with their output read into memory at once, so
 * a long diff never waits on a full pipe. Returns how many started, and a promise settled when they all
 * exited. Every one still waiting when the process exits is killed.
 */
export const startEarlyGit = (
  argv: ReadonlyArray<string>,
  cwd: string,
  env: Readonly<Record<string, string | undefined>>,
): { readonly started: number; readonly exited: Promise<unknown> } => {
  const outputs: Array<Promise<EarlyOutput>> = []
  for (const command of plannedGitCommands(argv, cwd, env)) {
    let child: Bun.Subprocess<"ignore", "pipe", "pipe">
    try {
      child = Bun.spawn([command.file, ...command.args], { cwd: command.cwd, env: { ...command.env }, detached: true, stdin: "ignore", stdout: "pipe", stderr: "pipe" })
    } catch {
      continue
    }
    const output = Promise.all([new Response(child.stdout).bytes(), new Response(child.stderr).bytes(), child.exited]).then(
      ([stdout, stderr]) => ({ stdout, stderr, exitCode: child.exitCode }),
      // Never rejects: whoever adopts it waits on it. A pipe that cannot be read is the run's failure.
      (e: unknown) => ({ stdout: new Uint8Array(0), stderr: new TextEncoder().encode(`its output could not be read (${String(e)})`), exitCode: null }),
    )
    pending.push({ command, output, kill: killGroup(child) })
    outputs.push(output)
  }
  if (outputs.length > 0 && !killedAtExit) {
    killedAtExit = true
    process.once("exit", discardEarlyGit)
  }
  return { started: outputs.length, exited: Promise.all(outputs) }
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
  for (const early of pending.splice(0)) early.kill()
}
