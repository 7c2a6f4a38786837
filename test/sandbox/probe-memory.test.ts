import { describe, expect, test } from "bun:test"
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { tempDir } from "../support/harness.ts"

const probe = join(import.meta.dir, "..", "..", "src", "sandbox", "probe.ts")

/** Probes in a fresh process (the probe is kept per process anyway): whether the sandbox is available. */
const probeIn = (env: Record<string, string>): boolean => {
  const r = Bun.spawnSync([process.execPath, "-e", `import { probeSandbox } from ${JSON.stringify(probe)}; console.log(probeSandbox(process.env).available)`], { env, stdout: "pipe", stderr: "pipe" })
  return r.stdout.toString().trim() === "true"
}

describe("the sandbox probe across anvil processes", () => {
  test("a success is remembered for the same bubblewrap; a changed one, or a failure, is probed again", () => {
    const dir = tempDir("anvil-probe-memory-")
    const bin = join(dir, "bin")
    Bun.spawnSync(["mkdir", "-p", bin])
    const starts = join(dir, "starts")
    const fake = (exit: number) => {
      writeFileSync(join(bin, "bwrap"), `#!/bin/sh\necho x >> "${starts}"\nexit ${exit}\n`)
      chmodSync(join(bin, "bwrap"), 0o755)
    }
    const count = () => (existsSync(starts) ? readFileSync(starts, "utf8").split("\n").filter(Boolean).length : 0)
    const env = { PATH: `${bin}:/usr/bin:/bin`, HOME: dir, XDG_CACHE_HOME: join(dir, "cache") }
    fake(0)
    expect(probeIn(env)).toBe(true)
    expect(count()).toBe(1)
    expect(existsSync(join(dir, "cache", "anvil", "sandbox-probe"))).toBe(true)
    // Another process: not started again.
    expect(probeIn(env)).toBe(true)
    expect(count()).toBe(1)
    // A command's output showing bubblewrap itself failing: forgotten, probed again by the next process.
    const forget = Bun.spawnSync([process.execPath, "-e", `import { forgetProbeIfFailed } from ${JSON.stringify(probe)}; forgetProbeIfFailed(process.env, "x\\nbwrap: setting up uid map: Permission denied")`], { env })
    expect(forget.exitCode).toBe(0)
    expect(probeIn(env)).toBe(true)
    expect(count()).toBe(2)
    // Another bubblewrap in its place (here one that fails): probed, and the failure is probed every time.
    fake(1)
    expect(probeIn(env)).toBe(false)
    expect(probeIn(env)).toBe(false)
    expect(count()).toBe(4)
  })
})
