import { beforeAll, describe, expect, test } from "bun:test"
import { spawnSync } from "node:child_process"
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { callTool, tempDir } from "../support/harness.ts"

// ---------------------------------------------------------------------------
// Real material: a git repository whose history exercises every case, diffs
// taken from it with git and diff(1), applied with the patch tool, and the
// result compared byte for byte (and mode) with git's own checkout.
// ---------------------------------------------------------------------------

const GIT_ENV = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_AUTHOR_NAME: "t",
  GIT_AUTHOR_EMAIL: "t@example.com",
  GIT_COMMITTER_NAME: "t",
  GIT_COMMITTER_EMAIL: "t@example.com",
  LC_ALL: "C",
}

const run = (cwd: string, cmd: string, args: ReadonlyArray<string>, okCodes: ReadonlyArray<number> = [0]): string => {
  const r = spawnSync(cmd, args, { cwd, env: GIT_ENV, encoding: "buffer", maxBuffer: 256 * 1024 * 1024 })
  if (r.error) throw r.error
  if (!okCodes.includes(r.status ?? -1)) throw new Error(`${cmd} ${args.join(" ")} failed (${r.status}): ${r.stderr.toString()}`)
  return r.stdout.toString("utf8")
}
const git = (cwd: string, ...args: Array<string>) => run(cwd, "git", ["-c", "core.autocrlf=false", "-c", "core.quotepath=true", ...args])

/** Writes files (string content, `null` deletes) and commits; returns the commit id. */
const commit = (repo: string, message: string, files: Record<string, string | Uint8Array | null>, extra?: () => void): string => {
  for (const [rel, content] of Object.entries(files)) {
    const file = join(repo, rel)
    if (content === null) rmSync(file)
    else {
      mkdirSync(join(file, ".."), { recursive: true })
      writeFileSync(file, content)
    }
  }
  extra?.()
  git(repo, "add", "-A")
  git(repo, "commit", "-q", "--allow-empty", "-m", message)
  return git(repo, "rev-parse", "HEAD").trim()
}

/** A checkout of `rev` (no .git) in a fresh folder: the project the patch is applied to. */
const checkout = (repo: string, rev: string): string => {
  const dir = tempDir("anvil-patch-")
  const tar = join(dir, "..", `${dir.split("/").pop()}.tar`)
  git(repo, "archive", "--format=tar", "-o", tar, rev)
  run(dir, "tar", ["-xf", tar])
  rmSync(tar)
  return dir
}

/** Every file under `root` (but .anvil/) → [bytes as hex-free Buffer, executable?]. */
const snapshot = (root: string): Map<string, { bytes: Buffer; exec: boolean }> => {
  const out = new Map<string, { bytes: Buffer; exec: boolean }>()
  const walk = (dir: string, rel: string) => {
    for (const name of readdirSync(dir).sort()) {
      if (rel === "" && (name === ".anvil" || name === ".git")) continue
      const abs = join(dir, name)
      const r = rel === "" ? name : `${rel}/${name}`
      const st = lstatSync(abs)
      if (st.isDirectory()) walk(abs, r)
      else out.set(r, { bytes: readFileSync(abs), exec: (st.mode & 0o100) !== 0 })
    }
  }
  walk(root, "")
  return out
}

const dirsOf = (root: string): Array<string> => {
  const out: Array<string> = []
  const walk = (dir: string, rel: string) => {
    for (const name of readdirSync(dir).sort()) {
      if (rel === "" && name === ".anvil") continue
      const abs = join(dir, name)
      if (lstatSync(abs).isDirectory()) {
        const r = rel === "" ? name : `${rel}/${name}`
        out.push(r)
        walk(abs, r)
      }
    }
  }
  walk(root, "")
  return out
}

const expectSameTree = (actual: string, expected: string, options: { modes?: boolean; skipEmpty?: boolean } = {}) => {
  const a = snapshot(actual)
  const b = snapshot(expected)
  const keep = (m: Map<string, { bytes: Buffer; exec: boolean }>) =>
    [...m.keys()].filter((k) => !(options.skipEmpty && m.get(k)!.bytes.length === 0)).sort()
  expect(keep(a)).toEqual(keep(b))
  for (const k of keep(b)) {
    const x = a.get(k)!
    const y = b.get(k)!
    if (!x.bytes.equals(y.bytes)) throw new Error(`${k} differs:\n--- got ---\n${JSON.stringify(x.bytes.toString())}\n--- want ---\n${JSON.stringify(y.bytes.toString())}`)
    if (options.modes !== false) expect({ file: k, exec: x.exec }).toEqual({ file: k, exec: y.exec })
  }
  expect(dirsOf(actual)).toEqual(dirsOf(expected))
}

const lines = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag} line ${i + 1}`).join("\n") + "\n"

let repo = ""
let revs: Array<string> = []

beforeAll(() => {
  repo = tempDir("anvil-patch-repo-")
  git(repo, "init", "-q")
  const aTs = Array.from({ length: 60 }, (_, i) => `export const v${i} = ${i}`).join("\n") + "\n"
  const c0 = commit(repo, "initial", {
    "src/a.ts": aTs,
    "src/b.ts": lines(20, "b"),
    "docs/readme.md": "# Title\n\nSome text.\n",
    "nonl.txt": "first\nlast without newline",
    "gets-newline.txt": "alpha\nbeta",
    "loses-newline.txt": "one\ntwo\n",
    "crlf.txt": "c1\r\nc2\r\nc3\r\nc4\r\n",
    "crlf-nonl.txt": "x1\r\nx2",
    "with space.txt": "hello\nworld\n",
    "script.sh": "#!/bin/sh\necho hi\n",
    "old-name.txt": lines(12, "moved"),
    "to-delete.txt": lines(5, "gone"),
    "lonely/only.txt": "the only file here\n",
    "bom.txt": "\uFEFFbom first\nsecond\n",
    "ünïcode.txt": "é\n",
    "repeat.txt": "x\ny\nx\ny\nx\ny\nend\n",
    "tab\tname.txt": "tabbed\n",
  })
  const c1 = commit(
    repo,
    "edits everywhere",
    {
      "src/a.ts": aTs.replace("v3 = 3", "v3 = 33").replace("v30 = 30", "v30 = 300\nexport const extra = 1").replace("export const v58 = 58\n", ""),
      "src/b.ts": lines(20, "b").replace("b line 10\n", "b line ten\n"),
      "src/new.ts": "export const fresh = true\n",
      "to-delete.txt": null,
      "nonl.txt": "first\nlast changed, still without newline",
      "crlf.txt": "c1\r\nc2 changed\r\nc3\r\nc4\r\nc5\r\n",
      "with space.txt": "hello\nthere\nworld\n",
      "repeat.txt": "x\ny\nx\nY\nx\ny\nend\n",
      "ünïcode.txt": "è\n",
      "tab\tname.txt": "tabbed twice\n",
    },
    () => {
      chmodSync(join(repo, "script.sh"), 0o755)
      git(repo, "mv", "old-name.txt", "renamed.txt")
    },
  )
  const c2 = commit(
    repo,
    "renames with edits, newline changes, new folders",
    {
      "gets-newline.txt": "alpha\nbeta\n",
      "loses-newline.txt": "one\ntwo",
      "crlf-nonl.txt": "x1\r\nx2\r\nx3",
      "new dir/with space/n e w.txt": "spaced out\n",
      "empty.txt": "",
      "lonely/only.txt": null,
      "bom.txt": "\uFEFFbom first\nsecond changed\n",
      "docs/readme.md": "# Title\r\n\r\nNow with CRLF.\r\n",
    },
    () => {
      mkdirSync(join(repo, "lib"))
      git(repo, "mv", "src/b.ts", "lib/b2.ts")
      writeFileSync(join(repo, "lib/b2.ts"), lines(20, "b").replace("b line 10\n", "b line ten\n").replace("b line 2\n", "b line two\n"))
      chmodSync(join(repo, "src/new.ts"), 0o755)
      writeFileSync(join(repo, "src/new.ts"), "export const fresh = false\n")
    },
  )
  const c3 = commit(repo, "copies, deletions of empty files, exec new file", {
    "empty.txt": null,
    "lib/b3.ts": lines(20, "b").replace("b line 10\n", "b line ten\n").replace("b line 2\n", "b line two\n").replace("b line 20\n", "b line twenty\n"),
    "bin/tool": "#!/bin/sh\nexit 0\n",
    "nonl.txt": "first\nlast changed, still without newline\nand a third",
  }, () => chmodSync(join(repo, "bin/tool"), 0o755))
  revs = [c0, c1, c2, c3]
})

const expectedTrees = new Map<string, string>()
/** git's own checkout of `rev`, made once. */
const expectedTree = (rev: string): string => {
  let dir = expectedTrees.get(rev)
  if (!dir) {
    dir = checkout(repo, rev)
    expectedTrees.set(rev, dir)
  }
  return dir
}

const applyDiff = async (from: string, to: string, diffArgs: ReadonlyArray<string>, options: { modes?: boolean } = {}) => {
  const patch = git(repo, "diff", ...diffArgs, from, to)
  const project = checkout(repo, from)
  const out = await callTool(project, "patch", { patch })
  if (out.envelope.status !== "success") throw new Error(out.envelope.text)
  expectSameTree(project, expectedTree(to), options)
  return { out, patch }
}

describe("patch: git diffs from a real history, compared with git's checkout byte for byte", () => {
  const variants: ReadonlyArray<{ name: string; args: ReadonlyArray<string> }> = [
    { name: "git diff (renames detected)", args: ["-M"] },
    { name: "git diff --no-prefix", args: ["--no-prefix", "-M"] },
    { name: "git diff --no-renames (delete + create)", args: ["--no-renames"] },
    { name: "git diff -U0 (no context: positions from headers)", args: ["-U0", "-M"] },
    { name: "git diff -U1", args: ["-U1", "-M"] },
    { name: "git diff -C --find-copies-harder", args: ["-C", "--find-copies-harder"] },
    { name: "git diff --src-prefix=i/ --dst-prefix=w/", args: ["--src-prefix=i/", "--dst-prefix=w/", "-M"] },
  ]
  for (const v of variants) {
    test(`${v.name}: every consecutive commit pair and first→last`, async () => {
      const pairs: Array<[string, string]> = [[revs[0]!, revs[1]!], [revs[1]!, revs[2]!], [revs[2]!, revs[3]!], [revs[0]!, revs[3]!]]
      for (const [a, b] of pairs) await applyDiff(a, b, v.args)
    })
  }

  test("the reverse direction (last→first) too", async () => {
    await applyDiff(revs[3]!, revs[0]!, ["-M"])
  })

  test("reports operations, counts and modes per file", async () => {
    const { out } = await applyDiff(revs[0]!, revs[1]!, ["-M"])
    const data = out.envelope.data as { applied: boolean; format: string; files: Array<Record<string, unknown>> }
    expect(data.applied).toBe(true)
    expect(data.format).toBe("git")
    const byPath = new Map(data.files.map((f) => [f.path as string, f]))
    expect(byPath.get("src/a.ts")).toMatchObject({ operation: "modify", hunks: 3, additions: 3, deletions: 3 })
    expect(byPath.get("src/new.ts")).toMatchObject({ operation: "create", additions: 1, deletions: 0 })
    expect(byPath.get("to-delete.txt")).toMatchObject({ operation: "delete", deletions: 5 })
    expect(byPath.get("renamed.txt")).toMatchObject({ operation: "rename", old_path: "old-name.txt", hunks: 0 })
    expect(byPath.get("script.sh")).toMatchObject({ operation: "mode", old_mode: "100644", new_mode: "100755" })
    expect(out.envelope.text).toContain("R old-name.txt -> renamed.txt")
    expect(out.envelope.text).toContain("D to-delete.txt")
    expect(out.envelope.stats).toMatchObject({ files: data.files.length })
  })

  test("a rename with edits and a new exec file", async () => {
    const { out } = await applyDiff(revs[1]!, revs[2]!, ["-M"])
    const files = (out.envelope.data as { files: Array<Record<string, unknown>> }).files
    expect(files.find((f) => f.path === "lib/b2.ts")).toMatchObject({ operation: "rename", old_path: "src/b.ts", additions: 1, deletions: 1 })
    expect(files.find((f) => f.path === "src/new.ts")).toMatchObject({ old_mode: "100644", new_mode: "100755" })
  })

  test("git format-patch output (mail headers, several commits in one patch)", async () => {
    const out = run(repo, "git", ["format-patch", "--stdout", "-M", `${revs[0]}..${revs[3]}`])
    const project = checkout(repo, revs[0]!)
    const result = await callTool(project, "patch", { patch: out })
    expect(result.envelope.status).toBe("success")
    expectSameTree(project, expectedTree(revs[3]!))
  })

  test("git apply --check agrees that these diffs are valid", async () => {
    const patch = git(repo, "diff", "-M", revs[0]!, revs[3]!)
    const project = checkout(repo, revs[0]!)
    writeFileSync(join(project, "..", "p.diff"), patch)
    run(project, "git", ["apply", "--check", join(project, "..", "p.diff")])
  })
})

describe("patch: plain diff -u / diff -ruN of two folders", () => {
  const plain = async (from: string, to: string) => {
    const parent = tempDir("anvil-patch-plain-")
    const b = expectedTree(to)
    // diff(1) follows links named on its command line: the folders are called old/ and new/ in the patch.
    symlinkSync(expectedTree(from), join(parent, "old"))
    symlinkSync(b, join(parent, "new"))
    const patch = run(parent, "diff", ["-ruN", "old", "new"], [0, 1])
    const project = checkout(repo, from)
    const out = await callTool(project, "patch", { patch })
    if (out.envelope.status !== "success") throw new Error(out.envelope.text)
    // diff(1) knows nothing of modes or empty files.
    expectSameTree(project, b, { modes: false, skipEmpty: true })
    return out
  }
  test("each commit pair", async () => {
    for (const [x, y] of [[0, 1], [1, 2], [2, 3], [0, 3], [3, 0]] as const) await plain(revs[x]!, revs[y]!)
  })
  test("format is reported as unified", async () => {
    const out = await plain(revs[0]!, revs[1]!)
    expect((out.envelope.data as { format: string }).format).toBe("unified")
  })
  test("diff -u of a single file with and without -p", async () => {
    const root = tempDir()
    writeFileSync(join(root, "f.txt"), "a\nb\nc\n")
    writeFileSync(join(root, "f.txt.new"), "a\nB\nc\n")
    const patch = run(root, "diff", ["-u", "f.txt", "f.txt.new"], [1])
    rmSync(join(root, "f.txt.new"))
    const out = await callTool(root, "patch", { patch })
    expect(out.envelope.status).toBe("success")
    expect(readFileSync(join(root, "f.txt"), "utf8")).toBe("a\nB\nc\n")
    expect(existsSync(join(root, "f.txt.new"))).toBe(false)
  })
})

// ---------------------------------------------------------------------------
// Tolerance: wrong numbers and counts; errors change nothing.
// ---------------------------------------------------------------------------

describe("patch: tolerance and errors", () => {
  test("wrong @@ line numbers are tolerated and reported as offsets", async () => {
    const patch = git(repo, "diff", "-M", revs[0]!, revs[1]!).replace(/^@@ -(\d+)(,\d+)? \+(\d+)/gm, (_, a, c, b) => `@@ -${Number(a) + 7}${c ?? ""} +${Number(b) + 7}`)
    const project = checkout(repo, revs[0]!)
    const out = await callTool(project, "patch", { patch })
    expect(out.envelope.status).toBe("success")
    expectSameTree(project, expectedTree(revs[1]!))
    const a = (out.envelope.data as { files: Array<{ path: string; offsets?: Array<{ hunk: number; expected_line: number; line: number }> }> }).files.find((f) => f.path === "src/a.ts")!
    expect(a.offsets?.[0]).toEqual({ hunk: 1, expected_line: 8, line: 1 })
    expect(out.envelope.text).toContain("hunk 1 applied at line 1 (its header said 8)")
  })

  test("wrong hunk counts are tolerated (the body is trusted)", async () => {
    const patch = git(repo, "diff", "-M", revs[0]!, revs[1]!).replace(/^@@ -(\d+),(\d+) \+(\d+),(\d+) @@/gm, (_, a, b, c, d) => `@@ -${a},${Number(b) + 2} +${c},${Math.max(0, Number(d) - 1)} @@`)
    const project = checkout(repo, revs[0]!)
    const out = await callTool(project, "patch", { patch })
    if (out.envelope.status !== "success") throw new Error(out.envelope.text)
    expectSameTree(project, expectedTree(revs[1]!))
  })

  test("hand-written hunks without line numbers ('@@' alone) are found by context", async () => {
    const root = tempDir()
    writeFileSync(join(root, "x.py"), "def a():\n    return 1\n\ndef b():\n    return 2\n")
    const out = await callTool(root, "patch", { patch: "--- x.py\n+++ x.py\n@@\n def b():\n-    return 2\n+    return 3\n" })
    expect(out.envelope.status).toBe("success")
    expect(readFileSync(join(root, "x.py"), "utf8")).toBe("def a():\n    return 1\n\ndef b():\n    return 3\n")
  })

  test("a repeated block goes to the occurrence nearest the header's line", async () => {
    const root = tempDir()
    writeFileSync(join(root, "r.txt"), "x\ny\nx\ny\nx\ny\nend\n")
    const out = await callTool(root, "patch", { patch: "--- a/r.txt\n+++ b/r.txt\n@@ -5,2 +5,2 @@\n x\n-y\n+Y\n" })
    expect(out.envelope.status).toBe("success")
    expect(readFileSync(join(root, "r.txt"), "utf8")).toBe("x\ny\nx\ny\nx\nY\nend\n")
    // Far-off numbers: still the nearest, and the report says other places match too.
    writeFileSync(join(root, "r.txt"), "x\ny\nx\ny\nend\n")
    const far = await callTool(root, "patch", { patch: "--- a/r.txt\n+++ b/r.txt\n@@ -90,2 +90,2 @@\n x\n-y\n+Y\n" })
    expect(readFileSync(join(root, "r.txt"), "utf8")).toBe("x\ny\nx\nY\nend\n")
    expect((far.envelope.data as { files: Array<{ offsets?: unknown }> }).files[0]!.offsets).toEqual([{ hunk: 1, expected_line: 90, line: 3, other_matches: 1 }])
    expect(far.envelope.text).toContain("also match 1 other place")
    // Applied, but where the author meant is a guess: a discounted result, as for a loosely matched edit.
    expect(far.envelope.status).toBe("partial")
    expect(far.envelope.text).toContain("Not an exact match: 1 hunk placed loosely")
  })

  test("context differing only in whitespace applies, reported as fuzz", async () => {
    const root = tempDir()
    writeFileSync(join(root, "w.ts"), "function f() {\n\tconst a = 1;   \n\treturn a;\n}\n")
    const patch = "--- a/w.ts\n+++ b/w.ts\n@@ -1,4 +1,4 @@\n function f() {\n   const a = 1;\n-  return a;\n+  return a + 1;\n }\n"
    const dry = await callTool(root, "patch", { patch, dry_run: true })
    expect(dry.envelope.text).toContain("Dry run: the patch applies to 1 file")
    const out = await callTool(root, "patch", { patch })
    expect(out.envelope.status).toBe("partial")
    expect((out.envelope.data as { applied: boolean }).applied).toBe(true)
    // Context lines keep the file's own bytes; the added line is the patch's.
    expect(readFileSync(join(root, "w.ts"), "utf8")).toBe("function f() {\n\tconst a = 1;   \n  return a + 1;\n}\n")
    const f = (out.envelope.data as { files: Array<{ fuzz?: Array<{ hunk: number; line: number; tolerance: string }> }> }).files[0]!
    expect(f.fuzz).toEqual([{ hunk: 1, line: 1, tolerance: "whitespace" }])
    expect(out.envelope.text).toContain("ignoring whitespace differences")
  })

  test("mismatching context in the second file: CONFLICT naming file, hunk and the differing line; no file changes", async () => {
    const good = git(repo, "diff", "-M", revs[0]!, revs[1]!)
    const bad = good.replace(" b line 9\n", " b line NINE\n")
    expect(bad).not.toBe(good)
    const project = checkout(repo, revs[0]!)
    const before = snapshot(project)
    const out = await callTool(project, "patch", { patch: bad })
    expect(out.envelope.status).toBe("error")
    expect(out.envelope.error?.code).toBe("CONFLICT")
    expect(out.envelope.error?.message).toContain("Hunk 1 of src/b.ts (@@ -7,7 +7,7 @@ b line 6)")
    expect(out.envelope.error?.message).toContain('at line 9 the patch expects "b line NINE" but the file has "b line 9"')
    expect(out.envelope.text).toContain("Expected (from the patch):")
    expect(out.envelope.text).toContain('Read(path="src/b.ts", offset=3, limit=20)')
    expect(out.meta.error_code).toBe("CONFLICT")
    expect(snapshot(project)).toEqual(before)
    // git agrees the patch does not apply.
    writeFileSync(join(project, "..", "bad.diff"), bad)
    const check = spawnSync("git", ["apply", "--check", join(project, "..", "bad.diff")], { cwd: project })
    expect(check.status).not.toBe(0)
    expect(snapshot(project)).toEqual(before)
  })

  test("a hunk whose context is nowhere in the file", async () => {
    const root = tempDir()
    writeFileSync(join(root, "a.txt"), "one\ntwo\n")
    const out = await callTool(root, "patch", { patch: "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n zzz\n-qqq\n+rrr\n" })
    expect(out.envelope.error?.code).toBe("CONFLICT")
    expect(out.envelope.error?.message).toContain("none of its 2 context/removed lines match")
    expect(readFileSync(join(root, "a.txt"), "utf8")).toBe("one\ntwo\n")
  })

  test("modifying a missing file is NOT_FOUND, creating an existing one CONFLICT; nothing changes", async () => {
    const root = tempDir()
    writeFileSync(join(root, "here.txt"), "1\n")
    const missing = await callTool(root, "patch", { patch: "--- a/here.txt\n+++ b/here.txt\n@@ -1 +1 @@\n-1\n+2\n--- a/nope.txt\n+++ b/nope.txt\n@@ -1 +1 @@\n-a\n+b\n" })
    expect(missing.envelope.error?.code).toBe("NOT_FOUND")
    expect(missing.envelope.error?.message).toContain("nope.txt does not exist")
    expect(readFileSync(join(root, "here.txt"), "utf8")).toBe("1\n")
    const exists = await callTool(root, "patch", { patch: "diff --git a/here.txt b/here.txt\nnew file mode 100644\n--- /dev/null\n+++ b/here.txt\n@@ -0,0 +1 @@\n+x\n" })
    expect(exists.envelope.error?.code).toBe("CONFLICT")
    expect(exists.envelope.error?.message).toContain("here.txt already exists")
  })

  test("deleting a file whose content differs from the patch's removed lines is refused", async () => {
    const root = tempDir()
    writeFileSync(join(root, "d.txt"), "1\n2\n3\n")
    const out = await callTool(root, "patch", { patch: "diff --git a/d.txt b/d.txt\ndeleted file mode 100644\n--- a/d.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-1\n-2\n" })
    expect(out.envelope.error?.code).toBe("CONFLICT")
    expect(existsSync(join(root, "d.txt"))).toBe(true)
  })

  test("syntax errors are INVALID_PARAM with field_errors on 'patch'", async () => {
    const root = tempDir()
    const none = await callTool(root, "patch", { patch: "just some words\n" })
    expect(none.envelope.error?.code).toBe("INVALID_PARAM")
    expect(none.envelope.error?.field_errors?.[0]?.field).toBe("patch")
    const ctx = await callTool(root, "patch", { patch: "*** a.txt\n--- a.txt\n***************\n*** 1 ****\n" })
    expect(ctx.envelope.error?.message).toContain("context diff")
    const missing = await callTool(root, "patch", {})
    expect(missing.envelope.error?.code).toBe("INVALID_PARAM")
  })
})

describe("patch: dry run, refusals, sandbox", () => {
  test("dry_run reports what would happen, status partial, applied false, nothing written", async () => {
    const patch = git(repo, "diff", "-M", revs[0]!, revs[1]!)
    const project = checkout(repo, revs[0]!)
    const before = snapshot(project)
    const out = await callTool(project, "patch", { patch, dry_run: true })
    expect(out.envelope.status).toBe("partial")
    expect(out.envelope.data).toMatchObject({ applied: false, dry_run: true })
    expect((out.envelope.data as { files: Array<unknown> }).files.length).toBeGreaterThan(5)
    expect(out.envelope.text).toContain("Dry-run only, no actual write performed.")
    expect(out.envelope.text).toContain("Recommended next step")
    expect(snapshot(project)).toEqual(before)
  })

  test("a read-only file is left alone, as write and edit leave it: changed, renamed away or deleted, nothing is written", async () => {
    const root = tempDir()
    writeFileSync(join(root, "ro.txt"), "ro\n")
    writeFileSync(join(root, "ok.txt"), "ok\n")
    writeFileSync(join(root, "src.txt"), "s\n")
    chmodSync(join(root, "ro.txt"), 0o444)
    chmodSync(join(root, "src.txt"), 0o444)
    const patches = [
      "--- a/ok.txt\n+++ b/ok.txt\n@@ -1 +1 @@\n-ok\n+OK\n--- a/ro.txt\n+++ b/ro.txt\n@@ -1 +1 @@\n-ro\n+rw\n",
      "diff --git a/ro.txt b/moved.txt\nsimilarity index 100%\nrename from ro.txt\nrename to moved.txt\n",
      "*** Begin Patch\n*** Delete File: ro.txt\n*** End Patch\n",
    ]
    for (const patch of patches) {
      const out = await callTool(root, "patch", { patch })
      expect([patch, out.envelope.error?.code]).toEqual([patch, "PERMISSION_DENIED"])
      expect(out.envelope.error?.message).toStartWith("ro.txt is read-only (mode 0444), and the patch")
      expect(out.envelope.text).toContain(`Bash(command="chmod u+w 'ro.txt'")`)
    }
    expect([readFileSync(join(root, "ro.txt"), "utf8"), readFileSync(join(root, "ok.txt"), "utf8"), existsSync(join(root, "moved.txt"))]).toEqual(["ro\n", "ok\n", false])
    // Read, not changed: a read-only file may be copied.
    const copy = await callTool(root, "patch", { patch: "diff --git a/src.txt b/copy.txt\nsimilarity index 100%\ncopy from src.txt\ncopy to copy.txt\n" })
    expect(copy.envelope.status).toBe("success")
    expect(readFileSync(join(root, "copy.txt"), "utf8")).toBe("s\n")
  })

  test("parameter aliases: diff / input / patch_text", async () => {
    for (const key of ["diff", "input", "patch_text"]) {
      const root = tempDir()
      writeFileSync(join(root, "a.txt"), "1\n")
      const out = await callTool(root, "apply_patch", { [key]: "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-1\n+2\n" })
      expect(out.envelope.status).toBe("success")
      expect(readFileSync(join(root, "a.txt"), "utf8")).toBe("2\n")
    }
  })

  test("strip overrides prefix detection", async () => {
    const root = tempDir()
    mkdirSync(join(root, "src"))
    writeFileSync(join(root, "src/a.txt"), "1\n")
    const out = await callTool(root, "patch", { patch: "--- proj/v1/src/a.txt\n+++ proj/v2/src/a.txt\n@@ -1 +1 @@\n-1\n+2\n", strip: 2 })
    expect(out.envelope.status).toBe("success")
    expect(readFileSync(join(root, "src/a.txt"), "utf8")).toBe("2\n")
    const wrong = await callTool(root, "patch", { patch: "--- a/src/a.txt\n+++ b/src/a.txt\n@@ -1 +1 @@\n-2\n+3\n", strip: 0 })
    expect(wrong.envelope.error?.code).toBe("NOT_FOUND")
  })

  test("binary patches are refused and nothing is applied (git diff --binary and 'Binary files differ')", async () => {
    const r = tempDir("anvil-patch-bin-")
    git(r, "init", "-q")
    const c0 = commit(r, "0", { "text.txt": "t\n", "img.bin": new Uint8Array([0, 1, 2, 3, 255]) })
    const c1 = commit(r, "1", { "text.txt": "changed\n", "img.bin": new Uint8Array([0, 9, 9, 9, 255, 7]) })
    for (const args of [["--binary"], []]) {
      const patch = git(r, "diff", ...args, c0, c1)
      expect(patch).toContain(args.length > 0 ? "GIT binary patch" : "Binary files")
      const project = checkout(r, c0)
      const before = snapshot(project)
      const out = await callTool(project, "patch", { patch })
      expect(out.envelope.error?.code).toBe("BINARY_FILE")
      expect(out.envelope.error?.message).toContain("img.bin")
      expect(out.envelope.error?.message).toContain("nothing was changed")
      expect(snapshot(project)).toEqual(before)
    }
  })

  test("a text diff against a file that is binary on disk is BINARY_FILE", async () => {
    const root = tempDir()
    writeFileSync(join(root, "b.dat"), new Uint8Array([97, 0, 98, 10]))
    const out = await callTool(root, "patch", { patch: "--- a/b.dat\n+++ b/b.dat\n@@ -1 +1 @@\n-a\n+c\n" })
    expect(out.envelope.error?.code).toBe("BINARY_FILE")
  })

  test("submodule changes and symlinks are refused", async () => {
    const root = tempDir()
    writeFileSync(join(root, "keep.txt"), "k\n")
    const sub = "diff --git a/keep.txt b/keep.txt\n--- a/keep.txt\n+++ b/keep.txt\n@@ -1 +1 @@\n-k\n+K\n" +
      "diff --git a/vendor/lib b/vendor/lib\nindex 1111111..2222222 160000\n--- a/vendor/lib\n+++ b/vendor/lib\n@@ -1 +1 @@\n-Subproject commit 1111111111111111111111111111111111111111\n+Subproject commit 2222222222222222222222222222222222222222\n"
    const out = await callTool(root, "patch", { patch: sub })
    expect(out.envelope.error?.code).toBe("INVALID_PARAM")
    expect(out.envelope.error?.message).toContain("submodule")
    expect(readFileSync(join(root, "keep.txt"), "utf8")).toBe("k\n")
    const link = await callTool(root, "patch", { patch: "diff --git a/l b/l\nnew file mode 120000\n--- /dev/null\n+++ b/l\n@@ -0,0 +1 @@\n+/etc/passwd\n\\ No newline at end of file\n" })
    expect(link.envelope.error?.message).toContain("symbolic link")
    expect(existsSync(join(root, "l"))).toBe(false)
  })

  test("deleting or moving a path that is a symbolic link is refused: the link's target is never deleted or moved in its place", async () => {
    const patches = [
      "--- a/link.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-real\n",
      "diff --git a/link.txt b/moved.txt\nsimilarity index 100%\nrename from link.txt\nrename to moved.txt\n",
      "*** Begin Patch\n*** Delete File: link.txt\n*** End Patch",
      "*** Begin Patch\n*** Update File: link.txt\n*** Move to: moved.txt\n@@\n-real\n+REAL\n*** End Patch",
    ]
    for (const patch of patches) {
      const root = tempDir()
      writeFileSync(join(root, "real.txt"), "real\n")
      symlinkSync("real.txt", join(root, "link.txt"))
      const out = await callTool(root, "patch", { patch })
      expect(out.envelope.status).toBe("error")
      expect(out.envelope.error?.code).toBe("INVALID_PARAM")
      expect(out.envelope.error?.message).toContain("symbolic link")
      expect(readFileSync(join(root, "real.txt"), "utf8")).toBe("real\n")
      expect(lstatSync(join(root, "link.txt")).isSymbolicLink()).toBe(true)
      expect(existsSync(join(root, "moved.txt"))).toBe(false)
    }
    // Changing the text through a link still writes its target and keeps the link.
    const root = tempDir()
    writeFileSync(join(root, "real.txt"), "real\n")
    symlinkSync("real.txt", join(root, "link.txt"))
    const out = await callTool(root, "patch", { patch: "--- a/link.txt\n+++ b/link.txt\n@@ -1 +1 @@\n-real\n+REAL\n" })
    expect(out.envelope.status).toBe("success")
    expect(readFileSync(join(root, "real.txt"), "utf8")).toBe("REAL\n")
    expect(lstatSync(join(root, "link.txt")).isSymbolicLink()).toBe(true)
  })

  test("sandbox: ../outside, an absolute outside path and a symlink leading out are ACCESS_DENIED before anything is written", async () => {
    const outside = tempDir("anvil-outside-")
    writeFileSync(join(outside, "victim.txt"), "safe\n")
    const root = tempDir()
    writeFileSync(join(root, "in.txt"), "1\n")
    symlinkSync(outside, join(root, "escape"))
    const first = "--- a/in.txt\n+++ b/in.txt\n@@ -1 +1 @@\n-1\n+2\n"
    const attempts = [
      `${first}--- ../${outside.split("/").pop()}/victim.txt\n+++ ../${outside.split("/").pop()}/victim.txt\n@@ -1 +1 @@\n-safe\n+owned\n`,
      `${first}--- ${outside}/victim.txt\n+++ ${outside}/victim.txt\n@@ -1 +1 @@\n-safe\n+owned\n`,
      `${first}--- a/escape/victim.txt\n+++ b/escape/victim.txt\n@@ -1 +1 @@\n-safe\n+owned\n`,
      `${first}diff --git a/x b/x\nnew file mode 100644\n--- /dev/null\n+++ b/../planted.txt\n@@ -0,0 +1 @@\n+x\n`,
      `*** Begin Patch\n*** Update File: in.txt\n@@\n-1\n+2\n*** Add File: escape/new.txt\n+x\n*** End Patch`,
    ]
    for (const patch of attempts) {
      const out = await callTool(root, "patch", { patch })
      expect(out.envelope.error?.code).toBe("ACCESS_DENIED")
      expect(readFileSync(join(root, "in.txt"), "utf8")).toBe("1\n")
      expect(readFileSync(join(outside, "victim.txt"), "utf8")).toBe("safe\n")
      expect(readdirSync(outside)).toEqual(["victim.txt"])
    }
  })

  test("paths inside .git are refused", async () => {
    const root = tempDir()
    mkdirSync(join(root, ".git"))
    const out = await callTool(root, "patch", { patch: "diff --git a/.git/hooks/pre-commit b/.git/hooks/pre-commit\nnew file mode 100755\n--- /dev/null\n+++ b/.git/hooks/pre-commit\n@@ -0,0 +1 @@\n+echo\n" })
    expect(out.envelope.error?.code).toBe("ACCESS_DENIED")
    expect(existsSync(join(root, ".git/hooks"))).toBe(false)
  })
})

describe("patch: line endings and final newlines", () => {
  test("a LF-only diff applies to a CRLF file and keeps CRLF", async () => {
    const root = tempDir()
    writeFileSync(join(root, "w.txt"), "one\r\ntwo\r\nthree\r\n")
    const out = await callTool(root, "patch", { patch: "--- a/w.txt\n+++ b/w.txt\n@@ -1,3 +1,4 @@\n one\n-two\n+TWO\n+two and a half\n three\n" })
    expect(out.envelope.status).toBe("success")
    expect(readFileSync(join(root, "w.txt"), "utf8")).toBe("one\r\nTWO\r\ntwo and a half\r\nthree\r\n")
  })

  test("a patch sent entirely with CRLF (headers too) applies to a LF file as LF", async () => {
    const root = tempDir()
    writeFileSync(join(root, "l.txt"), "a\nb\n")
    const out = await callTool(root, "patch", { patch: "--- a/l.txt\r\n+++ b/l.txt\r\n@@ -1,2 +1,2 @@\r\n a\r\n-b\r\n+c\r\n" })
    expect(out.envelope.status).toBe("success")
    expect(readFileSync(join(root, "l.txt"), "utf8")).toBe("a\nc\n")
  })

  test("no newline at end of file on either side", async () => {
    const root = tempDir()
    writeFileSync(join(root, "n.txt"), "a\nb")
    const add = await callTool(root, "patch", { patch: "--- a/n.txt\n+++ b/n.txt\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n" })
    expect(add.envelope.status).toBe("success")
    expect(readFileSync(join(root, "n.txt"), "utf8")).toBe("a\nb\n")
    const drop = await callTool(root, "patch", { patch: "--- a/n.txt\n+++ b/n.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+b\n\\ No newline at end of file\n" })
    expect(drop.envelope.status).toBe("success")
    expect(readFileSync(join(root, "n.txt"), "utf8")).toBe("a\nb")
    // A model's patch that never mentions the final newline keeps the file's state.
    const keep = await callTool(root, "patch", { patch: "--- a/n.txt\n+++ b/n.txt\n@@\n a\n b\n+c\n" })
    expect(keep.envelope.status).toBe("success")
    expect(readFileSync(join(root, "n.txt"), "utf8")).toBe("a\nb\nc")
  })

  test("a UTF-8 BOM is kept when the patch does not mention it", async () => {
    const root = tempDir()
    writeFileSync(join(root, "b.txt"), "\uFEFFfirst\nsecond\n")
    const out = await callTool(root, "patch", { patch: "--- a/b.txt\n+++ b/b.txt\n@@ -1,2 +1,2 @@\n-first\n+FIRST\n second\n" })
    expect(out.envelope.status).toBe("success")
    expect(readFileSync(join(root, "b.txt"), "utf8")).toBe("\uFEFFFIRST\nsecond\n")
  })
})

// ---------------------------------------------------------------------------
// The `*** Begin Patch` envelope.
// ---------------------------------------------------------------------------

describe("patch: *** Begin Patch envelope", () => {
  test("add, delete, update with anchors, move with edits, in one patch", async () => {
    const root = tempDir()
    writeFileSync(join(root, "app.py"), "class A:\n    def greet(self):\n        print('hi')\n\nclass B:\n    def greet(self):\n        print('hi')\n")
    writeFileSync(join(root, "old.txt"), "bye\n")
    mkdirSync(join(root, "pkg"))
    writeFileSync(join(root, "pkg/mod.py"), "x = 1\ny = 2\n")
    const patch = [
      "*** Begin Patch",
      "*** Add File: docs/hello.txt",
      "+Hello",
      "+world",
      "*** Update File: app.py",
      "@@ class B:",
      "@@     def greet(self):",
      "-        print('hi')",
      "+        print('hello from B')",
      "*** Delete File: old.txt",
      "*** Update File: pkg/mod.py",
      "*** Move to: pkg/renamed.py",
      "@@",
      " x = 1",
      "-y = 2",
      "+y = 3",
      "*** End Patch",
    ].join("\n")
    const out = await callTool(root, "patch", { patch })
    if (out.envelope.status !== "success") throw new Error(out.envelope.text)
    expect(readFileSync(join(root, "docs/hello.txt"), "utf8")).toBe("Hello\nworld\n")
    expect(readFileSync(join(root, "app.py"), "utf8")).toBe("class A:\n    def greet(self):\n        print('hi')\n\nclass B:\n    def greet(self):\n        print('hello from B')\n")
    expect(existsSync(join(root, "old.txt"))).toBe(false)
    expect(existsSync(join(root, "pkg/mod.py"))).toBe(false)
    expect(readFileSync(join(root, "pkg/renamed.py"), "utf8")).toBe("x = 1\ny = 3\n")
    const data = out.envelope.data as { format: string; files: Array<{ path: string; operation: string; old_path?: string }> }
    expect(data.format).toBe("begin-patch")
    expect(data.files.map((f) => [f.operation, f.path, f.old_path ?? ""])).toEqual([
      ["create", "docs/hello.txt", ""],
      ["modify", "app.py", ""],
      ["delete", "old.txt", ""],
      ["rename", "pkg/renamed.py", "pkg/mod.py"],
    ])
    // The deleted file's line is counted, not reported as an empty file.
    expect(out.envelope.stats.deletions).toBe(3)
    expect(out.envelope.text).toContain("D old.txt (+0 -1)")
  })

  test("several hunks apply in order; *** End of File pins a hunk to the end", async () => {
    const root = tempDir()
    writeFileSync(join(root, "t.txt"), "x\nsame\nx\nsame\nlast\n")
    const patch = "*** Begin Patch\n*** Update File: t.txt\n@@\n-same\n+first\n@@\n x\n-same\n+second\n*** End of File\n*** End Patch\n"
    const out = await callTool(root, "patch", { patch })
    // The second hunk is searched from the end: "x / same" is not last (a "last" line follows), so the nearest before it.
    expect(out.envelope.status).toBe("success")
    expect(readFileSync(join(root, "t.txt"), "utf8")).toBe("x\nfirst\nx\nsecond\nlast\n")
    const pinned = tempDir()
    writeFileSync(join(pinned, "e.txt"), "a\nb\na\nb\n")
    const out2 = await callTool(pinned, "patch", { patch: "*** Begin Patch\n*** Update File: e.txt\n@@\n a\n-b\n+B\n*** End of File\n*** End Patch" })
    expect(out2.envelope.status).toBe("success")
    expect(readFileSync(join(pinned, "e.txt"), "utf8")).toBe("a\nb\na\nB\n")
  })

  test("a pure addition after an anchor, and at the end without one", async () => {
    const root = tempDir()
    writeFileSync(join(root, "f.txt"), "head\nbody\ntail\n")
    const out = await callTool(root, "patch", { patch: "*** Begin Patch\n*** Update File: f.txt\n@@ head\n+inserted\n*** End Patch" })
    expect(out.envelope.status).toBe("success")
    expect(readFileSync(join(root, "f.txt"), "utf8")).toBe("head\ninserted\nbody\ntail\n")
    const end = await callTool(root, "patch", { patch: "*** Begin Patch\n*** Update File: f.txt\n@@\n+appended\n*** End Patch" })
    expect(end.envelope.status).toBe("success")
    expect(readFileSync(join(root, "f.txt"), "utf8")).toBe("head\ninserted\nbody\ntail\nappended\n")
  })

  test("keeps CRLF, tolerates a heredoc wrapper and a Markdown fence", async () => {
    const root = tempDir()
    writeFileSync(join(root, "c.txt"), "a\r\nb\r\n")
    const wrapped = "<<'EOF'\n*** Begin Patch\n*** Update File: c.txt\n@@\n a\n-b\n+B\n*** End Patch\nEOF\n"
    expect((await callTool(root, "patch", { patch: wrapped })).envelope.status).toBe("success")
    expect(readFileSync(join(root, "c.txt"), "utf8")).toBe("a\r\nB\r\n")
    const fenced = "```\n*** Begin Patch\n*** Update File: c.txt\n@@\n-B\n+C\n*** End Patch\n```\n"
    expect((await callTool(root, "patch", { patch: fenced })).envelope.status).toBe("success")
    expect(readFileSync(join(root, "c.txt"), "utf8")).toBe("a\r\nC\r\n")
  })

  test("errors: missing context, missing anchor, no end marker, add over an existing file — nothing changes", async () => {
    const root = tempDir()
    writeFileSync(join(root, "k.txt"), "keep\nme\n")
    writeFileSync(join(root, "other.txt"), "o\n")
    const cases: Array<[string, string, string]> = [
      ["*** Begin Patch\n*** Update File: other.txt\n@@\n-o\n+p\n*** Update File: k.txt\n@@\n-nothere\n+x\n*** End Patch", "CONFLICT", 'The patch expects "nothere" first'],
      ["*** Begin Patch\n*** Update File: k.txt\n@@ def missing():\n-me\n+you\n*** End Patch", "CONFLICT", 'anchor line "def missing():" was not found'],
      ["*** Begin Patch\n*** Update File: k.txt\n@@\n-me\n+you\n", "INVALID_PARAM", "*** End Patch"],
      ["*** Begin Patch\n*** Update File: other.txt\n@@\n-o\n+p\n*** Add File: k.txt\n+x\n*** End Patch", "CONFLICT", "k.txt already exists"],
      ["*** Begin Patch\n*** Frobnicate File: k.txt\n*** End Patch", "INVALID_PARAM", "Frobnicate"],
      ["*** Begin Patch\n*** Delete File: absent.txt\n*** End Patch", "NOT_FOUND", "absent.txt does not exist"],
    ]
    for (const [patch, code, text] of cases) {
      const out = await callTool(root, "patch", { patch })
      expect({ code: out.envelope.error?.code, message: out.envelope.error?.message.includes(text) ? text : out.envelope.error?.message }).toEqual({ code: code as never, message: text })
      expect(readFileSync(join(root, "k.txt"), "utf8")).toBe("keep\nme\n")
      expect(readFileSync(join(root, "other.txt"), "utf8")).toBe("o\n")
    }
  })

  test("dry run of a Begin Patch", async () => {
    const root = tempDir()
    const out = await callTool(root, "patch", { patch: "*** Begin Patch\n*** Add File: n.txt\n+n\n*** End Patch", dry_run: true })
    expect(out.envelope.status).toBe("partial")
    expect(out.envelope.data).toMatchObject({ applied: false, files: [{ path: "n.txt", operation: "create", additions: 1 }] })
    expect(existsSync(join(root, "n.txt"))).toBe(false)
  })
})

describe("patch: one patch touching a file twice, ledger", () => {
  test("two sections for the same file apply in sequence", async () => {
    const root = tempDir()
    writeFileSync(join(root, "s.txt"), "1\n2\n3\n")
    const out = await callTool(root, "patch", { patch: "--- a/s.txt\n+++ b/s.txt\n@@ -1 +1 @@\n-1\n+one\n--- a/s.txt\n+++ b/s.txt\n@@ -1,2 +1,2 @@\n one\n-2\n+two\n" })
    expect(out.envelope.status).toBe("success")
    expect(readFileSync(join(root, "s.txt"), "utf8")).toBe("one\ntwo\n3\n")
  })

  test("keeps the file's permission bits", async () => {
    const root = tempDir()
    writeFileSync(join(root, "x.sh"), "echo 1\n")
    chmodSync(join(root, "x.sh"), 0o750)
    const out = await callTool(root, "patch", { patch: "--- a/x.sh\n+++ b/x.sh\n@@ -1 +1 @@\n-echo 1\n+echo 2\n" })
    expect(out.envelope.status).toBe("success")
    expect(statSync(join(root, "x.sh")).mode & 0o777).toBe(0o750)
  })
})
