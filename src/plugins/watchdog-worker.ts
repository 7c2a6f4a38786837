import { END_DESCENDANTS_SOURCE } from "../process/descendants.ts"

/**
 * The watchdog's own thread (watchdog.ts starts it from this text as a Blob
 * URL: a compiled binary runs a Worker only from an embedded entry point or a
 * URL, and a text needs no change to the build). Plain JavaScript, standing
 * alone: it runs while anvil's thread may be stuck in a plugin's loop, so it
 * asks nothing of that thread and writes through file descriptors directly.
 *
 * The main thread posts the plugin calls it waits for ({t: "add"|"del"}) and
 * what to print on standard output when one freezes it ({t: "report"}: a text
 * with placeholders for the message and the time of the freeze, JSON or not); it
 * stamps the time into the shared buffer (Float64 at 0) while any call is
 * watched, and the id of the call whose synchronous part is running (Int32 at
 * 8). The init message's `spared` names the process watchdog, which a forced
 * exit leaves running (process/watchdog-identity.ts). A call is frozen when its
 * deadline passed while the main thread had not stamped since before it, for GRACE_MS, on three ticks in a row. A tick
 * that comes late by more than a second means the whole process was stopped
 * (the machine slept, Ctrl-Z then fg, SIGSTOP): that time is no plugin's, so
 * every deadline moves by it (a step of anvil's own that was running when it
 * stopped is not blamed on the plugin call it waits for).
 * A main thread the kernel shows waiting (Linux /proc state S or D: a
 * synchronous child process such as execSync, a blocking read, a long
 * collection) is not computing: it gets WAIT_GRACE_MS instead, so a hook
 * that runs a slow formatter synchronously answers late rather than ending
 * anvil, while one that waits forever still does.
 */
export const WATCHDOG_WORKER_SOURCE = `
const fs = require("node:fs")
const GRACE_MS = 2000
const WAIT_GRACE_MS = 30000
const TICK_MS = 250
const EXIT_CODE = 8
let beats, current, spared, placeholder, timePlaceholder, report
const watches = new Map()
let streak = 0
let lastTick

const write = (fd, text) => {
  try { fs.writeSync(fd, text) } catch {}
}

// The plugin load memory (load-memory.ts) with one entry set: "frozen" counts a time-out, "suspect" loads it alone next time.
const remember = (memory, kind) => {
  if (!memory) return
  try {
    let all = {}
    try {
      const data = JSON.parse(fs.readFileSync(memory.file, "utf8"))
      if (data && typeof data === "object" && !Array.isArray(data)) all = data
    } catch {}
    all[memory.path] = memory[kind]
    fs.mkdirSync(require("node:path").dirname(memory.file), { recursive: true })
    const temp = memory.file + "." + process.pid + ".tmp"
    fs.rmSync(temp, { force: true })
    fs.writeFileSync(temp, JSON.stringify(all, null, 1), { flag: "wx" })
    fs.renameSync(temp, memory.file)
  } catch {}
}

// A plugin's own child processes (a server it started while loading) are not anvil's managed trees, and anvil's
// thread, which ends those, is the one stuck: they are KILLed here (process/descendants.ts), or they would outlive anvil.
const endDescendants = ${END_DESCENDANTS_SOURCE}

const end = () => {
  endDescendants(fs, spared ?? new SharedArrayBuffer(16))
  try {
    const { dlopen } = require("bun:ffi")
    const libc = dlopen(process.platform === "darwin" ? "libSystem.B.dylib" : "libc.so.6", { _exit: { args: ["i32"], returns: "void" } })
    libc.symbols._exit(EXIT_CODE)
  } catch {}
  // Without libc's _exit (another C library): the only other way out a thread has for the whole process.
  process.kill(process.pid, "SIGKILL")
}

// The main thread's scheduler state: "R" computing (or ready to), "S"/"D" waiting in the kernel; undefined off Linux.
const mainState = () => {
  try {
    const stat = fs.readFileSync("/proc/self/task/" + process.pid + "/stat", "utf8")
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3)
  } catch {
    return undefined
  }
}

const freeze = (late, now, waiting) => {
  const inside = watches.get(current[0])
  const blamed = inside && late.includes(inside) ? [inside] : late
  const who = blamed.map((w) => w.label).join(", or ")
  const first = blamed[0]
  const seconds = ((now - first.since) / 1000).toFixed(1)
  const cause = waiting
    ? " has kept anvil's only thread waiting in a synchronous call (a child process run with execSync or spawnSync, a blocking read) for "
    : " has kept anvil's only thread busy for "
  const why = waiting ? "a synchronous call" : "plugin code that never yields (a synchronous loop)"
  const message = (blamed.length > 1 ? "one of " : "") + who + cause + seconds +
    " s, past its time limit of " + first.limitMs + " ms (" + first.setting + "): " + why + " " +
    "cannot be cancelled, so anvil stopped here (exit code " + EXIT_CODE + "). Fix the plugin, or keep it off with " +
    "\\"plugins.disabled\\": [" + blamed.map((w) => JSON.stringify(w.plugin)).join(", ") + "] in anvil.json." +
    (blamed.length > 1 && blamed.every((w) => w.memory) ? " The next run loads each of them alone, to tell which." : "")
  if (blamed.length === 1) remember(first.memory, "frozen")
  else for (const w of blamed) remember(w.memory, "suspect")
  write(2, "anvil: " + message + "\\n")
  if (report) {
    // In a JSON template a placeholder and what takes its place are both written as JSON escapes them.
    const inJson = (text) => (report.json ? JSON.stringify(text).slice(1, -1) : text)
    const filled = [[placeholder, message], [timePlaceholder, new Date(now).toISOString()]]
      .reduce((out, [mark, text]) => out.split(inJson(mark)).join(inJson(text)), report.stdout)
    write(1, filled)
  }
  end()
}

const tick = () => {
  const now = Date.now()
  const stopped = now - lastTick - TICK_MS
  lastTick = now
  if (stopped > 1000) {
    for (const w of watches.values()) w.deadline += stopped
    streak = 0
    return
  }
  if (!beats || watches.size === 0) return
  const beat = beats[0]
  const state = mainState()
  const waiting = state === "S" || state === "D"
  const grace = waiting ? WAIT_GRACE_MS : GRACE_MS
  const late = [...watches.values()].filter((w) => beat < w.deadline && now > w.deadline + grace)
  if (late.length === 0 || now - beat < GRACE_MS) {
    streak = 0
    return
  }
  if (++streak >= 3) freeze(late, now, waiting)
}

self.onmessage = ({ data }) => {
  if (data.t === "init") {
    beats = new Float64Array(data.buffer, 0, 1)
    current = new Int32Array(data.buffer, 8, 1)
    spared = data.spared
    placeholder = data.placeholder
    timePlaceholder = data.timePlaceholder
    lastTick = Date.now()
    setInterval(tick, TICK_MS)
  } else if (data.t === "add") watches.set(data.id, data)
  else if (data.t === "del") watches.delete(data.id)
  else if (data.t === "report") report = data.stdout === undefined ? undefined : data
}
`
