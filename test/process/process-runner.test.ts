import { describe, expect, test } from "bun:test"
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
