import { describe, expect, test } from "bun:test"
import { runCommandHook } from "../../src/plugins/command-hook.ts"
import { project } from "../support/harness.ts"

describe("command hooks: the input on stdin", () => {
  test("a hook that exits without reading a large input: its answer counts, and no stray EPIPE rejection", async () => {
    const stray: Array<unknown> = []
    const onStray = (e: unknown) => void stray.push(e)
    process.on("unhandledRejection", onStray)
    try {
      const root = project()
      const big = JSON.stringify({ tool_response: { text: "x".repeat(2_000_000) } })
      for (const command of ["echo refused >&2; exit 2", "echo '{\"decision\":\"block\"}'"]) {
        const r = await runCommandHook({ command, cwd: root, env: { PATH: process.env.PATH }, stdin: big, timeoutMs: 10_000 })
        expect(r.timedOut).toBe(false)
        expect(r.exitCode === 2 ? r.stderr.trim() : r.stdout.trim()).toBe(r.exitCode === 2 ? "refused" : '{"decision":"block"}')
      }
      // A hook that answers first and reads afterwards does not wait for the time limit.
      const late = await runCommandHook({ command: "head -c 100000 /dev/zero | tr '\\\\0' a; cat >/dev/null; exit 0", cwd: root, env: { PATH: process.env.PATH }, stdin: big, timeoutMs: 10_000 })
      expect(late).toMatchObject({ exitCode: 0, timedOut: false })
      // Read whole (an answer may carry a large new input); only past STDOUT_LIMIT is it cut, and said to be.
      expect(late.stdout.length).toBe(100_000)
      expect(late.stdoutCut).toBeUndefined()
      // Done when it exits: what it left running in the background (holding the output pipe) does not hold the
      // call, and is ended with it.
      const started = performance.now()
      const bg = await runCommandHook({ command: "sleep 30 & echo started; echo note >&2", cwd: root, env: { PATH: process.env.PATH }, stdin: "{}", timeoutMs: 20_000 })
      expect(performance.now() - started).toBeLessThan(10_000)
      expect(bg).toMatchObject({ exitCode: 0, timedOut: false, stdout: "started\n", stderr: "note\n" })
      await Bun.sleep(50)
      expect(stray).toEqual([])
    } finally {
      process.off("unhandledRejection", onStray)
    }
  })
})
