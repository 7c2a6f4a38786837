import { afterAll, describe, expect, test } from "bun:test"
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { startManaged } from "../../src/process/managed-process.ts"
import { dropParked, prepareCage } from "../../src/process/parked-cage.ts"
import { cagesAvailable } from "../../src/process/tree-cgroup.ts"
import { userNprocPrefix, userTasks } from "../../src/process/user-nproc.ts"
import { startTicks, ticksNow } from "../../src/process/subreaper.ts"

const dir = mkdtempSync(join(tmpdir(), "anvil-parked-"))
afterAll(() => {
  dropParked()
  rmSync(dir, { recursive: true, force: true })
})

/** Runs `script` with a process limit, its output in files as bash's is; its stdout, its end and where it ran. */
const run = async (script: string | Array<string>, max: number, env: Record<string, string> = { PATH: "/usr/bin:/bin" }) => {
  const name = `${Math.random()}`
  const [out, err] = [openSync(join(dir, `${name}.out`), "w+"), openSync(join(dir, `${name}.err`), "w+")]
  const cwd = join(dir, "work dir's")
  mkdirSync(cwd, { recursive: true })
  try {
    const before = ticksNow()
    const p = startManaged({ argv: typeof script === "string" ? ["/bin/sh", "-c", script] : script, cwd, env, stdout: out, stderr: err, killGraceMs: 200, wrap: (c) => ({ ...c, maxProcesses: max }) })
    // Started before the call: the parked process (clock ticks are 10 ms).
    const early = (startTicks(p.pid) ?? before) < before
    const exit = await p.exited
    const caged = p.caged
    await p.stop()
    return { exit, caged, early, stdout: readFileSync(join(dir, `${name}.out`), "utf8"), stderr: readFileSync(join(dir, `${name}.err`), "utf8"), cwd }
  } finally {
    closeSync(out)
    closeSync(err)
  }
}

describe("a command's cage made ahead of time", () => {
  test("the command is born in a cage of its own with its limit, its exact environment, folder and streams; a signal death is the command's", async () => {
    prepareCage(30)
    await Bun.sleep(100)
    const r = await run("cat /proc/self/cgroup; cat /sys/fs/cgroup/pids/$(sed -n 's/^[0-9]*:pids:\\///p' /proc/self/cgroup)/pids.max 2>/dev/null; pwd; echo err >&2", 40)
    expect(r.exit).toEqual({ exitCode: 0, signal: null })
    expect(r.stdout).toEndWith(`${r.cwd}\n`)
    expect(r.stderr).toBe("err\n")
    await Bun.sleep(400)
    // env(1) itself prints exactly what it was given (a shell would drop the odd name).
    const env = { PATH: "/usr/bin:/bin", "ODD NAME": "x'y\nz", EMPTY: "" }
    const exact = await run(["/usr/bin/env", "-0"], 40, env)
    expect(exact.stdout.split("\0").filter((l) => l !== "" && !l.startsWith("ANVIL_PROC_MARK=")).sort()).toEqual(["EMPTY=", "ODD NAME=x'y\nz", "PATH=/usr/bin:/bin"])
    await Bun.sleep(400)
    const killed = await run("kill -9 $$", 40)
    expect(killed.exit).toEqual({ exitCode: null, signal: "SIGKILL" })
    if (!cagesAvailable()) return expect([r.caged, r.early]).toEqual([false, false])
    // Each was started by a process parked in its cage beforehand (a new one is made a moment after each command).
    expect([r, exact, killed].map((x) => [x.caged, x.early])).toEqual([[true, true], [true, true], [true, true]])
    expect(r.stdout).toMatch(new RegExp(`\\bpids:/anvil-${process.pid}-\\d+\\n`))
    expect(r.stdout).toContain("\n40\n")
  })

  // Waiting for a next command must not keep the process alive: a one-shot `anvil tool bash` that ran over 200 ms
  // used to wait for main.ts's 250 ms exit timer (here, without that timer, the script would never end).
  test.each([["again", 1], ["once", 0]])("a process that ran a command ends by itself; a new cage is parked after the command unless parkOnlyOnce (%s)", async (mode, left) => {
    const src = (file: string) => JSON.stringify(join(import.meta.dir, "../../src/process", file))
    const script = join(dir, `one-${mode}.ts`)
    writeFileSync(
      script,
      [
        `import { openSync, readdirSync } from "node:fs"`,
        `import { basename, dirname } from "node:path"`,
        `import { startManaged } from ${src("managed-process.ts")}`,
        `import { parkOnlyOnce, prepareCage } from ${src("parked-cage.ts")}`,
        `import { cagePrefix } from ${src("tree-cgroup.ts")}`,
        `if (process.argv[2] === "once") parkOnlyOnce()`,
        `prepareCage(30)`,
        `await Bun.sleep(100)`,
        `const out = openSync(${JSON.stringify(join(dir, `one-${mode}.out`))}, "w+")`,
        `const p = startManaged({ argv: ["/bin/sh", "-c", "sleep 0.4"], cwd: "/", env: { PATH: "/usr/bin:/bin" }, stdout: out, stderr: out, wrap: (c) => ({ ...c, maxProcesses: 30 }) })`,
        `await p.exited`,
        `await p.stop()`,
        `await Bun.sleep(300)`,
        `const prefix = cagePrefix()`,
        `const cages = prefix === undefined ? -1 : readdirSync(dirname(prefix)).filter((n) => n.startsWith(basename(prefix))).length`,
        `console.log(JSON.stringify({ caged: p.caged, cages }))`,
      ].join("\n"),
    )
    const proc = Bun.spawn([process.execPath, script, mode], { stdout: "pipe", stderr: "pipe" })
    const kill = setTimeout(() => proc.kill("SIGKILL"), 15_000)
    const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited])
    clearTimeout(kill)
    expect(proc.signalCode).toBeNull()
    expect(code).toBe(0)
    const r = JSON.parse(out)
    if (!cagesAvailable()) return expect(r).toEqual({ caged: false, cages: -1 })
    expect(r).toEqual({ caged: true, cages: left })
  }, 30_000)

  test("without a cgroup, an unconfined command's limit is RLIMIT_NPROC of the user's count plus the limit (never for root)", () => {
    expect(userNprocPrefix(40, 0)).toBeUndefined()
    expect(userNprocPrefix(0, 1000)).toBeUndefined()
    const prefix = userNprocPrefix(40, 1000, () => 7)
    if (existsSync("/usr/bin/prlimit") || existsSync("/bin/prlimit")) expect(prefix?.slice(1)).toEqual(["--nproc=47:47", "--"])
    expect(userTasks(process.getuid!())).toBeGreaterThan(1)
  })

  test("the user's count is every process and thread of that user (only their /proc folders are read)", async () => {
    if (process.getuid?.() !== 0) return expect(userTasks(process.getuid!())).toBeGreaterThan(1)
    // A user nothing else on the machine runs as.
    const uid = 40_000 + Math.floor(Math.random() * 20_000)
    expect(userTasks(uid)).toBe(0)
    const as = (argv: Array<string>) => Bun.spawn(["/usr/bin/setpriv", `--reuid=${uid}`, `--regid=${uid}`, "--clear-groups", ...argv], { stdout: "ignore", stderr: "ignore" })
    const threads = "import threading, time\nfor _ in range(3): threading.Thread(target=time.sleep, args=(30,)).start()\ntime.sleep(30)"
    const procs = [as(["sleep", "30"]), as(["sleep", "30"]), as(["/usr/bin/python3", "-c", threads])]
    try {
      const status = (pid: number) => {
        try {
          return readFileSync(`/proc/${pid}/status`, "latin1")
        } catch {
          return ""
        }
      }
      const ready = () => procs.every((p, i) => new RegExp(`\\nUid:\\s+${uid}\\s`).test(status(p.pid)) && (i < 2 || /\nThreads:\s+4\n/.test(status(p.pid))))
      for (let i = 0; i < 100 && !ready(); i++) await Bun.sleep(20)
      expect(ready()).toBe(true)
      expect(userTasks(uid)).toBe(2 + 4)
    } finally {
      for (const p of procs) p.kill("SIGKILL")
    }
  })
})
