import { describe, expect, test } from "bun:test"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { gitCommand } from "../../src/git/git-command.ts"
import { parseShownPath, showPath } from "../../src/workspace/path-bytes.ts"
import { git, gitHome, gitRepo, lines } from "../support/git-repo.ts"
import { callTool, project } from "../support/harness.ts"

/**
 * A name holding a control character (a line feed, a tab) is shown quoted as git quotes it, so a listing never
 * reads as two entries; and the quoted name git_status prints for a name that is not UTF-8 is one git_add and
 * git_diff take back (git is handed that name's bytes, not U+FFFD).
 */

const NEWLINE = '"new\\nline.txt"'

describe("names with control characters", () => {
  test("showPath quotes every control character and parseShownPath gives the name back", () => {
    for (let c = 0; c < 0x20; c++) {
      if (c === 0) continue
      const name = `a${String.fromCharCode(c)}b.txt`
      const shown = showPath(name)
      expect(shown.startsWith('"') && !/[\x00-\x1f]/.test(shown)).toBe(true)
      expect(parseShownPath(shown)).toBe(name)
    }
    expect(showPath("a\x7fb")).toBe('"a\\177b"')
    expect(showPath("new\nline.txt")).toBe(NEWLINE)
    expect(showPath("tab\there")).toBe('"tab\\there"')
    // Names without one stay as they are (a backslash alone needs no quotes).
    expect(showPath("sp ace\\x.txt")).toBe("sp ace\\x.txt")
  })

  test("list, glob and grep (both engines) print one line per name, and read and edit take the printed name back", async () => {
    const root = project({ "new\nline.txt": "hello\n", "d\ne/in.txt": "hello\n", "ok.txt": "hello\n" }, { marker: false })
    const listed = await callTool(root, "list", {})
    expect(listed.envelope.text).toContain(`[FILE] ${NEWLINE}`)
    expect(listed.envelope.text).toContain('[DIR] "d\\ne"')
    const globbed = await callTool(root, "glob", { pattern: "**/*.txt" })
    expect(globbed.envelope.data.paths).toEqual(['"d\\ne/in.txt"', NEWLINE, "ok.txt"])
    for (const engine of ["rg", "builtin"]) {
      const grep = (await callTool(root, "grep", { pattern: "hello", output_mode: "files_with_matches" }, { configOverrides: { tools: { grep: { engine } } } })).envelope
      expect([...(grep.data.files as Array<string>)].sort()).toEqual(['"d\\ne/in.txt"', NEWLINE, "ok.txt"])
      expect(grep.text).not.toMatch(/^line\.txt$/m)
    }
    const counted = (await callTool(root, "grep", { pattern: "hello", output_mode: "count" })).envelope
    expect(counted.data.counts).toContainEqual({ file: NEWLINE, count: 1 })
    const read = (await callTool(root, "read", { path: NEWLINE })).envelope
    expect(read.text.split("\n")[0]).toBe(`# Read: ${NEWLINE}`)
    expect((await callTool(root, "edit", { path: NEWLINE, old_string: "hello", new_string: "bye" })).envelope.status).toBe("success")
  })

  test("ripgrep's file list keeps every such name whole where its output arrives in pieces cut at a line feed", async () => {
    const files: Record<string, string> = {}
    // About 150 KB of `path\0count\n` records: several pipe reads, each ending at a line feed, most inside a name.
    for (let i = 0; i < 1000; i++) files[`${String(i).padStart(4, "0")}\n${"x".repeat(120)}.txt`] = "hello\n"
    const root = project(files, { marker: false })
    const grep = (await callTool(root, "grep", { pattern: "hello", output_mode: "files_with_matches", max_matches: 1000 })).envelope
    // The answer is too long for the model and is saved whole: the saved envelope holds every file.
    const saved = JSON.parse(readFileSync(join(root, (grep.data.truncation as { full_output_path: string }).full_output_path), "utf8"))
    expect({ truncated: saved.data.truncated, total: saved.data.total_files }).toEqual({ truncated: false, total: 1000 })
    expect([...(saved.data.files as Array<string>)].sort()).toEqual(Object.keys(files).map(showPath).sort())
  })
})

describe("git_add and git_diff with a name that is not UTF-8 (git's command line)", () => {
  test("an argument holding such bytes is handed over by sh in printf's octal form; others run git itself", async () => {
    const setup = { file: "/usr/bin/git", env: {} }
    // Not a read (whose guard runs through sh too, git-config-programs.test.ts): git itself.
    expect(gitCommand(setup, "/r", ["add", "-A", "--", "plain\\x"]).file).toBe("/usr/bin/git")
    expect(gitCommand(setup, "/r", ["add", "-A", "--", "plain\\x"]).args.at(-1)).toBe("plain\\x")
    const odd = gitCommand(setup, "/r", ["add", "-A", "--", ":(top,literal)caf\udce9\\x\n"])
    expect(odd.file).toBe("/bin/sh")
    expect(odd.args.at(-1)).toBe(":(top,literal)caf\\0351\\\\x\n")
    // The script rebuilds the exact bytes (a backslash and a final line feed kept) and execs the program with them.
    const probe = Bun.spawnSync([odd.file, ...odd.args.slice(0, 3), "/usr/bin/printf", "%s", ...odd.args.slice(4).slice(-1)], { stdout: "pipe" })
    expect(Buffer.from(probe.stdout).equals(Buffer.concat([Buffer.from(":(top,literal)caf"), Buffer.of(0xe9), Buffer.from("\\x\n")]))).toBe(true)
  })

  test("the quoted name git_status prints is the path git_add stages and git_diff shows", async () => {
    const home = gitHome()
    const root = gitRepo(home, { "plain.txt": lines("plain") })
    const cafe = Buffer.concat([Buffer.from(`${root}/caf`), Buffer.of(0xe9), Buffer.from(".txt")])
    const other = Buffer.concat([Buffer.from(`${root}/caf`), Buffer.of(0xea), Buffer.from(".txt")])
    writeFileSync(cafe, "one\n")
    writeFileSync(other, "two\n")
    git(root, home, ["add", "-A"])
    git(root, home, ["commit", "-q", "-m", "start"])
    writeFileSync(cafe, "ONE\n")
    writeFileSync(other, "TWO\n")
    const env = { HOME: home, ANVIL_GIT_BACKEND: "cli" }
    const status = (await callTool(root, "git_status", { short: true }, { env })).envelope
    expect(status.text).toContain(' M "caf\\351.txt"')
    const diff = (await callTool(root, "git_diff", { path: '"caf\\351.txt"' }, { env })).envelope
    expect(diff.text.split("\n")[0]).toBe('# GitDiff: "caf\\351.txt"')
    expect(diff.data.content).toContain("-one\n+ONE")
    expect(diff.data.content).not.toContain("TWO")
    const added = (await callTool(root, "git_add", { paths: ['"caf\\351.txt"'] }, { env })).envelope
    expect(added.status).toBe("success")
    expect(added.text).toContain('M  "caf\\351.txt"')
    // Only that file is staged: its neighbour differing in the one byte is not.
    expect(git(root, home, ["status", "--porcelain"])).toBe('M  "caf\\351.txt"\n M "caf\\352.txt"\n')
    const staged = (await callTool(root, "git_diff", { path: '"caf\\351.txt"', staged: true }, { env })).envelope
    expect(staged.data.content).toContain("+ONE")
    const missing = (await callTool(root, "git_diff", { path: '"caf\\353.txt"' }, { env })).envelope
    expect(missing.text).toContain("no file or folder")
    const commit = (await callTool(root, "git_commit", { message: "cafe" }, { env })).envelope
    expect(commit.text).toContain(' modify "caf\\351.txt"')
  })
})
