import { describe, expect, test } from "bun:test"
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { cagesAvailable } from "../../src/process/tree-cgroup.ts"
import { Effect } from "effect"
import { managedCount, stopAllManaged } from "../../src/process/managed-registry.ts"
import { ProcessRunner, type OutputSink, type ProcessSpec } from "../../src/process/process-runner.ts"

const PATH = process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin"
const ignore: OutputSink = { write: () => undefined }

const run = (spec: Partial<ProcessSpec> & Pick<ProcessSpec, "args">) =>
  Effect.runPromise(
    Effect.gen(function* () {
      const runner = yield* ProcessRunner
      return yield* runner.run({
        file: "/bin/sh",
        cwd: process.cwd(),
        env: { PATH },
        timeoutMs: 10_000,
        killGraceMs: 300,
        drainMs: 100,
        stdout: ignore,
        stderr: ignore,
        ...spec,
      })
    }).pipe(Effect.provide(ProcessRunner.layer)),
  )

describe("ProcessRunner", () => {
  test("a slow consumer pauses the stream: the next chunk waits until the previous write settled", async () => {
    let busy = false
    let overlapped = false
    let bytes = 0
    const slow: OutputSink = {
      write: (chunk) => {
        if (busy) overlapped = true
        busy = true
        bytes += chunk.length
        return new Promise((resolve) =>
          setTimeout(() => {
            busy = false
            resolve()
          }, 1),
        )
      },
    }
    const outcome = await run({ args: ["-c", "head -c 4000000 /dev/zero"], stdout: slow })
    expect(outcome.exitCode).toBe(0)
    expect(bytes).toBe(4_000_000)
    expect(overlapped).toBe(false)
  })

  test("stdout and stderr go to their own sinks", async () => {
    let out = ""
    let err = ""
    const dec = new TextDecoder()
    await run({
      args: ["-c", "echo to-out; echo to-err >&2"],
      stdout: { write: (c) => void (out += dec.decode(c)) },
      stderr: { write: (c) => void (err += dec.decode(c)) },
    })
    expect([out, err]).toEqual(["to-out\n", "to-err\n"])
  })

  test("a pipe held by a process outside the group (setsid) is cut off after the drain; the run still ends", async () => {
    const outcome = await run({ args: ["-c", "setsid sleep 5 & echo hi"] })
    expect(outcome).toMatchObject({ exitCode: 0, heldOpen: true, timedOut: false })
  })

  // Whether a background process still writes to an output file is asked of the cage where there is one (its members
  // are the tree, wherever they went), of nothing where anvil adopted no orphan, else of all of /proc.
  test.each([["in a cage", 40], ["without a cage", 0]])("an output file held by a background process that left the group and cleared its environment is waited for, then that process ended (%s)", async (_, max) => {
    const dir = mkdtempSync(join(tmpdir(), "anvil-held-"))
    const out = openSync(join(dir, "out"), "w+")
    try {
      const outcome = await run({
        args: ["-c", "env -i /usr/bin/setsid /bin/sh -c 'sleep 0.3; echo late; sleep 5' & echo early"],
        stdout: { fd: out },
        stderr: { fd: out },
        drainMs: 1000,
        wrap: (c) => ({ ...c, maxProcesses: max }),
      })
      // A cage holds every process of the tree; without one, anvil adopts the orphan when its shell ends, and /proc
      // is searched (the mark is gone, the group left: the adopted process is what finds it).
      expect(outcome).toMatchObject({ exitCode: 0, heldOpen: true, timedOut: false })
      expect(readFileSync(join(dir, "out"), "utf8")).toBe("early\nlate\n")
      if (max > 0) expect(cagesAvailable()).toBe(true)
    } finally {
      closeSync(out)
      rmSync(dir, { recursive: true, force: true })
    }
  })

  test("a program that cannot be found fails with ENOENT before anything runs", async () => {
    const exit = await Effect.runPromiseExit(
      Effect.gen(function* () {
        const runner = yield* ProcessRunner
        return yield* runner.run({
          file: "anvil-no-such-program",
          args: [],
          cwd: process.cwd(),
          env: { PATH },
          timeoutMs: 1000,
          killGraceMs: 100,
          drainMs: 100,
          stdout: ignore,
          stderr: ignore,
        })
      }).pipe(Effect.provide(ProcessRunner.layer)),
    )
    expect(exit._tag).toBe("Failure")
    expect(JSON.stringify(exit)).toContain("ENOENT")
  })

  test("leavesNothing: a program that ended with its group is forgotten at once; one that left a process in its group is kept and ended with anvil", async () => {
    await stopAllManaged(0)
    const kept = await run({ args: ["-c", "true"] })
    expect(kept.exitCode).toBe(0)
    expect(managedCount()).toBe(1)
    await stopAllManaged(0)
    await run({ args: ["-c", "true"], leavesNothing: true })
    expect(managedCount()).toBe(0)
    // A child still in the group (its output closed, so the run itself ends): the tree stays registered.
    await run({ args: ["-c", "sleep 30 >/dev/null 2>&1 & echo started"], leavesNothing: true })
    expect(managedCount()).toBe(1)
    await stopAllManaged(0)
    expect(managedCount()).toBe(0)
  })
})
