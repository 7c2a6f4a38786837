import { describe, expect, test } from "bun:test"
import { applyToText } from "../../src/patch/apply.ts"
import { parseDiffGitNames, parseHeaderName, stripComponents, unquoteAt } from "../../src/patch/git-path.ts"
import type { FilePatch } from "../../src/patch/model.ts"
import { parsePatch } from "../../src/patch/parse.ts"
import { PatchProblem } from "../../src/patch/patch-problem.ts"
import { LineView } from "../../src/patch/text-lines.ts"
import { problemToError } from "../../src/tools/patch-errors.ts"

const problem = (f: () => unknown): PatchProblem => {
  try {
    f()
  } catch (e) {
    if (e instanceof PatchProblem) return e
    throw e
  }
  throw new Error("expected a PatchProblem")
}

describe("git-path", () => {
  test("C-quoted names: escapes and octal UTF-8 bytes", () => {
    expect(unquoteAt('"a/t\\tab"', 0)).toEqual({ name: "a/t\tab", end: 9 })
    expect(unquoteAt('"b/\\303\\274n\\303\\257.txt" rest', 0)?.name).toBe("b/ünï.txt")
    expect(unquoteAt('"a/q\\"uote\\\\"', 0)?.name).toBe('a/q"uote\\')
    expect(unquoteAt('"unterminated', 0)).toBeUndefined()
  })

  test("---/+++ names: git's trailing TAB, diff -u timestamps, quoted names", () => {
    expect(parseHeaderName("a/with space.txt\t")).toEqual({ name: "a/with space.txt" })
    expect(parseHeaderName("old/x.txt\t2024-01-02 03:04:05.000000000 +0100")).toEqual({ name: "old/x.txt", timestamp: "2024-01-02 03:04:05.000000000 +0100" })
    expect(parseHeaderName('"a/t\\tab"')).toEqual({ name: "a/t\tab" })
    expect(parseHeaderName("b/plain.txt")).toEqual({ name: "b/plain.txt" })
  })

  test("diff --git names with spaces split where both sides agree", () => {
    expect(parseDiffGitNames("a/my file.txt b/my file.txt")).toEqual({ a: "a/my file.txt", b: "b/my file.txt" })
    expect(parseDiffGitNames("my file.txt my file.txt")).toEqual({ a: "my file.txt", b: "my file.txt" })
    expect(parseDiffGitNames('"a/t\\tab" "b/t\\tab"')).toEqual({ a: "a/t\tab", b: "b/t\tab" })
    expect(parseDiffGitNames("a/old.txt b/new.txt")).toEqual({ a: "a/old.txt", b: "b/new.txt" })
  })

  test("strip components like patch -p", () => {
    expect(stripComponents("a/src/x.ts", 1)).toBe("src/x.ts")
    expect(stripComponents("a//src/x.ts", 1)).toBe("src/x.ts")
    expect(stripComponents("x.ts", 1)).toBeUndefined()
    expect(stripComponents("x.ts", 0)).toBe("x.ts")
  })
})

describe("parseUnified", () => {
  test("prefix detection: a/ b/, mnemonic, diff -ru folders, none", () => {
    const one = (old: string, neu: string) => parsePatch(`--- ${old}\n+++ ${neu}\n@@ -1 +1 @@\n-a\n+b\n`).files[0]!
    expect(one("a/src/x.ts", "b/src/x.ts")).toMatchObject({ operation: "modify", oldPath: "src/x.ts", newPath: "src/x.ts" })
    expect(one("i/x.ts", "w/x.ts")).toMatchObject({ oldPath: "x.ts", newPath: "x.ts" })
    expect(one("old/lib/x.ts", "new/lib/x.ts")).toMatchObject({ oldPath: "lib/x.ts" })
    expect(one("src/x.ts", "src/x.ts")).toMatchObject({ oldPath: "src/x.ts" })
    expect(parsePatch("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n", { strip: 0 }).files[0]).toMatchObject({ oldPath: "a/x", newPath: "b/x" })
  })

  test("diff -N epoch timestamps mean created / deleted", () => {
    const created = parsePatch("--- old/n.txt\t1970-01-01 00:00:00.000000000 +0000\n+++ new/n.txt\t2024-01-01 10:00:00.000000000 +0000\n@@ -0,0 +1 @@\n+x\n").files[0]!
    expect(created).toMatchObject({ operation: "create", newPath: "n.txt" })
    const deleted = parsePatch("--- old/n.txt\t2024-01-01 10:00:00.000000000 +0000\n+++ new/n.txt\t1970-01-01 00:00:00.000000000 +0000\n@@ -1 +0,0 @@\n-x\n").files[0]!
    expect(deleted).toMatchObject({ operation: "delete", oldPath: "n.txt" })
  })

  test("git extended headers: rename, copy, modes, empty new file, mode only", () => {
    const p = parsePatch(
      [
        "diff --git a/old name.txt b/new name.txt",
        "similarity index 90%",
        "rename from old name.txt",
        "rename to new name.txt",
        "index 1111111..2222222 100644",
        "--- a/old name.txt\t",
        "+++ b/new name.txt\t",
        "@@ -1 +1 @@",
        "-a",
        "+b",
        "diff --git a/src.txt b/copy.txt",
        "similarity index 100%",
        "copy from src.txt",
        "copy to copy.txt",
        "diff --git a/run.sh b/run.sh",
        "old mode 100644",
        "new mode 100755",
        "diff --git a/empty b/empty",
        "new file mode 100644",
        "index 0000000..e69de29",
      ].join("\n"),
    )
    expect(p.format).toBe("git")
    expect(p.files.map((f) => [f.operation, f.oldPath, f.newPath, f.oldMode, f.newMode, f.hunks.length])).toEqual([
      ["rename", "old name.txt", "new name.txt", "100644", "100644", 1],
      ["copy", "src.txt", "copy.txt", undefined, undefined, 0],
      ["mode", "run.sh", "run.sh", "100644", "100755", 0],
      ["create", undefined, "empty", undefined, "100644", 0],
    ])
  })

  test("a pure rename or copy of names with spaces (the 'diff --git' line cannot be split) takes its names from the rename/copy lines", () => {
    const p = parsePatch(
      [
        "diff --git a/sp ace.txt b/sp ace2.txt",
        "similarity index 100%",
        "rename from sp ace.txt",
        "rename to sp ace2.txt",
        "diff --git a/my src.txt b/my copy.txt",
        "similarity index 100%",
        "copy from my src.txt",
        "copy to my copy.txt",
        "diff --git a/an empty b/an empty",
        "new file mode 100644",
        "index 0000000..e69de29",
      ].join("\n"),
    )
    expect(p.files.map((f) => [f.operation, f.oldPath, f.newPath])).toEqual([
      ["rename", "sp ace.txt", "sp ace2.txt"],
      ["copy", "my src.txt", "my copy.txt"],
      ["create", undefined, "an empty"],
    ])
  })

  test("hunk bodies: no-newline markers, CR kept per line, empty context lines, a format-patch signature", () => {
    const p = parsePatch("--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\r\n\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n-- \n2.39.5\n")
    const h = p.files[0]!.hunks[0]!
    expect(h.lines).toEqual([
      { kind: " ", text: "a", cr: true },
      { kind: " ", text: "", cr: false },
      { kind: "-", text: "b", cr: false },
      { kind: "+", text: "c", cr: false },
    ])
    expect([h.oldNoNewline, h.newNoNewline]).toEqual([true, true])
  })

  test("wrong counts: the body is trusted either way", () => {
    const tooSmall = parsePatch("--- a/x\n+++ b/x\n@@ -1,1 +1,1 @@\n a\n-b\n+c\n d\n").files[0]!.hunks[0]!
    expect(tooSmall.lines.length).toBe(4)
    expect(tooSmall.countsCorrected).toBe(true)
    const tooBig = parsePatch("--- a/x\n+++ b/x\n@@ -1,9 +1,9 @@\n a\n-b\n+c\n--- a/y\n+++ b/y\n@@ -1 +1 @@\n-y\n+z\n").files
    expect(tooBig.map((f) => [f.oldPath, f.hunks[0]!.lines.length])).toEqual([["x", 3], ["y", 2]])
  })

  test("syntax problems name the line", () => {
    expect(problem(() => parsePatch("--- a/x\n+++ b/x\n@@ -1 +1 @@\n a\n")).message).toContain("changes nothing")
    expect(problem(() => parsePatch("--- a/x\n+++ b/x\n@@ -x +1 @@\n-a\n")).message).toMatch(/^Patch line 3: malformed hunk header/)
    expect(problem(() => parsePatch("@@ -1 +1 @@\n-a\n+b\n")).message).toContain("before any file header")
    expect(problemToError(problem(() => parsePatch("diff --git a/b.png b/b.png\nindex 1..2 100644\nGIT binary patch\nliteral 5\n"))).code).toBe("BINARY_FILE")
  })

  test("a Markdown fence around the patch is dropped", () => {
    expect(parsePatch("```diff\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n```\n").files[0]!.oldPath).toBe("x")
  })
})

describe("parseBeginPatch", () => {
  test("stacked anchors, End of File, bare empty lines, move", () => {
    const p = parsePatch(
      "*** Begin Patch\n*** Update File: a.py\n*** Move to: b.py\n@@ class A\n@@ def f():\n x\n\n-y\n+z\n*** End of File\n\n@@\n-q\n+r\n*** End Patch\n",
    )
    const f = p.files[0]!
    expect(f).toMatchObject({ operation: "rename", oldPath: "a.py", newPath: "b.py", beginPatch: true })
    expect(f.hunks.map((h) => [h.anchors ?? [], h.atEnd ?? false, h.lines.map((l) => l.kind + l.text)])).toEqual([
      [["class A", "def f():"], true, [" x", " ", "-y", "+z"]],
      [[], false, ["-q", "+r"]],
    ])
  })

  test("problems: missing end marker, stray lines, empty update", () => {
    expect(problem(() => parsePatch("*** Begin Patch\n*** Add File: x\n+a\n")).message).toContain("*** End Patch")
    expect(problem(() => parsePatch("*** Begin Patch\n*** Update File: x\n@@\n-a\nstray\n*** End Patch")).message).toContain("unexpected line")
    expect(problem(() => parsePatch("*** Begin Patch\n*** Update File: x\n*** End Patch")).message).toContain("has no hunks")
  })
})

describe("applyToText", () => {
  const fp = (patch: string): FilePatch => parsePatch(patch).files[0]!
  const apply = (old: string, patch: string) => applyToText(old, fp(patch), "f").text

  test("-U0 insertions go where the header says", () => {
    expect(apply("a\nb\nc\n", "--- a/f\n+++ b/f\n@@ -2,0 +3 @@\n+new\n")).toBe("a\nb\nnew\nc\n")
    expect(apply("a\nb\n", "--- a/f\n+++ b/f\n@@ -0,0 +1 @@\n+top\n")).toBe("top\na\nb\n")
  })

  test("mixed line endings: added lines take the file's dominant ending, context keeps its own", () => {
    expect(apply("a\r\nb\nc\r\n", "--- a/f\n+++ b/f\n@@ -1,3 +1,4 @@\n a\n b\n+x\n c\n")).toBe("a\r\nb\nx\r\nc\r\n")
  })

  test("a last line without newline that is no longer last gets the file's ending", () => {
    expect(apply("a\r\nb", "--- a/f\n+++ b/f\n@@\n a\n b\n+c\n")).toBe("a\r\nb\r\nc")
    expect(apply("a\nb", "--- a/f\n+++ b/f\n@@ -1,2 +1,3 @@\n a\n-b\n\\ No newline at end of file\n+b\n+c\n")).toBe("a\nb\nc\n")
  })

  test("punctuation look-alikes in context match, reported as such", () => {
    const r = applyToText("say(\u201Chi\u201D)\nend\n", fp('--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n-say("hi")\n+say("bye")\n end\n'), "f")
    expect(r.text).toBe('say("bye")\nend\n')
    expect(r.placements[0]!.tolerance).toBe("punctuation")
  })

  test("the LineView keeps bytes: CR before LF only, a CR-ended last line, BOM", () => {
    const v = new LineView("\uFEFFa\r\n\r\nb\nc\r")
    expect([v.bom, v.count, v.line(0), v.eol(0), v.line(1), v.eol(1), v.line(2), v.eol(2), v.line(3), v.eol(3)]).toEqual([
      true, 4, "a", "\r\n", "", "\r\n", "b", "\n", "c\r", "",
    ])
  })
})
