import { afterAll, describe, expect, test } from "bun:test"
import { readdirSync, readFileSync } from "node:fs"
import { adoptedChildren, adoptOrphans, forgetChild, noteChild } from "../../src/process/subreaper.ts"
import { statOf } from "../../src/process/process-table.ts"

const linux = process.platform === "linux"
const pause = new Int32Array(new SharedArrayBuffer(4))

/** Waits without letting the event loop run (so Bun cannot reap meanwhile) until `pid` is a zombie; false past 5 s. */
const blockUntilZombie = (pid: number): boolean => {
  for (let i = 0; i < 500; i++) {
    if (statOf(pid)?.state === "Z") return true
    Atomics.wait(pause, 0, 0, 10)
  }
  return false
}

/** This process's children as /proc lists them. */
const children = (): Array<number> =>
  readdirSync("/proc/self/task").flatMap((task) => {
    try {
      return readFileSync(`/proc/self/task/${task}/children`, "latin1").split(" ").filter(Boolean).map(Number)
    } catch {
      return []
    }
  })

// A child this anvil started and notes, as the process runner does: it shows how the runtime waits for its children.
const noted = linux ? Bun.spawn(["sleep", "30"], { detached: true, stdio: ["ignore", "ignore", "ignore"] }) : undefined
afterAll(() => {
  noted?.kill("SIGKILL")
})

describe.if(linux)("the subreaper's reaping", () => {
  test("an ended child Bun started itself (not through the process runner, in a session of its own) is left to Bun: its exited settles with its code", async () => {
    expect(adoptOrphans()).toBe(true)
    noteChild(noted!.pid)
    const own = Bun.spawn(["setsid", "sh", "-c", "exit 3"], { stdio: ["ignore", "ignore", "ignore"] })
    expect(blockUntilZombie(own.pid)).toBe(true)
    // Before the fix this reaped it, and Bun's own wait then threw ECHILD with `exited` never settling.
    expect(adoptedChildren().map((c) => c.pid)).not.toContain(own.pid)
    expect(statOf(own.pid)?.state).toBe("Z")
    const code = await Promise.race([own.exited, Bun.sleep(10_000).then(() => "never")])
    expect(code).toBe(3)
  })

  test("an adopted child (its parent gone, in a session of its own) is still listed while it lives and reaped once it ended", async () => {
    adoptOrphans()
    noteChild(noted!.pid)
    const parent = Bun.spawn(["sh", "-c", "setsid sleep 30 >/dev/null 2>&1 & echo $!"], { stdout: "pipe", stderr: "ignore" })
    const orphan = Number((await new Response(parent.stdout).text()).trim())
    await parent.exited
    forgetChild(parent.pid)
    // Handed to this process once its parent is gone, in its own session once setsid has run.
    for (let i = 0; i < 500 && !(children().includes(orphan) && statOf(orphan)?.session === orphan); i++) await Bun.sleep(10)
    expect(adoptedChildren().map((c) => c.pid)).toContain(orphan)
    process.kill(orphan, "SIGKILL")
    expect(blockUntilZombie(orphan)).toBe(true)
    expect(adoptedChildren().map((c) => c.pid)).not.toContain(orphan)
    expect(statOf(orphan)).toBeUndefined()
  })
})
