import { afterEach, describe, expect, test } from "bun:test"
import { rgPath } from "@vscode/ripgrep"
import { lstatSync, mkdirSync, readdirSync, symlinkSync, utimesSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { comparePaths, GlobMatcher, matchesPath } from "../../src/search/glob-pattern.ts"
import { listFast, setFastListing } from "../../src/workspace/fast-listing.ts"
import { DEFAULT_IGNORED_DIRS } from "../../src/workspace/ignore-rules.ts"
import { runBinary } from "../support/anvil-binary.ts"
import { callTool, project, tempDir } from "../support/harness.ts"

/**
 * glob lists folders through openat2 + getdents64 where the kernel has them
 * and through Node's readdir otherwise: both must give byte-identical answers
 * (paths, counts, pages, breakers, folder matches, mtime order, stats), and
 * the files they find must be the ones ripgrep lists with anvil's ignore rules.
 */

const FILES = 3_000

/** A generated repository: nested .gitignore/.ignore with negations, hidden entries, links, a fifo, ignored folders, a nested repository, odd names. */
const generate = (): string => {
  const root = project({}, { marker: false })
  writeFileSync(join(root, "anvil.json"), "{}\n")
  Bun.spawnSync(["git", "init", "-q", root])
  writeFileSync(join(root, ".gitignore"), "*.log\n/out/\ncache/\n!keep.log\n")
  for (let i = 0; i < FILES; i++) {
    const dir = join(root, `pkg${i % 7}`, `mod${Math.floor(i / 7) % 9}`, i % 5 === 0 ? "cache" : i % 11 === 0 ? ".private" : `part${i % 3}`)
    mkdirSync(dir, { recursive: true })
    const ext = i % 13 === 0 ? "log" : i % 4 === 0 ? "py" : i % 4 === 1 ? "ts" : "md"
    writeFileSync(join(dir, `${i % 17 === 0 ? "." : ""}file${i}.${ext}`), `${i}\n`)
    if (i % 97 === 0) utimesSync(join(dir, `${i % 17 === 0 ? "." : ""}file${i}.${ext}`), 1_600_000_000 + i, 1_600_000_000 + i)
  }
  writeFileSync(join(root, "pkg1", ".gitignore"), "*.md\n!mod2/**/*.md\n")
  writeFileSync(join(root, "pkg2", ".ignore"), "part1/\n")
  writeFileSync(join(root, "pkg3", "keep.log"), "kept\n")
  for (const dir of ["out", "node_modules/dep", "build", "pkg4/dist", ".hidden/deeper", "empty/inner"]) mkdirSync(join(root, dir), { recursive: true })
  for (const file of ["out/a.ts", "node_modules/dep/index.js", "build/b.py", "pkg4/dist/c.ts", ".hidden/deeper/d.py", ".env"]) writeFileSync(join(root, file), "x\n")
  // A nested repository: the outer .gitignore's patterns stop at its boundary.
  mkdirSync(join(root, "vendor/sub/cache"), { recursive: true })
  Bun.spawnSync(["git", "init", "-q", join(root, "vendor/sub")])
  writeFileSync(join(root, "vendor/sub/cache/e.ts"), "x\n")
  writeFileSync(join(root, "vendor/sub/f.log"), "x\n")
  // Names outside ASCII, one of them not UTF-8 (the portable reader decides how it is shown).
  writeFileSync(join(root, "pkg0", "naïve ünïcode.ts"), "x\n")
  writeFileSync(Buffer.concat([Buffer.from(join(root, "pkg5", "bad-")), Buffer.from([0xff, 0xfe]), Buffer.from(".ts")]), "x\n")
  // Links (to a file, a folder inside, a folder outside, nowhere) and a fifo: listed as entries, never followed.
  const outside = tempDir()
  writeFileSync(join(outside, "secret.ts"), "x\n")
  symlinkSync("../pkg0/naïve ünïcode.ts", join(root, "pkg6", "to-file.ts"))
  symlinkSync("../pkg0", join(root, "pkg6", "to-dir"))
  symlinkSync(outside, join(root, "pkg6", "to-outside"))
  symlinkSync("nowhere.ts", join(root, "pkg6", "dangling.ts"))
  Bun.spawnSync(["mkfifo", join(root, "pkg6", "pipe.ts")])
  return root
}

const CASES: ReadonlyArray<Record<string, unknown>> = [
  { pattern: "**/*" },
  { pattern: "**/*", include_hidden: true },
  { pattern: "**/*", include_ignored: true, include_hidden: true },
  { pattern: "**/*.py" },
  { pattern: "**/*.{ts,md}", offset: 150, limit: 37 },
  { pattern: "**/*.ts", sort_by: "mtime" },
  { pattern: "**/*", sort_by: "mtime", include_hidden: true, limit: 200 },
  { pattern: "**/" },
  { pattern: "*/*/", include_hidden: true },
  { pattern: "**/cache/**", limit: 200 },
  { pattern: "**/.*" },
  { pattern: "pkg1/**/*.md", limit: 200 },
  { pattern: "pkg6/*" },
  { pattern: "node_modules/**" },
  { pattern: "pkg[0-2]/mod?/part[!0]/*.py", limit: 200 },
  { pattern: "**/*.ts", path: "pkg0" },
  { pattern: "vendor/**", include_hidden: true },
  // Patterns whose names the kernel reader tests as bytes before decoding them.
  { pattern: "**/keep.log" },
  { pattern: "**/file1*", limit: 200 },
  { pattern: "**/*.{py,ts}", include_hidden: true, offset: 400, limit: 200 },
  { pattern: "pkg6/**/*.ts", include_ignored: true },
  { pattern: "**/naïve*.ts" },
  { pattern: "**/bad-*" },
  { pattern: "**/*.log", include_ignored: true, sort_by: "mtime", limit: 200 },
]

/** The envelope without the one figure that differs between two runs (elapsed time). */
const comparable = (envelope: { stats: Record<string, unknown> }) =>
  // The saved complete list of each run has its own file name.
  JSON.stringify({ ...envelope, stats: { ...envelope.stats, time_ms: 0 } }).replace(/tool_\d{8}_\d{6}_Glob(_[0-9a-f]{16})?(_\d+)?/g, "tool_Glob")

// Saved complete lists go outside the tree the cases list, so no case sees an earlier one's files.
const SPILL = tempDir()

const both = async (root: string, params: Record<string, unknown>, config?: Record<string, unknown>) => {
  const options = { configOverrides: { output: { dir: SPILL }, ...config } }
  setFastListing(true)
  const fast = (await callTool(root, "glob", params, options)).envelope
  setFastListing(false)
  const portable = (await callTool(root, "glob", params, options)).envelope
  setFastListing(true)
  return { fast, portable }
}

afterEach(() => setFastListing(true))

describe("glob: the kernel listing and the portable one give the same answers", () => {
  const root = generate()

  test("the fast reader lists what readdir lists and refuses what the checked open refuses", () => {
    if (process.platform !== "linux") return
    const names = (dir: string) => {
      const got = listFast(dir)
      expect(got === "fallback" || got === undefined).toBe(false)
      return (got as ReadonlyArray<{ name: string; type: string }>).map((e) => `${e.name}:${e.type}`).sort()
    }
    const viaReaddir = (dir: string) =>
      readdirSync(dir, { withFileTypes: true })
        .map((d) => `${d.name}:${d.isFile() ? "File" : d.isDirectory() ? "Directory" : d.isSymbolicLink() ? "SymbolicLink" : "Other"}`)
        .sort()
    for (const dir of [root, join(root, "pkg6"), join(root, "pkg0"), join(root, "pkg1", "mod2")]) expect(names(dir)).toEqual(viaReaddir(dir))
    // A link on the way (last component or earlier), a file, a missing folder: not listed.
    expect(listFast(join(root, "pkg6", "to-dir"))).toBeUndefined()
    expect(listFast(join(root, "pkg6", "to-dir", "mod0"))).toBeUndefined()
    expect(listFast(join(root, "pkg6", "to-outside"))).toBeUndefined()
    expect(listFast(join(root, ".gitignore"))).toBeUndefined()
    expect(listFast(join(root, "missing"))).toBeUndefined()
    // A name that is not UTF-8: the portable reader decides.
    expect(listFast(join(root, "pkg5"))).toBe("fallback")
  })

  for (const params of CASES) {
    test(`glob ${JSON.stringify(params)}`, async () => {
      const { fast, portable } = await both(root, params)
      expect(fast.status === "error").toBe(false)
      expect(comparable(fast)).toBe(comparable(portable))
    })
  }

  test("the entries breaker stops at the same entry on both readers", async () => {
    for (const max of [10, 777, 2_000]) {
      // **/*.py: the kernel reader leaves most names out of its listings, and lists the folder the breaker stops in whole.
      for (const pattern of ["**/*", "**/*.py"]) {
        const { fast, portable } = await both(root, { pattern, limit: 200 }, { tools: { glob: { max_entries: max } } })
        expect(fast.data.aborted_reason).toBe("max_entries")
        expect(fast.stats.visited_entries).toBe(max)
        expect(comparable(fast)).toBe(comparable(portable))
      }
    }
  })

  test("the files found are the ones rg --files lists with the same ignore rules", async () => {
    const all: Array<string> = []
    for (let offset = 0; ; offset += 200) {
      const e = (await callTool(root, "glob", { pattern: "**/*", include_hidden: true, offset, limit: 200 }, { configOverrides: { output: { dir: SPILL } } })).envelope
      all.push(...(e.data.paths as Array<string>))
      if (!e.data.truncated) break
    }
    // rg lists regular files only, and prints a name that is not UTF-8 as raw bytes. Both folders are real
    // repositories: with --no-require-git rg would carry the outer .gitignore into the nested one.
    const ours = all.filter((p) => !p.startsWith("pkg5/bad-") && !p.startsWith("\"pkg5/bad-") && lstatSync(join(root, p)).isFile())
    const args = ["--files", "--no-config", "--hidden", "--no-ignore-global", "--glob", "!.git"]
    for (const dir of DEFAULT_IGNORED_DIRS) args.push("--glob", `!${dir}/`)
    const rg = Bun.spawnSync([rgPath, ...args], { cwd: root, stdout: "pipe" })
    const theirs = rg.stdout
      .toString()
      .split("\n")
      .filter((p) => p !== "" && !p.startsWith("pkg5/bad-"))
      .sort(comparePaths)
    expect(theirs.length).toBeGreaterThan(1_500)
    expect(ours).toEqual(theirs)
  })

  test("the files a pattern finds are the ones rg --files lists that the pattern matches", async () => {
    const args = ["--files", "--no-config", "--no-ignore-global", "--glob", "!.git"]
    for (const dir of DEFAULT_IGNORED_DIRS) args.push("--glob", `!${dir}/`)
    const listed = Bun.spawnSync([rgPath, ...args], { cwd: root, stdout: "pipe" })
      .stdout.toString()
      .split("\n")
      .filter((p) => p !== "" && !p.startsWith("pkg5/bad-"))
    for (const pattern of ["**/*.py", "**/*.{ts,md}", "pkg1/**/*.md", "**/file1*.ts", "**/keep.log"]) {
      const matcher = GlobMatcher.compile(pattern, { dot: false })
      const theirs = listed.filter((p) => matchesPath(matcher, p)).sort(comparePaths)
      const ours: Array<string> = []
      for (let offset = 0; ; offset += 200) {
        const e = (await callTool(root, "glob", { pattern, offset, limit: 200 }, { configOverrides: { output: { dir: SPILL } } })).envelope
        ours.push(...(e.data.paths as Array<string>))
        if (!e.data.truncated) break
      }
      expect(theirs.length).toBeGreaterThan(0)
      expect(ours.filter((p) => !p.startsWith("pkg5/bad-") && !p.startsWith("\"pkg5/bad-") && lstatSync(join(root, p)).isFile())).toEqual(theirs)
    }
  })

  test("through the binary (the fast reader compiled in): the same answers as in process", async () => {
    const env = { HOME: tempDir(), XDG_CONFIG_HOME: tempDir(), ANVIL_ROOT: root, TOOL_OUTPUT_DIR: SPILL }
    const named = (text: string) => text.replace(/tool_\d{8}_\d{6}_Glob(_[0-9a-f]{16})?(_\d+)?/g, "tool_Glob")
    for (const params of [{ pattern: "**/*", limit: 200 }, { pattern: "**/*.py", sort_by: "mtime", offset: 17 }]) {
      const r = await runBinary(["tool", "glob", JSON.stringify(params)], { cwd: root, env })
      const binary = JSON.parse(r.stdout) as { data: unknown; text: string }
      setFastListing(false)
      const portable = (await callTool(root, "glob", params, { configOverrides: { output: { dir: SPILL } } })).envelope
      setFastListing(true)
      expect(named(JSON.stringify(binary.data))).toEqual(named(JSON.stringify(portable.data)))
      expect(named(binary.text)).toBe(named(portable.text))
    }
  }, 60_000)
})
