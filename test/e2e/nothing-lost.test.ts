import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { runBinary } from "../support/binary.ts"
import { tempDir } from "../support/harness.ts"

/** Every cut through the compiled binary states the total and where the rest is. */

const LINES = Array.from({ length: 20_000 }, (_, i) => `line ${String(i).padStart(5, "0")} of text`).join("\n")
let server: ReturnType<typeof Bun.serve>
beforeAll(() => {
  server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response(LINES, { headers: { "content-type": "text/plain" } }) })
})
afterAll(() => server.stop(true))

const tool = async (cwd: string, name: string, params: unknown) => {
  const r = await runBinary(["tool", name, JSON.stringify(params)], { cwd, env: { HOME: tempDir() } })
  return JSON.parse(r.stdout) as { status: string; text: string; data: Record<string, unknown> }
}

describe("nothing lost, through dist/anvil", () => {
  test("fetch: the text past max_size_kb is saved whole and named with its size", async () => {
    const root = tempDir()
    const e = await tool(root, "fetch", { url: `http://127.0.0.1:${server.port}/`, max_size_kb: 2 })
    expect(e.status).toBe("partial")
    const saved = e.data.full_output_path as string
    expect(e.text).toContain(`All the text (${LINES.length} bytes): ${saved}`)
    expect(e.text).toContain(`TRUNCATED: first 2 KB of ${LINES.length} bytes shown`)
    expect(readFileSync(join(root, saved), "utf8")).toBe(LINES)
    expect(e.text).toMatch(/\* Read\(path="[^"]+", offset=\d+, limit=200\)/)
  })

  test("grep: the lines a folder search leaves out of a file are all saved by searching that file", async () => {
    const root = tempDir()
    writeFileSync(join(root, "many.txt"), Array.from({ length: 300 }, (_, i) => `hit ${i}`).join("\n") + "\n")
    writeFileSync(join(root, "one.txt"), "hit once\n")
    const all = await tool(root, "grep", { pattern: "hit" })
    const saved = readFileSync(join(root, all.data.full_output_path as string), "utf8")
    expect(saved).toContain('  … 100 more matching lines not kept here: Grep with path "many.txt" saves them all')
    const file = await tool(root, "grep", { pattern: "hit", path: "many.txt" })
    const lines = readFileSync(join(root, file.data.full_output_path as string), "utf8").split("\n")
    expect(lines).toEqual(["many.txt (300 matches)", ...Array.from({ length: 300 }, (_, i) => `  ${i + 1}: hit ${i}`), ""])
  })

  test("git_log: a cut history states its total and asks for enough to see all of it", async () => {
    const root = tempDir()
    const env = { ...process.env, HOME: tempDir(), GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" }
    Bun.spawnSync(["git", "init", "-q"], { cwd: root, env })
    for (let i = 0; i < 30; i++) Bun.spawnSync(["git", "commit", "-q", "--allow-empty", "-m", `c${i}`], { cwd: root, env })
    const e = await tool(root, "git_log", { limit: 5, oneline: true })
    expect(e.text).toContain("Showing the newest 5 commits of 30 (TRUNCATED: 25 older not shown).")
    expect(e.data.total_commits).toBe(30)
    expect(e.text).toContain("* GitLog(limit=30, oneline=true)")
  })

  test("write: the cut diff of an overwrite is saved whole; the write stays a success", async () => {
    const root = tempDir()
    writeFileSync(join(root, "anvil.json"), '{ "tools": { "write": { "max_diff_lines": 20 } } }\n')
    const lines = (word: string) => Array.from({ length: 100 }, (_, i) => `${word} ${i}`).join("\n") + "\n"
    writeFileSync(join(root, "big.txt"), lines("old"))
    const r = await runBinary(["tool", "write", JSON.stringify({ path: "big.txt", content: lines("new") })], { cwd: root, env: { HOME: tempDir() } })
    const e = JSON.parse(r.stdout)
    expect(e.status).toBe("success")
    const saved = e.data.full_output_path as string
    expect(e.text).toContain(`All the diff of big.txt (203 lines): ${saved}`)
    const diff = readFileSync(join(root, saved), "utf8")
    expect(diff).toContain("-old 99\n")
    expect(diff).toContain("+new 99")
  })
})
