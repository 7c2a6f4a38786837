import { describe, expect, test } from "bun:test"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { spilledEnvelope } from "../../src/output/observation-truncator.ts"
import { runBinary } from "../support/binary.ts"
import { gitEnv, gitHome, gitRepo, lines } from "../support/git-repo.ts"
import { callTool } from "../support/harness.ts"

describe("a spilled envelope holds a long data text once", () => {
  test("git_diff over the budget: the diff is in data.content only; the text names it there, its copy beside stays whole", async () => {
    const home = gitHome()
    const root = gitRepo(home, { "big.txt": lines("line", 6000) }, { commit: "init" })
    writeFileSync(join(root, "big.txt"), lines("changed", 6000))
    const { envelope } = await callTool(root, "git_diff", {}, { env: gitEnv(home) })
    const t = envelope.data.truncation as { full_output_path: string; full_output_text_path: string }
    const raw = readFileSync(join(root, t.full_output_path), "utf8")
    const saved = JSON.parse(raw)
    const diff = saved.data.content as string
    expect(diff).toStartWith("diff --git a/big.txt b/big.txt\n")
    expect(diff).toEndWith("\n+changed 6000")
    expect(saved.text).toBe(`# GitDiff\n\n1 file with unstaged changes: +6000 -6000.\n\n[data.content: ${diff.length.toLocaleString("en-US")} characters]`)
    // Once in the JSON: its size is about one diff, not two.
    expect(raw.length).toBeLessThan(JSON.stringify(diff).length * 1.2)
    expect(raw.split("+changed 5999").length - 1).toBe(1)
    // What the model pages through is the text whole.
    expect(readFileSync(join(root, t.full_output_text_path), "utf8")).toContain(diff.trimEnd())
  })

  test("only a long data text the text repeats whole is replaced; anything else is kept as it was", () => {
    const long = "x".repeat(5000)
    const base = { status: "success" as const, stats: { time_ms: 0 }, context: { cwd: ".", params_input: {} } }
    const repeated = spilledEnvelope({ ...base, data: { content: long, note: "short" }, text: `# T\n\n${long}\nshort` })
    expect(repeated.text).toBe("# T\n\n[data.content: 5,000 characters]\nshort")
    expect(repeated.data).toEqual({ content: long, note: "short" })
    const different = { ...base, data: { content: long }, text: `# T\n\n${long.slice(1)}` }
    expect(spilledEnvelope(different)).toBe(different)
    const short = { ...base, data: { content: "abc" }, text: "abc" }
    expect(spilledEnvelope(short)).toBe(short)
  })

  test("through the binary: git_diff's spill JSON has the diff once", async () => {
    const home = gitHome()
    const root = gitRepo(home, { "big.txt": lines("line", 6000) }, { commit: "init" })
    writeFileSync(join(root, "big.txt"), lines("changed", 6000))
    const r = await runBinary(["tool", "git_diff", "{}"], { cwd: root, env: gitEnv(home) })
    const envelope = JSON.parse(r.stdout)
    const raw = readFileSync(join(root, envelope.data.truncation.full_output_path), "utf8")
    expect(raw.split("changed 5999").length - 1).toBe(1)
  })
})
