import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { quoteArg, runShell, type ShellRequest } from "../../src/shell/run-shell.ts"
import { project, session } from "../support/harness.ts"
import { shellRequest } from "./shell-request.ts"

const ask = shellRequest

describe("runShell (shell domain)", () => {
  const root = project({ "sub/file.txt": "x\n" })
  const s = session(root)
  const run = (more: Partial<ShellRequest>) => s.run(runShell(ask(more)))
  const failure = (more: Partial<ShellRequest>) => s.run(Effect.flip(runShell(ask(more))))

  test("a command line runs in the folder asked for; both streams and the exit code come back", async () => {
    const r = await run({ command: "pwd; echo oops >&2; exit 3", workdir: "sub" })
    expect(r.outcome).toMatchObject({ exitCode: 3, timedOut: false, heldOpen: false })
    expect(r.cwd).toBe("sub")
    expect(r.stdout).toMatchObject({ shown: { text: join(root, "sub"), truncated: false }, lines: 1, path: null })
    expect(r.stderr).toMatchObject({ shown: { text: "oops", truncated: false }, totalBytes: 5 })
    expect(r.sandbox).toEqual({ mode: "off", refusals: [], envWithheld: [] })
  })

  test("an argv runs without a shell; output over the budget is shown head and tail and saved whole", async () => {
    expect((await run({ args: ["echo", "a b", "$HOME"] })).stdout.shown.text).toBe("a b $HOME")
    const big = await run({ command: "seq 1 20000", budgetBytes: 1000, budgetLines: 40 })
    expect(big.stdout.shown.truncated).toBe(true)
    expect(big.stdout.shown.text).toStartWith("1\n2\n")
    expect(big.stdout.shown.text).toEndWith("19999\n20000")
    expect(big.stdout.lines).toBe(20000)
    expect(big.stdout.path).not.toBeNull()
    const saved = join(root, big.stdout.path!)
    expect(existsSync(saved)).toBe(true)
    expect(readFileSync(saved, "utf8").split("\n")).toHaveLength(20001)
  })

  test("a cut at the edge of the capture: no UTF-8 character split or lost, the unseen bytes and lines exactly what is left out", async () => {
    // 3-byte characters: half of the budget (500) falls inside one at both ends.
    const wide = await run({ command: "i=0; while [ $i -lt 2000 ]; do printf '漢'; i=$((i+1)); done", budgetBytes: 1000, budgetLines: 40 })
    const saved = readFileSync(join(root, wide.stdout.path!))
    const { text, omittedFromByte, omittedBytes } = wide.stdout.shown
    const [head, tail] = text.split(/\n\[… .* omitted …\]\n/) as [string, string]
    expect(text).not.toContain("\uFFFD")
    expect(Buffer.from(head)).toEqual(saved.subarray(0, omittedFromByte))
    expect(Buffer.from(tail)).toEqual(saved.subarray(omittedFromByte + omittedBytes))
    // Lines of 5 bytes: the tail starts exactly at a line start, right at the capture's edge.
    const even = await run({ command: "yes abcd | head -n 5000", budgetBytes: 1000, budgetLines: 1000 })
    expect(even.stdout.shown).toMatchObject({ omittedFromLine: 100, omittedToLine: 4900, omittedLines: 4800, omittedBytes: 24000 })
  })

  test("tagged errors: a missing or non-folder workdir, a program that is not there, a timeout before any output", async () => {
    expect(await failure({ command: "true", workdir: "nope" })).toMatchObject({ _tag: "WorkdirNotFound", cwd: "nope", opened: false })
    expect(await failure({ command: "true", workdir: "sub/file.txt" })).toMatchObject({ _tag: "WorkdirNotDirectory", cwd: "sub/file.txt" })
    expect(await failure({ args: ["no-such-program-here"] })).toMatchObject({ _tag: "CommandNotStarted", kind: "not_found", file: "no-such-program-here" })
    expect(await failure({ command: "sleep 5", timeoutMs: 200 })).toMatchObject({ _tag: "CommandTimedOut", timeoutMs: 200, maxTimeoutMs: 60_000, cwd: "." })
  })

  test("quoteArg leaves plain words alone and single-quotes the rest", () => {
    expect(["ls", "-la", "a b", "it's"].map(quoteArg).join(" ")).toBe(`ls -la 'a b' 'it'\\''s'`)
  })
})
