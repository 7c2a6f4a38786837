import { afterAll, describe, expect, test } from "bun:test"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { startManaged, type ManagedProcess } from "../../src/process/managed-process.ts"
import { managedCount, stopAllManaged } from "../../src/process/managed-registry.ts"
import { markedProcesses } from "../../src/process/process-table.ts"

const PATH = process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin"
const sh = (script: string, extra: Partial<Parameters<typeof startManaged>[0]> = {}) =>
  startManaged({ argv: ["/bin/sh", "-c", script], cwd: tmpdir(), env: { PATH }, killGraceMs: 300, ...extra })

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    const state = require("node:fs").readFileSync(`/proc/${pid}/stat`, "latin1").split(") ")[1]?.[0]
    return state !== "Z"
  } catch {
    return false
  }
}

const readLines = async (p: ManagedProcess, n: number): Promise<Array<string>> => {
  const reader = p.stdout!.getReader()
  let text = ""
  while (text.split("\n").length <= n) {
    const { done, value } = await reader.read()
    if (done) break
    text += new TextDecoder().decode(value)
  }
  reader.releaseLock()
  return text.split("\n").slice(0, n)
}

const waitFor = async (check: () => boolean, ms = 3000) => {
  const end = performance.now() + ms
  while (!check() && performance.now() < end) await Bun.sleep(20)
  return check()
}

afterAll(() => stopAllManaged(0))

describe("startManaged", () => {
  test("stop() ends the group and the children that left it (setsid, nohup) and waits for them", async () => {
    const p = sh(`setsid sleep 300 & echo $!; nohup sleep 301 >/dev/null 2>&1 & echo $!; sleep 302 & echo $!; wait`)
    const pids = (await readLines(p, 3)).map(Number)
    expect(pids.every(alive)).toBe(true)
    expect(await waitFor(() => pids.every((pid) => markedProcesses([p.mark]).includes(pid)))).toBe(true)
    await p.stop()
    expect(pids.filter(alive)).toEqual([])
    expect(markedProcesses([p.mark])).toEqual([])
  })

  test("a process that ignores TERM is KILLed after the grace period", async () => {
    const p = sh(`trap '' TERM; setsid sh -c "trap '' TERM; echo \\$\\$; while :; do sleep 1; done" & wait`)
    const [pid] = (await readLines(p, 1)).map(Number)
    const started = performance.now()
    await p.stop(200)
    expect(alive(pid!)).toBe(false)
    expect(performance.now() - started).toBeLessThan(3000)
  })

  test("what a finished process left behind stays registered and ends with stopAllManaged", async () => {
    const p = sh(`setsid sleep 303 >/dev/null 2>&1 < /dev/null & echo $!`)
    const [pid] = (await readLines(p, 1)).map(Number)
    await p.exited
    expect(p.exit?.exitCode).toBe(0)
    expect(alive(pid!)).toBe(true)
    expect(managedCount()).toBeGreaterThan(0)
    await stopAllManaged(200)
    expect(alive(pid!)).toBe(false)
    expect(managedCount()).toBe(0)
  })

  test("a left-behind process caught inside an exec is still found and ended, not taken for gone", async () => {
    // Each of these turns into another program over and over (env → env → … → sh), so a look through /proc often
    // meets it inside an exec, when the kernel shows no environment and so no mark. One tree each: a tree whose
    // only process is missed there would be called ended at once.
    const dir = mkdtempSync(join(tmpdir(), "anvil-reexec-"))
    const script = join(dir, "reexec.sh")
    writeFileSync(script, 'exec env env env env env env env env sh "$0"\n')
    try {
      for (let round = 0; round < 3; round++) {
        const pids = await Promise.all(
          Array.from({ length: 8 }, async () => {
            const p = sh(`setsid sh ${script} >/dev/null 2>&1 < /dev/null & echo $!`)
            const [pid] = (await readLines(p, 1)).map(Number)
            await p.exited
            return pid!
          }),
        )
        await Bun.sleep(50)
        await stopAllManaged(200)
        const left = pids.filter(alive)
        for (const pid of left) process.kill(pid, "SIGKILL")
        expect(left).toEqual([])
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  test("pipes both ways, as Node streams for servers", async () => {
    const p = startManaged({ argv: ["cat"], cwd: tmpdir(), env: { PATH }, stdin: "pipe" })
    const { stdin, stdout } = p.nodeStreams()
    const got = new Promise<string>((resolve) => stdout!.once("data", (d: Buffer) => resolve(d.toString())))
    stdin!.write("hello\n")
    expect(await got).toBe("hello\n")
    stdin!.end()
    expect((await p.exited).exitCode).toBe(0)
    await p.stop()
  })

  test("the mark is inherited and nested marks are kept; wrap rewrites the command with the mark in place", async () => {
    const outer = sh(`echo "$ANVIL_PROC_MARK"`, { env: { PATH, ANVIL_PROC_MARK: "outer0" } })
    expect((await readLines(outer, 1))[0]).toBe(`outer0,${outer.mark}`)
    const wrapped = sh(`echo "$WRAPPED $ANVIL_PROC_MARK"`, {
      wrap: (c) => ({ ...c, argv: ["env", "WRAPPED=yes", ...c.argv] }),
    })
    expect((await readLines(wrapped, 1))[0]).toBe(`yes ${wrapped.mark}`)
    await Promise.all([outer.stop(), wrapped.stop()])
  })

  test("a missing program is a ProcessSpawnError with ENOENT", () => {
    expect(() => startManaged({ argv: ["no-such-program-xyz"], cwd: tmpdir(), env: { PATH } })).toThrow(/command not found/)
  })

  test("process.exit anywhere still KILLs every managed tree (the exit guard)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "anvil-managed-"))
    const script = join(dir, "exit.ts")
    const mod = join(import.meta.dir, "..", "..", "src", "process", "managed-process.ts")
    writeFileSync(
      script,
      `import { startManaged } from ${JSON.stringify(mod)}
const p = startManaged({ argv: ["/bin/sh", "-c", "setsid sleep 304 >/dev/null 2>&1 & echo $!; wait"], cwd: "/", env: { PATH: process.env.PATH ?? "" } })
const r = p.stdout!.getReader(); const { value } = await r.read()
console.log(new TextDecoder().decode(value).trim())
process.exit(3)
`,
    )
    const child = Bun.spawnSync([process.execPath, script], { stdout: "pipe", stderr: "pipe" })
    rmSync(dir, { recursive: true, force: true })
    expect(child.exitCode).toBe(3)
    const pid = Number(child.stdout.toString().trim())
    expect(pid).toBeGreaterThan(0)
    expect(await waitFor(() => !alive(pid))).toBe(true)
  })
})
