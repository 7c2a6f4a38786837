import { closeSync, openSync, unlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { installedProgram } from "./installed-program.ts"
import { noteChild } from "./subreaper.ts"
import { makeTreeCage, removeCagesNow, type TreeCage } from "./tree-cgroup.ts"

/**
 * A command's cage made ahead of time. Moving a process into a cgroup waits
 * for the kernel (the first move after a quiet moment waits out an RCU grace
 * period: about 15–30 ms of wall time, no CPU), and a command that moves
 * itself into its cage at its start pays that in full. Instead, one process
 * is started early (once the model's answer starts coming: sandbox.ts
 * `commandComing`; for `anvil tool bash`, as anvil starts) and again a moment
 * after each command took the last one, and moves itself into a fresh cage
 * then, off the path of any command; it then waits on its stdin. The next
 * command that writes its output to files (bash) is started by that process:
 * anvil writes a private script file (unlinked at once) and sends its name under /proc; the script
 * redirects the command's streams, enters its working folder and execs it
 * under exactly its environment (`env -i`), so the command is born inside its cage and every
 * process it starts is counted and ended with it, as before. The process is
 * anvil's own child in a session of its own (its pid is the command's, its
 * exit is the command's). Without one ready (or for a command that reads a
 * pipe) a command enters its cage itself, as before.
 *
 * The parked process ends when anvil ends: its stdin closes (its `read`
 * fails and it exits), anvil's exit KILLs it, and its cage is named like
 * every other of this anvil (the watchdog and the next anvil clear it).
 * Waiting, it does not keep anvil running (it is unref'd until it becomes a
 * command). The script's file is unlinked as soon as it is made (the shell
 * reads it through anvil's descriptor), so a KILLed anvil leaves none behind.
 */

interface Parked {
  readonly cage: TreeCage
  readonly max: number
  readonly proc: Bun.Subprocess<"pipe", "ignore", "ignore">
}

let parked: Parked | undefined
let exitHooked = false
/** Whether a new process is parked after each command (not in a process that runs one command: `anvil tool bash`). */
let again = true
let scriptCount = 0

/**
 * The shell line of the parked process: `$0` is its cage's process list. Its stdin is a socket (not a pipe
 * that `.` could read), so what comes down it is one short line: the script file's name under /proc/<anvil>/fd.
 */
const PARK = 'echo $$ > "$0" 2>/dev/null; read -r f && . "$f"'

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`

const envProgram = (): string | undefined => installedProgram(["/usr/bin/env", "/bin/env"])

const discard = (p: Parked) => {
  try {
    p.proc.kill("SIGKILL")
  } catch {
    // gone
  }
  p.cage.remove()
}

/**
 * This anvil runs one command and ends (`anvil tool bash`): the process parked
 * for it is not followed by another, which would cost a shell start and a
 * cgroup for a command that never comes.
 */
export const parkOnlyOnce = (): void => {
  again = false
}

/**
 * Starts the parked process for a later command of at most `max` processes,
 * unless one is ready; nothing where anvil makes no cages.
 */
export const prepareCage = (max: number): void => {
  if (max <= 0 || (parked !== undefined && parked.proc.exitCode === null && parked.proc.signalCode === null)) return
  if (envProgram() === undefined) return
  const cage = makeTreeCage(max)
  if (cage === undefined) return
  let proc: Parked["proc"]
  try {
    proc = Bun.spawn(["/bin/sh", "-c", PARK, join(cage.dir, "cgroup.procs")], { env: {}, detached: true, stdin: "pipe", stdout: "ignore", stderr: "ignore" })
  } catch {
    cage.remove()
    return
  }
  // The runtime waits for it: the subreaper must not take it for an orphan (subreaper.ts).
  noteChild(proc.pid)
  // Waiting for a command that may never come must not keep anvil alive: referenced, the one parked for the next
  // command held every `anvil tool bash` that ran over 200 ms until main.ts's 250 ms exit timer.
  proc.unref()
  parked = { cage, max, proc }
  if (!exitHooked) {
    exitHooked = true
    process.once("exit", dropParked)
  }
}

/** Ends the parked process and removes its cage (at anvil's exit). */
export const dropParked = (): void => {
  if (parked) discard(parked)
  parked = undefined
  // Its cage empties once the KILL landed: a few milliseconds at most.
  removeCagesNow()
}

/** What a command started in the parked process needs. */
export interface ParkedStart {
  readonly argv: ReadonlyArray<string>
  /** The folder to start in (`/proc/self/fd/N` is read as this process's). */
  readonly cwd: string
  readonly env: Readonly<Record<string, string>>
  /** Open descriptors of this process the command's stdout and stderr go to. */
  readonly stdout: number
  readonly stderr: number
  readonly max: number
}

/**
 * Starts `start` in the parked process, if one is ready (its cage then holds
 * the command); undefined otherwise, and the caller starts it as usual. A
 * new parked process is made a moment later, for the next command.
 */
export const startParked = (start: ParkedStart): { readonly proc: Bun.Subprocess; readonly cage: TreeCage } | undefined => {
  const p = parked
  const env = envProgram()
  if (p === undefined || env === undefined) return undefined
  parked = undefined
  if (again) setTimeout(() => prepareCage(start.max), 200).unref()
  const [program] = start.argv
  // env(1) would take a program name holding "=" for a variable.
  if (p.proc.exitCode !== null || p.proc.signalCode !== null || program === undefined || program.includes("=")) {
    discard(p)
    return undefined
  }
  if (p.max !== start.max) {
    try {
      writeFileSync(join(p.cage.dir, "pids.max"), String(start.max))
    } catch {
      discard(p)
      return undefined
    }
  }
  const self = (path: string) => path.replace(/^\/proc\/self\//, `/proc/${process.pid}/`)
  const fd = (n: number) => quote(`/proc/${process.pid}/fd/${n}`)
  let script: number
  try {
    // A new file only anvil can read ("wx": never through a link someone left in its place), unlinked at once: the shell
    // reads it through anvil's descriptor, and a KILLed anvil leaves nothing behind in /tmp.
    const file = join(tmpdir(), `anvil-park-${process.pid}-${++scriptCount}-${Math.random().toString(36).slice(2)}.sh`)
    script = openSync(file, "wx", 0o600)
    try {
      unlinkSync(file)
    } catch (e) {
      closeSync(script)
      throw e
    }
  } catch {
    discard(p)
    return undefined
  }
  const text =
    // Opened anew through /proc: appending (nothing anvil wrote is cut), one description for both when they are one.
    `exec </dev/null >>${fd(start.stdout)} 2>${start.stderr === start.stdout ? "&1" : `>${fd(start.stderr)}`}\n` +
    `cd -- ${quote(self(start.cwd))} || exit 126\n` +
    `exec ${env} -i -- ${Object.entries(start.env).map(([k, v]) => quote(`${k}=${v}`)).join(" ")} ${start.argv.map(quote).join(" ")}\n`
  try {
    writeFileSync(script, text)
    p.proc.stdin.write(`/proc/${process.pid}/fd/${script}\n`)
    void p.proc.stdin.end()
  } catch {
    closeSync(script)
    discard(p)
    return undefined
  }
  // It is the command now: anvil waits for it like for any other.
  p.proc.ref()
  // Read whole once the command ended (it was read before the exec, but a large one in parts).
  void p.proc.exited.then(() => {
    try {
      closeSync(script)
    } catch {
      // closed
    }
  })
  return { proc: p.proc, cage: p.cage }
}
