import { describe, expect, test } from "bun:test"
import { rgPath } from "@vscode/ripgrep"
import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync, utimesSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { comparePaths } from "../../src/search/glob-pattern.ts"
import { DEFAULT_IGNORED_DIRS } from "../../src/workspace/ignore-rules.ts"
import { git, gitHome, gitRepo } from "../support/git-repo.ts"
import { callTool, project, tempDir, type TreeSpec } from "../support/harness.ts"

const glob = async (root: string, params: Record<string, unknown>, options: Parameters<typeof callTool>[3] = {}) =>
  (await callTool(root, "glob", params, options)).envelope

const paths = (envelope: { data: Record<string, unknown> }) => envelope.data.paths as Array<string>

/** All matches (paged through the tool's own offset/limit). */
const allPaths = async (root: string, params: Record<string, unknown>, options: Parameters<typeof callTool>[3] = {}) => {
  const out: Array<string> = []
  for (let offset = 0; ; offset += 200) {
    const e = await glob(root, { ...params, offset, limit: 200 }, options)
    expect(e.status === "error").toBe(false)
    out.push(...paths(e))
    if (!e.data.truncated) return out
  }
}

/** What bash expands `pattern` to with globstar (and dotglob), files only unless the pattern ends in `/`. */
const bashGlob = (dir: string, pattern: string, dot: boolean): Array<string> => {
  const script = [
    `shopt -s globstar nullglob${dot ? " dotglob" : ""}`,
    `for f in ${pattern}; do`,
    `  if [[ -d "\${f%/}" && ! -L "\${f%/}" ]]; then ${pattern.endsWith("/") ? `printf '%s\\n' "$f"` : ":"}; elif [[ ! "${pattern}" == */ ]]; then printf '%s\\n' "$f"; fi`,
    "done",
    "true",
  ].join("\n")
  const out = execFileSync("bash", ["-c", script], { cwd: dir, encoding: "utf8" })
  return out.split("\n").filter((l) => l !== "").sort()
}

const SHAPES: TreeSpec = {
  "README.md": "r\n",
  "Zeta.md": "z\n",
  "a.ts": "a\n",
  "b.tsx": "b\n",
  "notes.txt": "n\n",
  ".env": "SECRET=1\n",
  ".hidden/x.md": "x\n",
  ".hidden/deep/y.ts": "y\n",
  "docs/guide.md": "g\n",
  "docs/api/ref.md": "r\n",
  "docs/.draft.md": "d\n",
  "src/index.ts": "i\n",
  "src/app.ts": "a\n",
  "src/lib/util.ts": "u\n",
  "src/lib/util.test.ts": "t\n",
  "src/lib/deep/x/y.ts": "y\n",
  "test/a.test.ts": "t\n",
  "data1.csv": "1\n",
  "data2.csv": "2\n",
  "data10.csv": "10\n",
  "weird name.md": "w\n",
  "file[1].txt": "f\n",
}

describe("glob against bash's globstar expansion", () => {
  const root = project(SHAPES)
  const patterns = [
    "*.md",
    "**/*.md",
    "**/*.ts",
    "src/**/*.ts",
    "src/*",
    "src/**",
    "{src,test}/**/*.ts",
    "*.{ts,tsx}",
    "data[0-9].csv",
    "data[!1].csv",
    "data{1..2}.csv",
    "[[:upper:]]*",
    "**/lib/**",
    "**/x/*.ts",
    "docs/*/",
    "*/",
    "**/",
    "?.ts",
    "**/*test*",
    ".*",
    "**/.*",
    "**",
    "**/*.{md,txt}",
    "src/lib/*.ts",
    "file\\[1\\].txt",
    "*name*",
  ]
  for (const dot of [false, true]) {
    test.each(patterns)(`%s (dotglob ${dot})`, async (pattern) => {
      const ours = (await allPaths(root, { pattern, include_hidden: dot })).sort()
      expect(ours).toEqual(bashGlob(root, pattern, dot))
    })
  }
})

describe("glob: behaviour", () => {
  test("pattern relative to path, results relative to the project root; `**/` matches at depth zero", async () => {
    const root = project({ "core/agent.py": "", "core/llm.py": "", "core/sub/x.py": "", "other.py": "" })
    expect(paths(await glob(root, { pattern: "*.py", path: "core" }))).toEqual(["core/agent.py", "core/llm.py"])
    expect(paths(await glob(root, { pattern: "**/*.py", path: "core" }))).toEqual(["core/agent.py", "core/llm.py", "core/sub/x.py"])
    const e = await glob(root, { pattern: "**/*.py" })
    expect(paths(e)).toEqual(["core/agent.py", "core/llm.py", "core/sub/x.py", "other.py"])
    expect(e.status).toBe("success")
    expect(e.data.truncated).toBe(false)
    expect(e.context.path_resolved).toBe(".")
    expect(e.text).toBe("# Glob: **/*.py\n\nPath: .\nMatches shown: 4 (sorted by path)\n\n- core/agent.py\n- core/llm.py\n- core/sub/x.py\n- other.py")
  })

  test("a working directory below the root: path resolves against it, results stay root-relative", async () => {
    const root = project({ "pkg/a/x.ts": "", "pkg/b.ts": "" })
    const e = await glob(root, { pattern: "**/*.ts" }, { cwd: join(root, "pkg") })
    expect(paths(e)).toEqual(["pkg/a/x.ts", "pkg/b.ts"])
    expect(e.context.cwd).toBe("pkg")
  })

  test.each([["/etc/*"], ["/**/*.ts"], ["{src,/etc}/*"], ["../*.ts"]])("absolute or escaping pattern %s is INVALID_PARAM", async (pattern) => {
    const root = project({ "a.ts": "" })
    const e = await glob(root, { pattern })
    expect(e.status).toBe("error")
    expect(e.error?.code).toBe("INVALID_PARAM")
    expect(e.error?.field_errors?.[0]?.field).toBe("pattern")
  })

  test("default limit 50, max 200 (capped, said so), offset pages, truncated is partial with a next-page hint", async () => {
    const tree: TreeSpec = {}
    for (let i = 0; i < 260; i++) tree[`f${String(i).padStart(3, "0")}.txt`] = ""
    const root = project(tree)
    const first = await glob(root, { pattern: "*.txt" })
    expect(paths(first)).toHaveLength(50)
    expect(first.status).toBe("partial")
    expect(first.data.truncated).toBe(true)
    expect(first.data.count).toBe(260)
    expect(first.stats.total_matches).toBe(260)
    expect(first.text).toContain("Matches shown: 1-50 of 260 (TRUNCATED)")
    expect(first.text).toContain('Glob(pattern="*.txt", path=".", offset=50, limit=200)')

    const big = await glob(root, { pattern: "*.txt", limit: 1000 })
    expect(paths(big)).toHaveLength(200)
    expect(big.text).toContain("limit 1000 capped at the maximum of 200")

    const last = await glob(root, { pattern: "*.txt", offset: 250, limit: 200 })
    expect(paths(last)).toEqual(Array.from({ length: 10 }, (_, i) => `f${250 + i}.txt`))
    expect(last.status).toBe("success")
    expect(last.data.truncated).toBe(false)

    // Past the last match: a wrong offset (as for read and list), with the last page as the next step.
    const past = await glob(root, { pattern: "*.txt", offset: 260, limit: 200 })
    expect(past.error?.code).toBe("INVALID_PARAM")
    expect(past.error?.field_errors).toEqual([{ field: "offset", message: "offset 260 is past the end of the 260 matches for '*.txt' in '.'." }])
    expect(past.text).toContain('Glob(pattern="*.txt", path=".", offset=200, limit=200)')

    const head = await glob(root, { pattern: "*.txt", head_limit: 3 })
    expect(paths(head)).toEqual(["f000.txt", "f001.txt", "f002.txt"])
  })

  test("the limits are configurable", async () => {
    const root = project({ "a.txt": "", "b.txt": "", "c.txt": "" })
    const e = await glob(root, { pattern: "*.txt" }, { configOverrides: { tools: { glob: { default_limit: 2 } } } })
    expect(paths(e)).toEqual(["a.txt", "b.txt"])
    expect(e.data.count).toBe(3)
  })

  test("deterministic order: the same answer every time, in tree order", async () => {
    const root = project({ "b/z.ts": "", "a-c.ts": "", "a/b.ts": "", "A.ts": "", "a.ts": "" })
    const one = paths(await glob(root, { pattern: "**/*.ts" }))
    expect(one).toEqual(["A.ts", "a/b.ts", "a-c.ts", "a.ts", "b/z.ts"])
    expect(paths(await glob(root, { pattern: "**/*.ts" }))).toEqual(one)
  })

  test("tree order holds for awkward names (punctuation, case, digits, unicode)", async () => {
    const names = ["a", "a-b", "a.b", "a_b", "a b", "A", "B", "b", "a0", "a10", "a9", "é", "z", "~x", "[x]", "#h", "a/z", "a/b/c", "a-b/x"]
    const tree: TreeSpec = {}
    for (const n of names) tree[`t/${n}${n.includes("/") ? "" : "/f"}`] = ""
    for (const n of names.filter((x) => !x.includes("/"))) tree[`t/${n}.txt`] = ""
    const root = project(tree)
    const got = await allPaths(root, { pattern: "t/**" })
    expect(got).toEqual([...got].sort(comparePaths))
    expect(got.length).toBe(Object.keys(tree).length)
  })

  test("sort_by mtime: newest first, ties by path", async () => {
    const root = project({ "old.ts": "", "new.ts": "", "mid/a.ts": "", "mid/b.ts": "" })
    const at = (rel: string, seconds: number) => utimesSync(join(root, rel), seconds, seconds)
    at("old.ts", 1_000_000)
    at("mid/a.ts", 2_000_000)
    at("mid/b.ts", 2_000_000)
    at("new.ts", 3_000_000)
    const e = await glob(root, { pattern: "**/*.ts", sort_by: "mtime" })
    expect(paths(e)).toEqual(["new.ts", "mid/a.ts", "mid/b.ts", "old.ts"])
    expect(e.text).toContain("sorted by modification time, newest first")
  })

  test("hidden entries: skipped by default, included with include_hidden, or when the pattern names them", async () => {
    const root = project({ ".env": "", ".github/workflows/ci.yml": "", "app.yml": "", "x/.config.yml": "" })
    expect(paths(await glob(root, { pattern: "**/*.yml" }))).toEqual(["app.yml"])
    expect(paths(await glob(root, { pattern: "**/*.yml", include_hidden: true }))).toEqual([".github/workflows/ci.yml", "app.yml", "x/.config.yml"])
    expect(paths(await glob(root, { pattern: ".github/**/*.yml" }))).toEqual([".github/workflows/ci.yml"])
    expect(paths(await glob(root, { pattern: "**/.env" }))).toEqual([".env"])
    const none = await glob(root, { pattern: "*.env" })
    expect(paths(none)).toEqual([])
    expect(none.status).toBe("success")
    expect(none.text).toContain("Skipped: hidden entries (include_hidden=false)")
  })

  test("the default ignore list: node_modules, build, dist, .git, … skipped unless include_ignored or named", async () => {
    const root = project({
      "src/a.js": "",
      "node_modules/react/index.js": "",
      "node_modules/react/package.json": "{}",
      "dist/bundle.js": "",
      "lib/build/out.js": "",
      "venv/lib/x.js": "",
    })
    expect(paths(await glob(root, { pattern: "**/*.js" }))).toEqual(["src/a.js"])
    expect(paths(await glob(root, { pattern: "**/*.js", include_ignored: true }))).toEqual([
      "dist/bundle.js",
      "lib/build/out.js",
      "node_modules/react/index.js",
      "src/a.js",
      "venv/lib/x.js",
    ])
    expect(paths(await glob(root, { pattern: "node_modules/react/*.json" }))).toEqual(["node_modules/react/package.json"])
    expect(paths(await glob(root, { pattern: "*.js", path: "dist" }))).toEqual(["dist/bundle.js"])
    const custom = await glob(root, { pattern: "**/*.js" }, { configOverrides: { search: { default_ignore: ["src"] } } })
    expect(paths(custom)).toEqual(["dist/bundle.js", "lib/build/out.js", "node_modules/react/index.js", "venv/lib/x.js"])
  })

  test("a trailing slash lists folders", async () => {
    const root = project({ "pkg/a/x.ts": "", "pkg/b/y.ts": "", "pkg/c.ts": "" })
    expect(paths(await glob(root, { pattern: "pkg/*/" }))).toEqual(["pkg/a/", "pkg/b/"])
  })

  test("symbolic links are listed by their own path and never followed", async () => {
    const outside = tempDir("anvil-outside-")
    writeFileSync(join(outside, "secret.ts"), "")
    const root = project({ "src/a.ts": "", "src/link.ts": { link: "a.ts" }, "loop": { link: "." }, "out": { link: outside } })
    const e = await glob(root, { pattern: "**/*" })
    expect(paths(e)).toEqual(["anvil.json", "loop", "out", "src/a.ts", "src/link.ts"])
    expect(paths(await glob(root, { pattern: "**/secret.ts" }))).toEqual([])
  })

  test("a link to a folder: listed as a folder by a folders pattern, followed when the pattern's literal folders name it", async () => {
    const outside = tempDir("anvil-outside-")
    writeFileSync(join(outside, "secret.ts"), "")
    const root = project({ "real/a.ts": "", "real/sub/b.ts": "", "docs": { link: "real" }, "out": { link: outside }, "f.ts": { link: "real/a.ts" } })
    // Never walked into by a wildcard (as rg without --follow and the built-in grep)...
    expect(paths(await glob(root, { pattern: "**/*.ts" }))).toEqual(["f.ts", "real/a.ts", "real/sub/b.ts"])
    // ...but a folders pattern lists it as list shows it (docs@/), as bash's */ does; a link to a file is no folder.
    expect(paths(await glob(root, { pattern: "*/" }))).toEqual(["docs/", "out/", "real/"])
    expect(paths(await glob(root, { pattern: "{*,*/}" }))).toEqual(["anvil.json", "docs", "docs/", "f.ts", "out", "out/", "real/"])
    // Named literally, it is searched as path: "docs" would be, results named from the folder asked for.
    expect(paths(await glob(root, { pattern: "docs/**/*.ts" }))).toEqual(["docs/a.ts", "docs/sub/b.ts"])
    expect(paths(await glob(root, { pattern: "./docs/sub/*" }))).toEqual(["docs/sub/b.ts"])
    expect(paths(await glob(root, { pattern: "real/*", path: "." }))).toEqual(["real/a.ts"])
    // A link leading outside the project is refused as path would refuse it.
    const out = await glob(root, { pattern: "out/*.ts" })
    expect(out.error?.code).toBe("ACCESS_DENIED")
    expect(out.error?.message).toContain("'out' is a symbolic link that leads outside the project root")
    expect(out.error?.field_errors?.[0]?.field).toBe("pattern")
  })

  test("path errors: missing is NOT_FOUND, a file is INVALID_PARAM, outside the root is ACCESS_DENIED", async () => {
    const outside = tempDir("anvil-outside-")
    const root = project({ "a.ts": "", "escape": { link: outside } })
    const missing = await glob(root, { pattern: "*", path: "nope" })
    expect(missing.error?.code).toBe("NOT_FOUND")
    expect(missing.text).toContain("LS(")
    const file = await glob(root, { pattern: "*", path: "a.ts" })
    expect(file.error?.code).toBe("INVALID_PARAM")
    expect(file.error?.field_errors?.[0]?.field).toBe("path")
    expect((await glob(root, { pattern: "*", path: ".." })).error?.code).toBe("ACCESS_DENIED")
    expect((await glob(root, { pattern: "*", path: outside })).error?.code).toBe("ACCESS_DENIED")
    expect((await glob(root, { pattern: "*", path: "escape" })).error?.code).toBe("ACCESS_DENIED")
  })

  test("no match is a success with what was skipped", async () => {
    const root = project({ "a.ts": "" })
    const e = await glob(root, { pattern: "**/*.rs" })
    expect(e.status).toBe("success")
    expect(paths(e)).toEqual([])
    expect(e.text).toContain("No files match '**/*.rs' in '.'")
  })

  test("reached by its alias search_files_by_name", async () => {
    const root = project({ "a.py": "" })
    const e = (await callTool(root, "search_files_by_name", { pattern: "*.py" })).envelope
    expect(paths(e)).toEqual(["a.py"])
  })
})

describe("glob honours ignore files as git and ripgrep do", () => {
  const home = gitHome()

  test("nested .gitignore files, negations and .git/info/exclude: the same files as git ls-files", async () => {
    const root = gitRepo(home, {
      ".gitignore": "*.log\n/build-out/\ntmp/\n!tmp/keep.txt\nsecret*\n!secret.public\n",
      "a.log": "",
      "app.ts": "",
      "secret.txt": "",
      "secret.public": "",
      "tmp/keep.txt": "",
      "build-out/x.js": "",
      "lib/build-out/y.js": "",
      "src/.gitignore": "generated/\n!important.log\n*.cache\n",
      "src/main.ts": "",
      "src/important.log": "",
      "src/other.log": "",
      "src/x.cache": "",
      "src/generated/g.ts": "",
      "src/deep/er/z.cache": "",
      "src/deep/er/z.ts": "",
      "docs/sub/.gitignore": "*\n!*.md\n!*/\n",
      "docs/sub/a.md": "",
      "docs/sub/b.txt": "",
      "docs/sub/inner/c.md": "",
      "docs/sub/inner/d.txt": "",
      ".hidden/file.txt": "",
      "excluded-by-info.txt": "",
      "Dir With Space/f.txt": "",
    })
    writeFileSync(join(root, ".git/info/exclude"), "excluded-by-info.txt\n")
    git(root, home, ["add", "-A"])
    git(root, home, ["commit", "-q", "-m", "init"])
    writeFileSync(join(root, "untracked.ts"), "")
    writeFileSync(join(root, "src/untracked.log"), "")
    const expected = git(root, home, ["ls-files", "-z", "--cached", "--others", "--exclude-standard"])
      .split("\0")
      .filter((p) => p !== "")
      .sort()
    const ours = (await allPaths(root, { pattern: "**/*", include_hidden: true })).sort()
    expect(ours).toEqual(expected)
    // And filtered by a pattern, as git's pathspec filters.
    const ts = (await allPaths(root, { pattern: "**/*.ts", include_hidden: true })).sort()
    expect(ts).toEqual(expected.filter((p) => p.endsWith(".ts")))
  })

  test("a linked worktree honours the repository's info/exclude, as git and rg do", async () => {
    const root = gitRepo(home, { "kept.ts": "", "sub/also.ts": "" })
    git(root, home, ["add", "-A"])
    git(root, home, ["commit", "-q", "-m", "init"])
    writeFileSync(join(root, ".git/info/exclude"), "scratch/\n*.local\n")
    const tree = join(root, "..", `${root.split("/").pop()}-linked`)
    git(root, home, ["worktree", "add", "-q", tree])
    mkdirSync(join(tree, "scratch"))
    writeFileSync(join(tree, "scratch", "a.ts"), "")
    writeFileSync(join(tree, "notes.local"), "")
    writeFileSync(join(tree, "new.ts"), "")
    const expected = git(tree, home, ["ls-files", "-z", "--cached", "--others", "--exclude-standard"])
      .split("\0")
      .filter((p) => p !== "")
      .sort()
    expect(expected).toEqual(["kept.ts", "new.ts", "sub/also.ts"])
    expect((await allPaths(tree, { pattern: "**/*" })).sort()).toEqual(expected)
    const rg = execFileSync(rgPath, ["--files", "--no-config"], { cwd: tree, encoding: "utf8" }).split("\n").filter((p) => p !== "").sort()
    expect(rg).toEqual(expected)
  })

  test(".ignore and .rgignore with negations: the same files as rg --files", async () => {
    const root = project({
      ".gitignore": "*.tmp\n",
      ".ignore": "*.gen.ts\n!keep.gen.ts\n",
      "a.ts": "",
      "a.gen.ts": "",
      "keep.gen.ts": "",
      "x.tmp": "",
      "sub/.ignore": "!*.tmp\n",
      "sub/y.tmp": "",
      "sub/b.gen.ts": "",
      "sub/.rgignore": "*.md\n",
      "sub/readme.md": "",
      "sub/deeper/.gitignore": "!*.gen.ts\n",
      "sub/deeper/c.gen.ts": "",
      "other/readme.md": "",
    })
    const rg = execFileSync(rgPath, ["--files", "--hidden", "--no-require-git", "--no-ignore-global", "--no-config", "-g", "!.git"], {
      cwd: root,
      encoding: "utf8",
    })
      .split("\n")
      .filter((l) => l !== "")
      .sort()
    const ours = (await allPaths(root, { pattern: "**/*", include_hidden: true })).sort()
    expect(ours).toEqual(rg)
    expect(ours).toContain("sub/y.tmp")
    expect(ours).not.toContain("sub/deeper/c.gen.ts")
    // include_ignored: everything.
    const all = (await allPaths(root, { pattern: "**/*", include_hidden: true, include_ignored: true })).sort()
    expect(all).toContain("a.gen.ts")
    expect(all).toContain("x.tmp")
  })

  test("a search starting inside an ignored folder lists it (as ripgrep does); rules below still apply", async () => {
    const root = project({ ".gitignore": "out/\n*.map\n", "out/a.js": "", "out/a.js.map": "", "src/b.js": "" })
    expect(paths(await glob(root, { pattern: "**/*.js" }))).toEqual(["src/b.js"])
    expect(paths(await glob(root, { pattern: "**/*", path: "out" }))).toEqual(["out/a.js"])
  })

  test("a project root inside a larger repository honours the repository's .gitignore above it", async () => {
    const repo = gitRepo(home, { ".gitignore": "*.secret\n", "app/anvil.json": "{}", "app/a.ts": "", "app/b.secret": "" })
    const root = join(repo, "app")
    expect(paths(await callTool(root, "glob", { pattern: "*" }).then((o) => o.envelope))).toEqual(["a.ts", "anvil.json"])
  })
})

describe("glob on a real repository: this one", () => {
  test("the same files as git ls-files --cached --others --exclude-standard (less the default ignore list)", async () => {
    const repo = join(import.meta.dir, "..", "..")
    const home = gitHome()
    const listGit = () =>
      git(repo, home, ["ls-files", "-z", "--cached", "--others", "--exclude-standard"])
        .split("\0")
        .filter((p) => p !== "" && existsSync(join(repo, p)))
        .filter((p) => !p.split("/").slice(0, -1).some((seg) => DEFAULT_IGNORED_DIRS.includes(seg)))
    const before = new Set(listGit())
    const ours = await allPaths(repo, { pattern: "**/*", include_hidden: true })
    const after = new Set(listGit())
    // Others may be writing in this checkout while the test runs: judge against both listings.
    for (const p of ours) expect(before.has(p) || after.has(p)).toBe(true)
    for (const p of before) if (after.has(p)) expect(ours.includes(p)).toBe(true)
    expect(ours.length).toBeGreaterThan(100)
  }, 60_000)
})

describe("glob at scale and its circuit breakers", () => {
  const makeTree = (root: string, dirs: number, perDir: number) => {
    for (let d = 0; d < dirs; d++) {
      const dir = join(root, `d${Math.floor(d / 50)}`, `m${d}`)
      mkdirSync(dir, { recursive: true })
      for (let f = 0; f < perDir; f++) writeFileSync(join(dir, `f${f}.${f % 2 ? "ts" : "md"}`), "")
    }
  }

  test("a 20,000-file repository: the whole answer, status success, within the breakers", async () => {
    const root = project()
    makeTree(root, 400, 50)
    const e = await glob(root, { pattern: "**/*.ts", limit: 5 })
    expect(e.data.count).toBe(10_000)
    expect(e.data.aborted_reason).toBeUndefined()
    expect(e.stats.visited_entries).toBeGreaterThan(20_000)
    const all = await glob(root, { pattern: "**/*", limit: 1 })
    expect(all.data.count).toBe(20_001)
    expect(all.status).toBe("partial")
    expect(all.data.truncated).toBe(true)
  }, 180_000)

  test("the entries breaker stops the walk: partial, reason in data and text", async () => {
    const root = project()
    makeTree(root, 20, 10)
    const e = await glob(root, { pattern: "**/*.md" }, { configOverrides: { tools: { glob: { max_entries: 50 } } } })
    expect(e.status).toBe("partial")
    expect(e.data.aborted_reason).toBe("max_entries")
    expect(e.data.incomplete).toBe(true)
    expect(e.stats.visited_entries).toBe(50)
    expect(e.text).toContain("stopped after visiting 50 entries (circuit breaker)")
    expect((e.data.count as number) < 100).toBe(true)
  })

  test("the time breaker stops the walk: partial with reason timeout", async () => {
    const root = project()
    makeTree(root, 300, 2)
    const e = await glob(root, { pattern: "**/*" }, { configOverrides: { tools: { glob: { max_duration_ms: 1 } } } })
    expect(e.status).toBe("partial")
    expect(e.data.aborted_reason).toBe("timeout")
    expect(e.text).toContain("the search stopped after 1 ms (circuit breaker)")
    expect((e.data.count as number) < 600).toBe(true)
  })
})
