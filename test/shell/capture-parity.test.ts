import { describe, expect, test } from "bun:test"
import { Effect, Fiber } from "effect"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { runShell, type ShellRequest, type ShellRun } from "../../src/shell/run-shell.ts"
import { project, session } from "../support/harness.ts"
import { shellRequest } from "./shell-request.ts"

// The command writing its output straight into the spill files ("file", the default) must answer exactly as the
// pipe through anvil's memory ("pipe", the fallback) did: same text shown, same totals, same notes, same saved bytes.

const ask = (more: Partial<ShellRequest>): ShellRequest => shellRequest({ drainMs: 300, budgetBytes: 1000, budgetLines: 20, ...more })

/** A run with what varies between two runs of one command (timing, pid, file names) replaced by what must not. */
const comparable = (root: string, r: ShellRun) => {
  const saved = (path: string | null) => (path === null ? null : readFileSync(join(root, path)).toString("base64"))
  const { durationMs: _d, pid: _p, ...outcome } = r.outcome
  return { ...r, outcome, stdout: { ...r.stdout, path: saved(r.stdout.path) }, stderr: { ...r.stderr, path: saved(r.stderr.path) } }
}

/** The spill folder's files other than its .gitignore. */
const spills = (root: string) => {
  const dir = join(root, ".anvil", "tool-output")
  return existsSync(dir) ? readdirSync(dir).filter((n) => n !== ".gitignore").sort() : []
}

const cases: ReadonlyArray<readonly [string, Partial<ShellRequest>]> = [
  ["no output", { command: "true" }],
  ["small output on both streams, exit code", { command: "echo hello; echo oops >&2; exit 4" }],
  ["argv without a shell", { args: ["printf", "%s\\n", "a b", "$HOME"] }],
  ["no trailing newline", { command: "printf 'one\\ntwo'" }],
  ["long output without a trailing newline", { command: "seq 1 3000 | tr -d '\\n' ; printf 'x\\ny'" }],
  ["one byte under, at and over the capacity (500)", { command: "head -c 499 /dev/zero | tr '\\0' a; echo; head -c 500 /dev/zero | tr '\\0' b >&2" }],
  ["just over both ends together", { command: "head -c 1001 /dev/zero | tr '\\0' c" }],
  ["at and over the line budget", { command: "seq 1 20; seq 1 21 >&2" }],
  ["many short lines", { command: "seq 1 100000" }],
  ["stdout and stderr interleaved", { command: "i=0; while [ $i -lt 400 ]; do echo out $i; echo err $i >&2; i=$((i+1)); done" }],
  ["binary output (NUL bytes)", { command: "printf 'a\\000b\\n'; head -c 5000 /dev/zero" }],
  ["invalid UTF-8 and multibyte characters cut at the edges", { command: "i=0; while [ $i -lt 300 ]; do printf 'é€😀\\377\\376 %d\\n' $i; i=$((i+1)); done" }],
  ["colours and carriage returns", { command: "printf '\\033[31mred\\033[0m\\n'; i=0; while [ $i -lt 200 ]; do printf 'progress %d\\r' $i; i=$((i+1)); done; echo done" }],
  ["a saved copy capped at max_spill_bytes", { command: "seq 1 5000", maxSpillBytes: 3000 }],
  ["a cut stream that fit in memory is still saved", { command: "seq 1 50", budgetBytes: 4000, budgetLines: 20 }],
  ["the timeout after some output", { command: "seq 1 3000; sleep 10", timeoutMs: 700 }],
  ["a background process holding the output", { command: "sleep 3 & echo started" }],
  ["a background process that left the group holding the output", { command: "setsid sleep 3 & echo started" }],
  ["a background process with its output redirected", { command: "sleep 0.2 >/dev/null 2>&1 & echo started" }],
  ["a process killed by a signal mid-output", { command: "seq 1 2000; kill -9 $$" }],
]

describe("file capture answers as the pipe capture did", () => {
  const root = project({ "sub/file.txt": "x\n" })
  const s = session(root)
  const run = (more: Partial<ShellRequest>) => s.run(runShell(ask(more)))

  for (const [name, request] of cases) {
    test(name, async () => {
      const before = spills(root)
      const pipe = await run({ ...request, capture: "pipe" })
      const file = await run({ ...request, capture: "file" })
      expect(comparable(root, file)).toEqual(comparable(root, pipe))
      // Only a stream shown cut leaves a file; the others were removed again.
      const kept = [file.stdout.path, file.stderr.path].filter((p) => p !== null).length
      const pipeKept = [pipe.stdout.path, pipe.stderr.path].filter((p) => p !== null).length
      expect(spills(root).length - before.length).toBe(kept + pipeKept)
    })
  }

  test("a timeout before any output is the same error", async () => {
    const failure = (capture: "file" | "pipe") => s.run(Effect.flip(runShell(ask({ command: "sleep 5", timeoutMs: 200, capture }))))
    expect(await failure("file")).toEqual(await failure("pipe"))
  })

  test("cancelled mid-output: the process group ends, the call returns at once, no file is left but a large stream's", async () => {
    const before = spills(root)
    const started = performance.now()
    // A duration no other process on the machine sleeps for, so the check below sees only this test's sleep.
    const nap = `30.${process.pid}`
    await s.run(
      Effect.gen(function* () {
        const fiber = yield* Effect.forkChild(runShell(ask({ command: `echo small >&2; seq 1 3000; sleep ${nap}` })))
        yield* Effect.sleep("400 millis")
        yield* Fiber.interrupt(fiber)
      }),
    )
    expect(performance.now() - started).toBeLessThan(5000)
    expect(Bun.spawnSync(["pgrep", "-f", `^sleep ${nap.replace(".", "\\.")}$`]).stdout.toString().trim()).toBe("")
    // The 3000 lines are larger than both ends together, as a pipe capture would have saved them; stderr is gone.
    expect(spills(root).filter((n) => !before.includes(n))).toEqual([expect.stringMatching(/_Bash(_\d+)?\.stdout\.txt$/)])
  })

  test("a spill folder that cannot be written falls back to the pipe, with the same answer", async () => {
    const other = project({ "blocker.txt": "a file, so no folder can be made under it\n" })
    const cut = session(other, { configOverrides: { sandbox: { mode: "off" }, output: { dir: "blocker.txt/spills" } } })
    const r = await cut.run(runShell(ask({ command: "seq 1 3000" })))
    expect(r.stdout.shown.truncated).toBe(true)
    expect(r.stdout.lines).toBe(3000)
    expect(r.stdout.path).toBeNull()
    expect(r.stdout.spillProblem).toContain("could not be saved")
    expect(comparable(other, r)).toEqual(comparable(other, await cut.run(runShell(ask({ command: "seq 1 3000", capture: "pipe" })))))
  })
})

describe("file capture in the command sandbox (bubblewrap)", () => {
  const root = project({ "anvil.json": "{}\n" })
  const s = session(root, { configOverrides: { sandbox: { mode: "workspace-write" } } })
  const run = (more: Partial<ShellRequest>) => s.run(runShell(ask(more)))

  test("the same answer, refusals read from the saved output included", async () => {
    if (!Bun.which("bwrap")) throw new Error("bubblewrap (bwrap) is not installed: apt-get install bubblewrap")
    for (const command of ["seq 1 5000; echo oops >&2", "i=0; while [ $i -lt 300 ]; do echo out $i; echo err $i >&2; i=$((i+1)); done", "seq 1 3000 >&2; echo x > /etc/anvil-test-denied"]) {
      const pipe = await run({ command, capture: "pipe" })
      const file = await run({ command, capture: "file" })
      expect(file.sandbox.mode).toBe("workspace-write")
      expect(comparable(root, file)).toEqual(comparable(root, pipe))
      if (command.includes("/etc/")) expect(file.sandbox.refusals.length).toBeGreaterThan(0)
    }
  })
})
