import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { mkdirSync, readdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { statOf } from "../../src/process/process-table.ts"
import { resetRunFolderSweep, sweepStaleRunFolders } from "../../src/sandbox/run-folders.ts"
import { untaggedOwnerGone } from "../../src/sandbox/untagged-run-folders.ts"
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

describe("untagged run folders (older versions)", () => {
  test("the maker is gone when the folder's ctime lies before the boot, or before every process of this user where all are in sight", () => {
    expect(untaggedOwnerGone(1000, { bootMs: 2000 })).toBe(true)
    expect(untaggedOwnerGone(3000, { bootMs: 2000 })).toBe(false)
    expect(untaggedOwnerGone(3000, { bootMs: 2000, oldestOwnMs: 4000 })).toBe(true)
    expect(untaggedOwnerGone(5000, { bootMs: 2000, oldestOwnMs: 4000 })).toBe(false)
    // Another PID namespace: this user's processes are not all in sight, only the boot counts.
    expect(untaggedOwnerGone(3000, { bootMs: 2000, oldestOwnMs: undefined })).toBe(false)
  })

  const untagged = () => {
    const dir = tempDir("anvil-runs-untagged-")
    const names = {
      cli: "anvil-cli-Ab12Cd",
      overlay: "anvil-overlay-Ef34Gh",
      session: "anvil-20260101-120000-3fa2-Ij56Kl",
      otherKind: "anvil-home-Mn78Op",
      longer: "anvil-cli-home-Qr90St",
      test: "anvil-test-Uv12Wx",
    }
    for (const name of Object.values(names)) {
      mkdirSync(join(dir, name, "deep"), { recursive: true })
      writeFileSync(join(dir, name, "deep", "f"), "x")
    }
    const outside = tempDir("anvil-runs-outside-")
    symlinkSync(outside, join(dir, "anvil-cli-Link01"))
    writeFileSync(join(dir, "anvil-cli-File01"), "x")
    return { dir, names, kept: [names.otherKind, names.longer, names.test, "anvil-cli-Link01", "anvil-cli-File01"] }
  }

  test("made before the boot: anvil's three names go; other anvil-… names, links and files stay", async () => {
    const { dir, kept } = untagged()
    resetRunFolderSweep()
    expect(await sweepStaleRunFolders(dir, { bootMs: Date.now() + 60_000 })).toBe(3)
    expect(readdirSync(dir).sort()).toEqual([...kept].sort())
  })

  test("made before every living process of this user goes; made since (as now: this test lives) or with the processes out of sight stays", async () => {
    const { dir, names, kept } = untagged()
    resetRunFolderSweep()
    expect(await sweepStaleRunFolders(dir, { bootMs: 0, oldestOwnMs: undefined })).toBe(0)
    // The real times: this test's process started before the folders were made.
    resetRunFolderSweep()
    expect(await sweepStaleRunFolders(dir)).toBe(0)
    expect(readdirSync(dir).sort()).toEqual([...kept, names.cli, names.overlay, names.session].sort())
    resetRunFolderSweep()
    expect(await sweepStaleRunFolders(dir, { bootMs: 0, oldestOwnMs: Date.now() + 60_000 })).toBe(3)
    expect(readdirSync(dir).sort()).toEqual([...kept].sort())
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

  test("an untagged folder of an older anvil made before the boot goes with the next confined command (boot moved by a time namespace)", async () => {
    const root = project({ "a.txt": "a\n" })
    const tmp = tempDir("anvil-tmp-")
    const home = tempDir("anvil-home-")
    mkdirSync(join(tmp, "anvil-cli-Old001", "deep"), { recursive: true })
    mkdirSync(join(tmp, "anvil-other-Old002"))
    // The boot, as seen inside: one second before the command starts, after the folders were made.
    await Bun.sleep(2500)
    const uptime = Math.floor(Number(readFileSync("/proc/uptime", "latin1").split(" ")[0]))
    const unshare = ["--user", "--map-root-user", "--time", `--boottime=-${uptime - 1}`, "--fork", binary]
    const ran = await runBinary("unshare", [...unshare, "tool", "bash", JSON.stringify({ command: "echo ran" })], root, { HOME: home, TMPDIR: tmp })
    expect(JSON.parse(ran.out).data.stdout).toBe("ran")
    expect(readdirSync(tmp)).toEqual(["anvil-other-Old002"])
  })
})
