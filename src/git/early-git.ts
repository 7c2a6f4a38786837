import { gitCommand, gitSetup, sameCommand, type GitCommand } from "./git-command.ts"
import { plannedArgs } from "./early-args.ts"

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

/**
 * The git commands of `argv` when they can be told without reading a file: the unstaged diff and the log,
 * whose arguments no git config changes, run from `cwd` when it holds a .git folder (as a project's top does).
 * Undefined when that does not hold: then the full plan (early-plan.ts) is made, which loads node:fs first,
 * about 1.3 ms before git can start. A guess that differs from what the service makes (a .git folder that is
 * no repository) only leaves the early git to be killed.
 */
export const guessedGitCommands = (
  argv: ReadonlyArray<string>,
  cwd: string,
  env: Readonly<Record<string, string | undefined>>,
): ReadonlyArray<GitCommand> | undefined => {
  if (env.ANVIL_ROOT !== undefined || env.GIT_DIR || env.GIT_WORK_TREE) return undefined
  try {
    let needsSettings = false
    const args = plannedArgs(argv, () => {
      needsSettings = true
      return new Map()
    })
    if (needsSettings || args.length === 0 || Bun.file(`${cwd}/.git/HEAD`).size === 0) return undefined
    const setup = gitSetup(env, "auto")
    return setup === undefined ? undefined : args.map((a) => gitCommand(setup, cwd, a))
  } catch {
    return undefined
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
 * Starts the git commands of `argv` (guessed, else planned: early-plan.ts) with their output read
 * into memory at once, so a long diff never waits on a full pipe. Resolves to how many started, and a promise
 * settled when they all exited. Every one still waiting when the process exits is killed.
 */
export const startEarlyGit = async (
  argv: ReadonlyArray<string>,
  cwd: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<{ readonly started: number; readonly exited: Promise<unknown> }> => {
  const commands = guessedGitCommands(argv, cwd, env) ?? (await import("./early-plan.ts")).plannedGitCommands(argv, cwd, env)
  const outputs: Array<Promise<EarlyOutput>> = []
  for (const command of commands) {
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
