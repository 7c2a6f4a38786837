import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { mkdirSync, readdirSync, readlinkSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { statOf } from "../../src/process/process-table.ts"
import { resetRunFolderSweep, sweepStaleRunFolders } from "../../src/sandbox/run-folders.ts"
import { project, tempDir } from "../support/harness.ts"
import { anvilBinary, requireBwrap, runBinary } from "./binary.ts"
import { waitUntil } from "../safety/binary.ts"

// A killed anvil (kill -9) leaves its session's $TMPDIR and the sandbox's overlay files in /tmp: a later anvil's first
// confined command removes those whose process is gone, judged by pid, start time and PID namespace in the name.
setDefaultTimeout(60_000)

const ns = /\[(\d+)\]/.exec(readlinkSync("/proc/self/ns/pid"))![1]!
const me = statOf("self")!.start

describe("stale run folders", () => {
  test("only folders of this user whose process is gone (pid and start time) in this PID namespace go", async () => {
    const dir = tempDir("anvil-runs-")
    const dead = Bun.spawnSync(["/bin/true"]).pid
    const names = {
      dead: `anvil-cli-p${dead}s12345n${ns}-Ab12Cd`,
      reused: `anvil-overlay-p${process.pid}s${me + 1}n${ns}-Ab12Cd`,
      live: `anvil-cli-p${process.pid}s${me}n${ns}-Xy34Zw`,
      otherNamespace: `anvil-cli-p${dead}s12345n1${ns}-Ab12Cd`,
      untagged: "anvil-cli-Ab12Cd",
      notOurs: `other-p${dead}s12345n${ns}-Ab12Cd`,
    }
    for (const name of Object.values(names)) {
      mkdirSync(join(dir, name, "deep"), { recursive: true })
      writeFileSync(join(dir, name, "deep", "f"), "x")
    }
    // A link or a file with a dead owner's name is never followed or removed.
    const outside = tempDir("anvil-runs-outside-")
    writeFileSync(join(outside, "keep"), "x")
    symlinkSync(outside, join(dir, `anvil-cli-p${dead}s1n${ns}-Link00`))
    writeFileSync(join(dir, `anvil-cli-p${dead}s1n${ns}-File00`), "x")
    resetRunFolderSweep()
    expect(await sweepStaleRunFolders(dir)).toBe(2)
    expect(readdirSync(dir).sort()).toEqual(
      [names.live, names.otherNamespace, names.untagged, names.notOurs, `anvil-cli-p${dead}s1n${ns}-Link00`, `anvil-cli-p${dead}s1n${ns}-File00`].sort(),
    )
    expect(readdirSync(outside)).toEqual(["keep"])
  })
})

describe("through the binary", () => {
  let binary = ""
  beforeAll(async () => {
    requireBwrap()
    binary = await anvilBinary()
  }, 120_000)

  test("what an anvil killed during a confined command left in $TMPDIR goes with the next anvil's first command", async () => {
    const root = project({ "a.txt": "a\n" })
    const tmp = tempDir("anvil-tmp-")
    const home = tempDir("anvil-home-")
    const killed = Bun.spawn([binary, "tool", "bash", JSON.stringify({ command: "sleep 30" })], {
      cwd: root,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, TMPDIR: tmp },
      stdout: "ignore",
      stderr: "ignore",
    })
    expect(await waitUntil(() => readdirSync(tmp).some((n) => /^anvil-.*-p\d+s\d+n\d+-/.test(n)))).toBe(true)
    killed.kill("SIGKILL")
    await killed.exited
    const left = readdirSync(tmp)
    expect(left.length).toBeGreaterThanOrEqual(1)
    // A read does not look (nothing it makes lives there).
    expect((await runBinary(binary, ["tool", "read", JSON.stringify({ path: "a.txt" })], root, { HOME: home, TMPDIR: tmp })).code).toBe(0)
    expect(readdirSync(tmp).sort()).toEqual([...left].sort())
    const ran = await runBinary(binary, ["tool", "bash", JSON.stringify({ command: "echo ran" })], root, { HOME: home, TMPDIR: tmp })
    expect(JSON.parse(ran.out).data.stdout).toBe("ran")
    expect(readdirSync(tmp)).toEqual([])
  })
})
