import { describe, expect, test } from "bun:test"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { workspaceToolError } from "../../src/tools/workspace-errors.ts"
import { fromErrno } from "../../src/workspace/fs-error.ts"
import { renderHint } from "../../src/protocol/hint.ts"
import { anvilBinary } from "../support/binary.ts"
import { runProcess } from "../support/anvil-cli.ts"
import { project, tempDir } from "../support/harness.ts"

/**
 * A file system that refuses a write for itself (full, over quota, read-only, a file past its size limit) is not
 * the file's fault: the error names the file and ends with a look at that file system, as every error ends
 * with a next step; any other file-system error with a look at the file.
 */

const steps = (code: string, shown: string) => workspaceToolError(fromErrno(code, shown, `${code}: failed`)).hints?.map(renderHint)

describe("a file system that refuses a write", () => {
  test("each errno: the code, and a look at the file system from the project (its own folders may not exist)", () => {
    expect(workspaceToolError(fromErrno("ENOSPC", "sub/deep/a.txt", "")).code).toBe("EXECUTION_ERROR")
    expect(steps("ENOSPC", "sub/deep/a.txt")).toEqual([`Bash(command="df -h '.'")`])
    expect(steps("EDQUOT", "a.txt")).toEqual([`Bash(command="df -h '.'")`])
    expect(steps("EFBIG", "a.txt")).toEqual([`Bash(command="ulimit -f; df -hT '.'")`])
    expect(workspaceToolError(fromErrno("EROFS", "a.txt", "")).code).toBe("PERMISSION_DENIED")
    expect(steps("EROFS", "a.txt")).toEqual([`Bash(command="df -h '.'")`])
    // anvil's state folder, outside the project: looked at from its own folder.
    expect(steps("ENOSPC", "/home/u/.cache/anvil/projects/x/todos/cli.json")).toEqual([`Bash(command="df -h '/home/u/.cache/anvil/projects/x/todos'")`])
    // Anything else: a look at the file.
    expect(steps("EIO", "a b.txt")).toEqual([`Bash(command="ls -ld 'a b.txt'")`])
  })

  test("through the binary: a write past the file-size limit (ulimit -f) is refused whole, with the next step", async () => {
    const root = project({ "keep.txt": "old\n", "p.diff": "" })
    const big = "y".repeat(50_000)
    const calls: Array<[string, unknown]> = [
      ["write", { path: "big.txt", content: big }],
      ["write", { path: "keep.txt", content: big }],
      ["edit", { path: "keep.txt", old_string: "old", new_string: big }],
      ["patch", { patch: `--- a/keep.txt\n+++ b/keep.txt\n@@ -1 +1 @@\n-old\n+${big}\n` }],
    ]
    for (const [tool, params] of calls) {
      // The limit is 20 blocks of 1 KiB: far below the 50 KB written, far above anything else the call writes.
      const r = await runProcess(["/bin/sh", "-c", `ulimit -f 20 && exec "$0" tool "$1" "$2"`, anvilBinary(), tool, JSON.stringify(params)], {
        cwd: root,
        env: { HOME: tempDir("anvil-home-") },
      })
      const envelope = JSON.parse(r.stdout)
      expect({ tool, code: r.code, error: envelope.error?.code }).toEqual({ tool, code: 1, error: "EXECUTION_ERROR" })
      expect(envelope.error.message).toContain("is larger than the file system, or the file-size limit (ulimit -f), allows. Nothing was written.")
      expect(envelope.text).toContain(`* Bash(command="ulimit -f; df -hT '.'")`)
    }
    expect(readFileSync(join(root, "keep.txt"), "utf8")).toBe("old\n")
    expect(existsSync(join(root, "big.txt"))).toBe(false)
    // No temp file is left beside the targets.
    expect(readdirSync(root).filter((n) => n.includes("anvil-tmp"))).toEqual([])
  })
})
