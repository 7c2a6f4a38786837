import { MARK_VAR } from "./process-table.ts"
import { selfCommand } from "./self-command.ts"
import { noteChild } from "./subreaper.ts"
import { cagePrefix } from "./tree-cgroup.ts"
import { forgetWatchdog, noteWatchdog } from "./watchdog-identity.ts"

/**
 * The watchdog that ends anvil's process trees when anvil itself is killed.
 *
 * A SIGKILL (or a crash of the runtime) runs no handler, so the registry's
 * exit sweep never happens, and bubblewrap's --die-with-parent covers only
 * confined commands; with the sandbox off a `nohup server &` would outlive
 * anvil. So every mark this process hands out starts with one prefix of its
 * own, and with the first managed process a small shell is started that
 * blocks reading a pipe only anvil holds the other end of. When anvil dies
 * the kernel closes that end: the shell reads end-of-file and KILLs every
 * process whose environment carries the prefix (setsid'd and nohup'd ones
 * included), with their process groups, looking again until two looks in a
 * row find nothing (a process caught inside an exec shows no environment for
 * a moment). On an orderly exit anvil ends its trees itself and KILLs the
 * watchdog, which then makes no look at all.
 *
 * It costs one `sh` start per anvil process, made after the first command was
 * started (not in its way), and nothing per command; none at all while every
 * process anvil started is held by the command sandbox (which dies with
 * anvil) and no stand-in of the sandbox waits to be swept.
 */

/**
 * This process's prefix of every mark (hex, so it is a plain word in the shell's pattern). Web Crypto, not
 * node:crypto: loading that module would add about 2 ms to every command tool's start.
 */
const PREFIX = crypto.randomUUID().replaceAll("-", "").slice(0, 16)

/**
 * The shell's program: `$1` is the prefix, `$2` the start of this anvil's cgroup folders (empty where it
 * makes none: tree-cgroup.ts), the rest how to start anvil again. The processes in those cgroups are
 * KILLed too (a daemon that cleared its environment is in its command's cgroup still), and the emptied
 * folders removed. Each line anvil writes is a stand-in ledger folder, swept by a new anvil once the
 * trees are gone (see {@link sweepAfterDeath}).
 */
const SCRIPT = `trap '' HUP INT TERM QUIT PIPE
prefix=$1; cages=$2; shift 2
ledgers=
while IFS= read -r line; do ledgers="$ledgers
$line"; done
set -- "$prefix" "$@"
idle=0; n=0
while [ $idle -lt 2 ] && [ $n -lt 40 ]; do
  n=$((n + 1)); idle=$((idle + 1))
  for f in $(grep -lzs -e "^${MARK_VAR}=.*$1" /proc/[0-9]*/environ); do
    p=\${f#/proc/}; p=\${p%/environ}
    [ "$p" = "$$" ] && continue
    kill -9 -"$p" 2>/dev/null; kill -9 "$p" 2>/dev/null; idle=0
  done
  if [ -n "$cages" ]; then
    for c in "$cages"*/cgroup.procs; do
      for p in $(cat "$c" 2>/dev/null); do kill -9 "$p" 2>/dev/null; idle=0; done
    done
  fi
  sleep 0.05
done
if [ -n "$cages" ]; then for d in "$cages"*/; do rmdir "$d" 2>/dev/null; done; fi
shift
printf '%s\\n' "$ledgers" | while IFS= read -r dir; do [ -n "$dir" ] && "$@" __sweep-stand-ins "$dir"; done`

// Held for the life of the process: if the pipe's end were collected and closed, the shell would end every tree.
let watchdog: Bun.Subprocess<"pipe", "ignore", "ignore"> | undefined
let tried = false

/** A fresh mark for one process tree, carrying this process's prefix. */
export const newMark = (): string => PREFIX + crypto.randomUUID().replaceAll("-", "").slice(0, 16)

/** Whether `mark` is one this anvil process handed out. */
export const ownMark = (mark: string): boolean => mark.startsWith(PREFIX)

/**
 * Starts the watchdog once (later calls do nothing). Where it cannot start (no
 * /bin/sh) anvil goes on without it: the exit sweeps still hold for every way
 * out but SIGKILL.
 */
export const ensureWatchdog = (): void => {
  if (tried) return
  tried = true
  try {
    watchdog = Bun.spawn(["/bin/sh", "-c", SCRIPT, "anvil-watchdog", PREFIX, cagePrefix() ?? "", ...selfCommand()], {
      stdin: "pipe",
      stdout: "ignore",
      stderr: "ignore",
      // Its own session: a Ctrl-C or a closed terminal reaches anvil, which ends its trees itself.
      detached: true,
      env: { PATH: "/usr/bin:/bin" },
      // Not the project: it holds no folder busy, and is no process "in" the project.
      cwd: "/",
    })
    watchdog.unref()
    noteChild(watchdog.pid)
    // A forced exit spares this process alone (descendants.ts), by pid and start time.
    noteWatchdog(watchdog.pid)
    // An orderly exit ends the trees itself (managed-registry): the watchdog goes without looking through /proc.
    process.on("exit", () => {
      forgetWatchdog()
      watchdog?.kill("SIGKILL")
    })
  } catch {
    watchdog = undefined
  }
}

/** Ledger folders already handed to the watchdog. */
const ledgers = new Set<string>()

/**
 * After a SIGKILL of anvil, the stand-ins its confined commands had placed (an
 * empty `anvil.json`, `.claude/`) would stay in the project until the next
 * anvil command, and the user's own git would see them: so once the watchdog
 * has ended the trees it starts anvil again to sweep the ledger in `dir`.
 */
export const sweepAfterDeath = (dir: string): void => {
  if (ledgers.has(dir) || dir.includes("\n")) return
  ledgers.add(dir)
  // After the command that needs it was started, not in its way (a kill within that moment leaves the
  // stand-ins to the next anvil command, as without a watchdog).
  setTimeout(() => {
    ensureWatchdog()
    try {
      watchdog?.stdin.write(`${dir}\n`)
      watchdog?.stdin.flush()
    } catch {
      // the watchdog is gone: the next anvil command sweeps instead
    }
  }, 0)
}
