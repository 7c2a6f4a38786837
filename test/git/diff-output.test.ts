import { describe, expect, test } from "bun:test"
import { parseDiff } from "../../src/git/cli-backend.ts"

const bytes = (...parts: ReadonlyArray<string | Uint8Array>): Uint8Array =>
  Buffer.concat(parts.map((p) => (typeof p === "string" ? Buffer.from(p) : Buffer.from(p))))

describe("parseDiff (git diff --raw -z -p)", () => {
  const modified = "diff --git a/:odd name.txt b/:odd name.txt\nindex 1111111..2222222 100644\n--- a/:odd name.txt\n+++ b/:odd name.txt\n@@ -1,3 +1,3 @@\n-a\n+b\n c\n-d\n"
  const renamed = 'diff --git "a/old\\351.txt" b/new.txt\nsimilarity index 90%\nrename from "old\\351.txt"\nrename to new.txt\n@@ -1 +1,2 @@\n x\n+y\n'
  const combined = "diff --cc conf.txt\nindex 1,2..3\n--- a/conf.txt\n+++ b/conf.txt\n@@@ -1,1 -1,1 +1,5 @@@\n++<<<<<<< HEAD\n +a\n"
  const deleted = "diff --git a/link b/link\ndeleted file mode 100644\nindex 3333333..0000000\n--- a/link\n+++ /dev/null\n@@ -1 +0,0 @@\n-+not an addition\n"
  const added = "diff --git a/link b/link\nnew file mode 120000\nindex 0000000..4444444\n--- /dev/null\n+++ b/link\n@@ -0,0 +1 @@\n+target\n\\ No newline at end of file\n"
  const binary = "diff --git a/bin b/bin\nindex 5555555..6666666 100644\nBinary files a/bin and b/bin differ\n"

  test("records decoded at once still pair with their chunks: a path starting with ':', a rename from a name that is not UTF-8, a conflict, a file turned symlink, a binary file", () => {
    const out = parseDiff(
      bytes(
        ":100644 100644 1111111 2222222 M\0:odd name.txt\0",
        ":100644 100644 7777777 8888888 R090\0old",
        new Uint8Array([0xe9]),
        ".txt\0new.txt\0",
        "::100644 100644 100644 aaaaaaa bbbbbbb ccccccc UU\0conf.txt\0",
        ":100644 120000 3333333 4444444 T\0link\0",
        ":100644 100644 5555555 6666666 M\0bin\0",
        "\0",
        modified,
        renamed,
        combined,
        deleted,
        added,
        binary,
      ),
    )
    expect(out.files).toEqual([
      { path: ":odd name.txt", status: "modified", additions: 1, deletions: 2 },
      { path: "new.txt", old_path: "old\udce9.txt", status: "renamed", additions: 1, deletions: 0 },
      { path: "link", status: "deleted", additions: 0, deletions: 1 },
      { path: "link", status: "added", additions: 1, deletions: 0 },
      { path: "bin", status: "modified", additions: 0, deletions: 0 },
    ])
    expect(out.unmerged).toEqual(["conf.txt"])
    // The combined diff is left out; each chunk keeps its text, the last newline dropped.
    expect(out.content).toBe([modified + renamed, deleted + added + binary].map((t) => t.replace(/\n$/, "")).join("\n"))
  })

  test("no changes, and records without a patch", () => {
    expect(parseDiff(new Uint8Array(0))).toEqual({ content: "", files: [], unmerged: [], withheld: [] })
    const out = parseDiff(bytes(":100644 100755 1111111 1111111 M\0run.sh\0"))
    expect(out.files).toEqual([{ path: "run.sh", status: "modified", additions: 0, deletions: 0 }])
    expect(out.content).toBe("")
  })
})
