import { describe, expect, test } from "bun:test"
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { decodePath, encodePath, parseShownPath, showPath } from "../../src/workspace/path-bytes.ts"
import { runBinary } from "../support/binary.ts"
import { git, gitHome, gitRepo, lines } from "../support/git-repo.ts"
import { callTool, project, type CallOptions } from "../support/harness.ts"

/**
 * File names that are not UTF-8 are shown quoted as git quotes them
 * ("bad\377name.txt"), by list, glob and grep alike, and the same string
 * given back to read, edit, multiedit or write names that very file.
 */

const BUILTIN: CallOptions = { configOverrides: { tools: { grep: { engine: "builtin" } } } }
const bytesOf = (root: string, ...parts: Array<string | number>) =>
  Buffer.concat([Buffer.from(`${root}/`), ...parts.map((p) => (typeof p === "number" ? Buffer.of(p) : Buffer.from(p)))])

const fixture = () => {
  const root = project({ "ok.txt": "hello ok\n" }, { marker: false })
  writeFileSync(bytesOf(root, "bad", 0xff, "name.txt"), "hello one\nworld\n")
  mkdirSync(bytesOf(root, "d", 0xfe))
  writeFileSync(bytesOf(root, "d", 0xfe, "/in.txt"), "hello two\n")
  // A valid name holding U+FFFD itself is another file, shown as it is.
  writeFileSync(join(root, "bad\uFFFDname.txt"), "hello three\n")
  return root
}
const BAD = '"bad\\377name.txt"'
const IN_DIR = '"d\\376/in.txt"'

describe("names that are not UTF-8", () => {
  test("showPath and parseShownPath round-trip every byte string", () => {
    let seed = 11
    const next = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff)
    for (let n = 0; n < 3000; n++) {
      const bytes = Buffer.from(Array.from({ length: 1 + (next() % 12) }, () => next() % 256).filter((b) => b !== 0 && b !== 0x2f))
      if (bytes.length === 0) continue
      const name = decodePath(bytes)
      const shown = showPath(name)
      expect(encodePath(parseShownPath(shown)).equals(bytes)).toBe(true)
    }
    expect(showPath("plain/é.txt")).toBe("plain/é.txt")
    expect(showPath('"quoted"')).toBe('"\\"quoted\\""')
    expect(parseShownPath(showPath('"quoted"'))).toBe('"quoted"')
  })

  test("a character past U+FFFF whose second half lies in U+DC80–U+DCFF (💻 is D83D DCBB) is no escaped byte: such names are plain", async () => {
    for (const name of ["💻.txt", "d💔/x💯", "💻\udcfe"]) {
      const bytes = Buffer.from(name.replace("\udcfe", ""))
      const whole = name.endsWith("\udcfe") ? Buffer.concat([bytes, Buffer.of(0xfe)]) : bytes
      expect(decodePath(whole)).toBe(name)
      expect(encodePath(name).equals(whole)).toBe(true)
      expect(parseShownPath(showPath(name))).toBe(name)
    }
    expect(showPath("d💔/x💯")).toBe("d💔/x💯")
    expect(showPath("💻\udcfe")).toBe('"💻\\376"')
    const root = project({ "💻.txt": "hello laptop\n", "d💔/x.txt": "hello heart\n" }, { marker: false })
    expect((await callTool(root, "read", { path: "💻.txt" })).envelope.data.content).toContain("hello laptop")
    for (const options of [{}, BUILTIN]) {
      const one = (await callTool(root, "grep", { pattern: "hello", path: "💻.txt" }, options)).envelope
      expect({ status: one.status, files: one.data.matches }).toEqual({ status: options === BUILTIN ? "partial" : "success", files: [{ file: "💻.txt", line: 1, text: "hello laptop" }] })
      expect((await callTool(root, "grep", { pattern: "hello", path: "d💔", output_mode: "files_with_matches" }, options)).envelope.data.files).toEqual(["d💔/x.txt"])
    }
    expect((await callTool(root, "glob", { pattern: "*.txt", path: "d💔" })).envelope.data.paths).toEqual(["d💔/x.txt"])
    expect((await callTool(root, "edit", { path: "💻.txt", old_string: "laptop", new_string: "desk" })).envelope.status).toBe("success")
    expect(readFileSync(join(root, "💻.txt"), "utf8")).toBe("hello desk\n")
  })

  test("list, glob and grep (both engines) show the same quoted names", async () => {
    const root = fixture()
    const list = (await callTool(root, "list", {})).envelope
    expect((list.data.entries as Array<{ path: string }>).map((e) => e.path).sort()).toEqual(['"d\\376/"', BAD, "bad\uFFFDname.txt", "ok.txt"].sort())
    const glob = (await callTool(root, "glob", { pattern: "**/*.txt" })).envelope
    expect((glob.data.paths as Array<string>).sort()).toEqual([BAD, IN_DIR, "bad\uFFFDname.txt", "ok.txt"].sort())
    const inside = (await callTool(root, "glob", { pattern: "*.txt", path: '"d\\376"' })).envelope
    expect(inside.data.paths).toEqual([IN_DIR])
    for (const options of [{}, BUILTIN]) {
      const grep = (await callTool(root, "grep", { pattern: "hello", output_mode: "files_with_matches" }, options)).envelope
      expect((grep.data.files as Array<string>).sort()).toEqual([BAD, IN_DIR, "bad\uFFFDname.txt", "ok.txt"].sort())
      const one = (await callTool(root, "grep", { pattern: "hello", path: BAD }, options)).envelope
      expect((one.data.matches as Array<{ file: string; text: string }>).map((m) => `${m.file}:${m.text}`)).toEqual([`${BAD}:hello one`])
    }
  })

  test("a folder named so is searched by ripgrep (started inside it), with the same answers as the built-in search", async () => {
    const root = fixture()
    mkdirSync(bytesOf(root, "d", 0xfe, "/sub"))
    writeFileSync(bytesOf(root, "d", 0xfe, "/sub/a.txt"), "hello a\r\n")
    writeFileSync(bytesOf(root, "d", 0xfe, "/sub/b", 0xfd, ".txt"), "hello b\n")
    const cases: Array<[string, Array<string>]> = [
      ['"d\\376"', [IN_DIR, '"d\\376/sub/a.txt"', '"d\\376/sub/b\\375.txt"']],
      ['"d\\376/sub"', ['"d\\376/sub/a.txt"', '"d\\376/sub/b\\375.txt"']],
      ['"d\\376/sub/a.txt"', ['"d\\376/sub/a.txt"']],
    ]
    for (const [path, files] of cases) {
      for (const output_mode of ["content", "files_with_matches", "count"]) {
        const rg = (await callTool(root, "grep", { pattern: "hello \\w$", path, output_mode })).envelope
        const builtin = (await callTool(root, "grep", { pattern: "hello \\w$", path, output_mode }, BUILTIN)).envelope
        expect({ path, output_mode, status: rg.status, engine: rg.data.engine }).toEqual({ path, output_mode, status: "success", engine: "rg" })
        const named = (e: typeof rg) =>
          ((e.data.matches ?? e.data.files ?? e.data.counts) as Array<string | { file: string }>).map((x) => (typeof x === "string" ? x : x.file)).sort()
        // "hello two" (IN_DIR) has more than one letter after "hello "; a.txt's line ends in CRLF.
        expect(named(rg)).toEqual(files.filter((f) => f !== IN_DIR).sort())
        expect(named(builtin)).toEqual(named(rg))
      }
    }
    // A file whose own name is not UTF-8 cannot be named to rg: the built-in search, and the text says why.
    const one = (await callTool(root, "grep", { pattern: "hello", path: '"d\\376/sub/b\\375.txt"' })).envelope
    expect(one.data.engine).toBe("builtin")
    expect(one.data.fallback_reason).toBe("the file's name is not UTF-8, which ripgrep cannot be given")
  })

  test("a large file named so (read in blocks) is searched by the built-in search too", async () => {
    const root = fixture()
    writeFileSync(bytesOf(root, "big", 0xfd, ".txt"), `${"x".repeat(99)}\n`.repeat(5000) + "needle\n")
    for (const options of [{}, BUILTIN]) {
      const e = (await callTool(root, "grep", { pattern: "needle" }, options)).envelope
      expect(e.data.matches).toEqual([{ file: '"big\\375.txt"', line: 5001, text: "needle" }])
      expect(e.data.warnings).toBeUndefined()
    }
  })

  test("ignore files inside a folder named so apply, for glob, list and grep (both engines)", async () => {
    const root = fixture()
    mkdirSync(bytesOf(root, "d", 0xfe, "/sub"))
    writeFileSync(bytesOf(root, "d", 0xfe, "/.gitignore"), "x.txt\n")
    writeFileSync(bytesOf(root, "d", 0xfe, "/sub/x.txt"), "hello x\n")
    writeFileSync(bytesOf(root, "d", 0xfe, "/sub/y.txt"), "hello y\n")
    const Y = '"d\\376/sub/y.txt"'
    expect(((await callTool(root, "glob", { pattern: "**/sub/*.txt" })).envelope.data.paths as Array<string>)).toEqual([Y])
    expect(((await callTool(root, "glob", { pattern: "*.txt", path: '"d\\376/sub"' })).envelope.data.paths as Array<string>)).toEqual([Y])
    expect(((await callTool(root, "list", { path: '"d\\376/sub"' })).envelope.data.entries as Array<{ name: string }>).map((e) => e.name)).toEqual(["y.txt"])
    for (const options of [{}, BUILTIN]) {
      for (const path of [".", '"d\\376"', '"d\\376/sub"']) {
        const files = (await callTool(root, "grep", { pattern: "hello [xy]", path, output_mode: "files_with_matches" }, options)).envelope.data.files
        expect({ path, files }).toEqual({ path, files: [Y] })
      }
    }
  })

  test("a submodule's info/exclude (its .git a file with a relative gitdir) applies inside a folder named so, as in a UTF-8 one", async () => {
    const root = fixture()
    for (const base of [bytesOf(root, "d", 0xfe), join(root, "plain")]) {
      const at = (rel: string) => Buffer.concat([Buffer.from(base), Buffer.from(rel)])
      mkdirSync(at("/sub"), { recursive: true })
      mkdirSync(at("/.git/modules/sub/info"), { recursive: true })
      writeFileSync(at("/sub/.git"), "gitdir: ../.git/modules/sub\n")
      writeFileSync(at("/.git/modules/sub/info/exclude"), "secret.txt\n")
      writeFileSync(at("/sub/secret.txt"), "hello secret\n")
      writeFileSync(at("/sub/open.txt"), "hello open\n")
    }
    const expected = ['"d\\376/sub/open.txt"', "plain/sub/open.txt"]
    expect(((await callTool(root, "glob", { pattern: "**/sub/*.txt" })).envelope.data.paths as Array<string>).sort()).toEqual(expected)
    const grepped = (await callTool(root, "grep", { pattern: "hello (secret|open)", output_mode: "files_with_matches" }, BUILTIN)).envelope.data.files
    expect([...(grepped as Array<string>)].sort()).toEqual(expected)
  })

  test("read, edit, multiedit and write take the quoted name back and change that file, no other", async () => {
    const root = fixture()
    const read = (await callTool(root, "read", { path: BAD })).envelope
    expect(read.error).toBeUndefined()
    expect(read.data.path).toBe(BAD)
    expect(read.text).toContain("hello one")
    expect((await callTool(root, "edit", { path: BAD, old_string: "hello one", new_string: "bye one" })).envelope.error).toBeUndefined()
    expect((await callTool(root, "multiedit", { path: BAD, edits: [{ old_string: "world", new_string: "earth" }] })).envelope.error).toBeUndefined()
    expect(readFileSync(bytesOf(root, "bad", 0xff, "name.txt"), "utf8")).toBe("bye one\nearth\n")
    expect(readFileSync(join(root, "bad\uFFFDname.txt"), "utf8")).toBe("hello three\n")
    const write = (await callTool(root, "write", { path: '"d\\376/new.txt"', content: "new\n" })).envelope
    expect(write.error).toBeUndefined()
    expect(readFileSync(bytesOf(root, "d", 0xfe, "/new.txt"), "utf8")).toBe("new\n")
    // No file was made under a replacement-character name.
    expect(readdirSync(root).filter((n) => n !== ".anvil").sort()).toEqual(["bad\uFFFDname.txt", "bad\uFFFDname.txt", "d\uFFFD", "ok.txt"].sort())
    const listed = (await callTool(root, "list", { path: '"d\\376"' })).envelope
    expect((listed.data.entries as Array<{ path: string }>).map((e) => e.path)).toEqual([IN_DIR, '"d\\376/new.txt"'])
  })

  test("patch applies git's diff of files named so (modified, renamed, deleted, created) to those very files, as git made them", async () => {
    const home = gitHome()
    const root = gitRepo(home, { "plain.txt": lines("plain") })
    const name = (...parts: Array<string | number>) => bytesOf(root, ...parts)
    writeFileSync(name("caf", 0xe9, ".txt"), lines("cafe"))
    writeFileSync(name("old", 0xff, ".txt"), lines("moved"))
    writeFileSync(name("gone", 0xfe, ".txt"), "bye\n")
    git(root, home, ["add", "-A"])
    git(root, home, ["commit", "-q", "-m", "start"])
    writeFileSync(name("caf", 0xe9, ".txt"), lines("cafe").replace("cafe 3\n", "CAFE 3\n"))
    renameSync(name("old", 0xff, ".txt"), name("new", 0xfd, ".txt"))
    rmSync(name("gone", 0xfe, ".txt"))
    writeFileSync(name("made", 0xfc, ".txt"), "made\n")
    git(root, home, ["add", "-A"])
    const diff = git(root, home, ["diff", "--cached", "-M"])
    expect(diff).toContain('rename from "old\\377.txt"')
    const snapshot = () =>
      readdirSync(root, { encoding: "buffer" })
        .filter((n) => n.toString() !== ".git" && n.toString() !== ".anvil")
        .map((n) => `${n.toString("hex")}:${readFileSync(Buffer.concat([Buffer.from(`${root}/`), n]), "hex")}`)
        .sort()
    const expected = snapshot()
    git(root, home, ["reset", "-q", "--hard"])
    expect(snapshot()).not.toEqual(expected)
    const { envelope } = await callTool(root, "patch", { patch: diff })
    expect(envelope.error).toBeUndefined()
    expect((envelope.data.files as Array<{ operation: string; path: string }>).map((f) => `${f.operation} ${f.path}`).sort()).toEqual(
      ['create "made\\374.txt"', 'delete "gone\\376.txt"', 'modify "caf\\351.txt"', 'rename "new\\375.txt"'].sort(),
    )
    expect(snapshot()).toEqual(expected)
  })

  test("the name as it reads with U+FFFD is not found, and the error names the file by its quoted name", async () => {
    const root = project({}, { marker: false })
    writeFileSync(bytesOf(root, "bad", 0xff, "name.txt"), "x\n")
    const { envelope } = await callTool(root, "read", { path: "bad\uFFFDname.txt" })
    expect(envelope.error?.code).toBe("NOT_FOUND")
    expect(envelope.text).toContain(`- ${BAD}`)
  })

  test("through the binary: the name glob prints is the name read and edit take", async () => {
    const root = fixture()
    const glob = JSON.parse((await runBinary(["tool", "glob", '{"pattern":"bad*"}'], { cwd: root })).stdout)
    const name = (glob.data.paths as Array<string>).find((p) => p.startsWith('"'))!
    expect(name).toBe(BAD)
    const read = JSON.parse((await runBinary(["tool", "read", JSON.stringify({ path: name })], { cwd: root })).stdout)
    expect(read.text).toContain("hello one")
    const edit = JSON.parse((await runBinary(["tool", "edit", JSON.stringify({ path: name, old_string: "world", new_string: "earth" })], { cwd: root })).stdout)
    expect(edit.status).toBe("success")
    expect(readFileSync(bytesOf(root, "bad", 0xff, "name.txt"), "utf8")).toBe("hello one\nearth\n")
  })
})
