import { describe, expect, test } from "bun:test"
import { execFileSync } from "node:child_process"
import { statSync } from "node:fs"
import { join } from "node:path"

// A submission is refused whole when its packed size or its diffs grow too large, so
// no tracked file may be a binary, a vendored package or a generated tree.
const LIMIT_BYTES = 1024 * 1024
const root = join(import.meta.dir, "..", "..")

describe("repository size", () => {
  test("no tracked file is over 1 MiB and nothing under node_modules or dist is tracked", () => {
    const files = execFileSync("git", ["ls-files", "-z"], { cwd: root }).toString().split("\0").filter(Boolean)
    const tooLarge = files.filter((f) => {
      try {
        return statSync(join(root, f)).size > LIMIT_BYTES
      } catch {
        return false
      }
    })
    // A symlink named node_modules is tracked as one path with no slash after it.
    const vendored = files.filter((f) => /(^|\/)(node_modules|dist)(\/|$)/.test(f))
    expect(tooLarge).toEqual([])
    expect(vendored).toEqual([])
  })
})
