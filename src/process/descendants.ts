import * as fs from "node:fs"
import { WATCHDOG_IDENTITY } from "./watchdog-identity.ts"

/**
 * The last step of a forced exit of anvil (the plugin watchdog ending a frozen plugin, plugins/watchdog-worker.ts;
 * the limit on an orderly stop, cli/stop-backstop.ts): KILL every process anvil started that is still running,
 * the ones no managed tree holds too (a plugin's own `child_process`: a server it started, one holding anvil's
 * stderr, one in a group of its own), or they outlive anvil and keep a reader of its output waiting.
 *
 * One text of plain JavaScript, standing alone, since the watchdog's thread runs it from a Blob (a compiled binary
 * starts a Worker from no module of its own) while anvil's thread may be stuck: the thread embeds this text, and
 * {@link killDescendantsNow} compiles the same text once for anvil's own thread. Its arguments are `node:fs` and
 * the shared memory naming the watchdog.
 *
 * anvil's descendants are found by /proc (pid, parent, group, start time), all but the process watchdog
 * (process/watchdog.ts) and what runs under it: it must outlive anvil to sweep the marked processes and cages. The
 * watchdog is known by its pid and start time (the second argument, watchdog-identity.ts), never by its arguments,
 * which any child may copy.
 * They are stopped first, so that none forks meanwhile, then KILLed with their groups (never anvil's own group: the
 * rest of a shell pipeline, the reader of anvil's output, is in it); looked at again for orphans handed to anvil
 * (its subreaper). Without /proc nothing is done.
 */
export const END_DESCENDANTS_SOURCE = `(fs, spared) => {
  const watchdog = new Float64Array(spared)
  const descendants = () => {
    const all = []
    for (const name of fs.readdirSync("/proc")) {
      if (!/^[0-9]+$/.test(name)) continue
      try {
        const stat = fs.readFileSync("/proc/" + name + "/stat", "latin1")
        const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
        all.push({ pid: Number(name), ppid: Number(f[1]), pgid: Number(f[2]), start: Number(f[19]) })
      } catch {}
    }
    const found = []
    let parents = new Set([process.pid])
    while (parents.size > 0) {
      const next = new Set()
      for (const p of all) {
        if (!parents.has(p.ppid)) continue
        if (p.ppid === process.pid && p.pid === watchdog[0] && p.start === watchdog[1]) continue
        found.push(p)
        next.add(p.pid)
      }
      parents = next
    }
    return found
  }
  try {
    const own = process.pid
    const ownGroup = Number(fs.readFileSync("/proc/self/stat", "latin1").split(") ")[1].split(" ")[2])
    for (let round = 0; round < 3; round++) {
      const found = descendants()
      if (found.length === 0) return
      for (const p of found) { try { process.kill(p.pid, "SIGSTOP") } catch {} }
      for (const p of found) {
        if (p.pgid === p.pid && p.pgid !== ownGroup && p.pgid !== own) { try { process.kill(-p.pgid, "SIGKILL") } catch {} }
        try { process.kill(p.pid, "SIGKILL") } catch {}
      }
    }
  } catch {}
}`

let compiled: ((nodeFs: typeof fs, spared: SharedArrayBuffer) => void) | undefined

/** {@link END_DESCENDANTS_SOURCE} on anvil's own thread, synchronously: for the moment before it exits. */
export const killDescendantsNow = (): void => {
  compiled ??= new Function(`return (${END_DESCENDANTS_SOURCE})`)() as (nodeFs: typeof fs, spared: SharedArrayBuffer) => void
  compiled(fs, WATCHDOG_IDENTITY)
}
