import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { tempDir } from "../support/harness.ts"
import { outputUntil } from "../support/output-until.ts"
import { processesMatching, waitUntil } from "../safety/binary.ts"

// A forced exit (process/descendants.ts) spares anvil's process watchdog, known by its pid and start time: a child
// that only carries the watchdog's name in its argv is ended like any other.
setDefaultTimeout(60_000)

const repo = join(import.meta.dir, "..", "..")
const tag = `${process.pid}${Date.now() % 100000}`
const decoy = `sleep 8${tag}1`
const managed = `sleep 8${tag}2`
const left = () => [...processesMatching(`^${decoy}$`), ...processesMatching(`^${managed}$`)]

afterAll(() => {
  for (const pid of left()) process.kill(pid, "SIGKILL")
})

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

describe("the end of every process anvil started, on a forced exit", () => {
  test("a child whose argv names anvil-watchdog is killed; the real watchdog alone is spared", async () => {
    const dir = tempDir("anvil-descendants-")
    const script = join(dir, "host.ts")
    const go = join(dir, "go")
    writeFileSync(
      script,
      [
        `import { existsSync } from "node:fs"`,
        `import { spawn } from "node:child_process"`,
        `import { startManaged } from ${JSON.stringify(join(repo, "src", "process", "managed-process.ts"))}`,
        `import { killDescendantsNow } from ${JSON.stringify(join(repo, "src", "process", "descendants.ts"))}`,
        `import { WATCHDOG_IDENTITY } from ${JSON.stringify(join(repo, "src", "process", "watchdog-identity.ts"))}`,
        `const env = { PATH: "/usr/bin:/bin" }`,
        // A plain managed process starts the watchdog; then a plugin-like child of anvil's wears its name as argv[3].
        `startManaged({ argv: ["sh", "-c", "exec ${managed}"], cwd: "/", env, stdout: "ignore", stderr: "ignore" })`,
        `spawn("/bin/sh", ["-c", "${decoy}; :", "anvil-watchdog"], { stdio: "ignore" })`,
        `while (new Float64Array(WATCHDOG_IDENTITY)[0] === 0) await Bun.sleep(10)`,
        `console.log("watchdog " + new Float64Array(WATCHDOG_IDENTITY)[0])`,
        `while (!existsSync(${JSON.stringify(go)})) await Bun.sleep(10)`,
        `killDescendantsNow()`,
        `console.log("ended")`,
        `await Bun.sleep(60_000)`,
      ].join("\n"),
    )
    const host = Bun.spawn([process.execPath, script], { stdout: "pipe", stderr: "inherit" })
    try {
      const { until } = outputUntil(host.stdout)
      await until("watchdog ")
      const watchdog = Number(/watchdog (\d+)\n/.exec(await until("\n"))?.[1])
      expect(await waitUntil(() => left().length === 2, 5_000)).toBe(true)
      writeFileSync(go, "")
      await until("ended")
      expect(await waitUntil(() => left().length === 0, 1_000)).toBe(true)
      expect({ watchdog: alive(watchdog) }).toEqual({ watchdog: true })
    } finally {
      host.kill("SIGKILL")
      await host.exited
    }
  })
})
