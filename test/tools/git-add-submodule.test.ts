import { describe, expect, test } from "bun:test"
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { binaryRepo, binaryTool } from "../support/binary-repo.ts"
import { tempDir } from "../support/harness.ts"

/** git_add reports what it staged: a submodule whose only changes are inside it is staged by nothing, so not named. */

const git = (cwd: string, ...args: ReadonlyArray<string>) =>
  Bun.spawnSync(["git", "-c", "user.name=t", "-c", "user.email=t@e", "-c", "protocol.file.allow=always", ...args], { cwd })

describe("git_add and a submodule with changes inside it", () => {
  test("through the binary: 'Nothing new to stage' for it, and only the real changes beside it", async () => {
    const inner = tempDir("anvil-sub-")
    mkdirSync(inner, { recursive: true })
    git(inner, "init", "-q")
    writeFileSync(join(inner, "s.txt"), "s\n")
    git(inner, "add", "s.txt")
    git(inner, "commit", "-qm", "s")
    const r = binaryRepo({ "a.txt": "a\n" })
    git(r.root, "add", "a.txt")
    git(r.root, "submodule", "add", "-q", inner, "sm")
    git(r.root, "commit", "-qm", "first")
    appendFileSync(join(r.root, "sm", "s.txt"), "changed inside\n")
    const alone = await binaryTool(r, "git_add", { paths: ["sm"] })
    expect(alone.envelope.text).toBe("# GitAdd: sm\n\nNothing new to stage: the named paths match the index already.")
    expect(alone.envelope.data.changes).toEqual([])
    writeFileSync(join(r.root, "b.txt"), "b\n")
    const all = await binaryTool(r, "git_add", { paths: ["."] })
    expect(all.envelope.data.changes).toEqual([{ path: "b.txt", change: "added" }])
    expect(new TextDecoder().decode(git(r.root, "diff", "--cached", "--name-only").stdout)).toBe("b.txt\n")
  })
})
