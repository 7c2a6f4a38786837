#!/usr/bin/env bun
// The entry point answers --version and --help without loading the runtime,
// so they cost only the process start; everything else is imported lazily.
// Bun.write rather than process.stdout: creating Node's stdout stream costs
// more than the rest of `anvil --version`.
import { VERSION } from "./version.ts"
import { GLOBAL_HELP } from "./cli/help-text.ts"

/** bash and its aliases (tools/bash.ts), as `anvil tool` takes them. */
const BASH_NAMES = new Set(["bash", "shell", "run_command", "execute_command"])
/** sandbox/settings.ts DEFAULT_MAX_PROCESSES, not imported: the entry point stays small. */
const DEFAULT_MAX_PROCESSES = 4096

/**
 * Whether the working directory can be read. One that was removed after the shell entered it makes every
 * path anvil resolves meaningless: said in one line, before anything else runs. (The compiled binary starts
 * Bun with --cwd=/proc/self/cwd, build-options.ts, so that Bun's own start-up gets this far instead of failing first.)
 */
function workingDirectoryExists(): boolean {
  try {
    process.cwd()
    return true
  } catch (e) {
    const code = (e as { code?: string }).code
    process.stderr.write(
      code === "ENOENT" || code === undefined
        ? "anvil: the working directory no longer exists (it was deleted or moved). cd into an existing directory " +
            '(or `cd "$PWD"` if it was recreated at the same path) and run anvil again.\n'
        : `anvil: the working directory cannot be read (${code}). cd into a directory you can read and run anvil again.\n`,
    )
    return false
  }
}

/**
 * Prints the answer of --version or --help. A reader that left (`| head -c1`: EPIPE) ends it quietly, as for every
 * command (cli/output.ts); any other failure (a full disk) is said in one line and exits 1, never a stack trace.
 */
async function printQuick(text: string): Promise<void> {
  try {
    await Bun.write(Bun.stdout, text)
  } catch (e) {
    const code = (e as { code?: unknown }).code
    if (code === "EPIPE" || code === "EIO") return
    // Imported only here: --version's start imports nothing beyond its text.
    const { outputLostMessage } = await import("./cli/output-lost.ts")
    process.stderr.write(outputLostMessage(String(code ?? e)))
    process.exitCode = 1
  }
}

const argv = process.argv.slice(2)
if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-V")) {
  await printQuick(`anvil ${VERSION}\n`)
} else if (argv.length === 1 && (argv[0] === "--help" || argv[0] === "-h")) {
  await printQuick(GLOBAL_HELP)
} else {
  // The binary starts with JavaScriptCore's JIT thresholds raised (build-options.ts): start-up code runs once, and
  // compiling it cost more CPU than it saved. A command still running after 50 ms is doing real work (a
  // session, a long tool call): from then on code is compiled as usual. Unref'd: a short command ends first.
  setTimeout(() => Bun.unsafe.setJITPolicy(1), 50).unref()
  if (argv[0] === "__sweep-stand-ins" && argv.length === 2) {
    // Started by the watchdog of an anvil that was killed: takes away the stand-ins its confined commands left.
    const { sweepStandIns } = await import("./sandbox/stand-in-ledger.ts")
    sweepStandIns(argv[1]!)
  } else if (argv[0] === "__sandbox-relay") {
    // Inside the command sandbox: forwards 127.0.0.1 to anvil's network proxy, then runs the command.
    const { runRelay } = await import("./sandbox/relay.ts")
    await runRelay(argv.slice(1))
  } else if (argv[0] === "__sandbox-scope") {
    // Inside the command sandbox with the machine's network: abstract Unix sockets outside out of reach, then the command.
    const { runScoped } = await import("./sandbox/abstract-scope.ts")
    runScoped(argv.slice(1))
  } else if (!workingDirectoryExists()) {
    // Exit code 2, as for a usage error (cli/exit-codes.ts): the command cannot run from here.
    process.exitCode = 2
  } else {
    // `anvil tool git_status|git_diff|git_log`: git starts now and works on another core while the runtime loads;
    // the git service takes it over if it makes the same command itself (src/git/early-git.ts).
    if (argv[0] === "tool" && argv[1]?.startsWith("git_")) await (await import("./git/early-git.ts")).startEarlyGit(argv, process.cwd(), process.env)
    // `anvil tool bash`: the command's cage is made while anvil starts (process/parked-cage.ts; the limit is set again
    // from the settings when the command takes it), and none after it: there is no next command.
    else if (argv[0] === "tool" && BASH_NAMES.has(argv[1]?.toLowerCase() ?? "")) {
      void import("./process/parked-cage.ts").then((m) => {
        m.parkOnlyOnce()
        m.prepareCage(DEFAULT_MAX_PROCESSES)
      })
    }
    const [{ main }, { installCrashGuards }] = await Promise.all([import("./cli/index.ts"), import("./cli/signals.ts")])
    installCrashGuards()
    process.exitCode = await main(argv)
    // The command is over. A plugin may have left a timer or a socket open that would keep the process
    // alive for ever; without one the process ends before this (unref'd) timer fires.
    setTimeout(() => process.exit(), 250).unref()
  }
}
