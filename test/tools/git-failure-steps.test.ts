import { describe, expect, test } from "bun:test"
import { chmodSync, mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { binaryRepo, binaryTool } from "../support/binary-repo.ts"

/**
 * A git command that fails in git's own words (a lock another git left, a hook that refuses the commit) ends its
 * error with a next step, as every error does, and keeps the line of git's that says what failed and where.
 */

const git = (root: string, ...args: ReadonlyArray<string>) => Bun.spawnSync(["git", "-c", "user.name=t", "-c", "user.email=t@e", ...args], { cwd: root })

describe("git failures name a next step, through the binary", () => {
  test("an index.lock left behind: git's fatal line (the lock's path) is kept before its advice, and the repository's state is the next look", async () => {
    const r = binaryRepo({ "a.txt": "a\n" })
    writeFileSync(join(r.root, ".git", "index.lock"), "")
    const { code, envelope } = await binaryTool(r, "git_add", { paths: ["a.txt"] })
    expect(code).toBe(1)
    expect(envelope.error.code).toBe("EXECUTION_ERROR")
    expect(envelope.error.message).toMatch(/^git add failed: fatal: Unable to create '.*index\.lock': File exists\.\n/)
    expect(envelope.error.message).toContain("remove the file manually to continue.")
    expect(envelope.text).toEndWith("Recommended next step (token-efficient):\n* GitStatus()")
  })

  test("a pre-commit hook that refuses: its output, what to do, and the repository's state next; nothing committed", async () => {
    const r = binaryRepo({ "a.txt": "a\n" })
    git(r.root, "add", "a.txt")
    git(r.root, "commit", "-qm", "first")
    mkdirSync(join(r.root, ".git", "hooks"), { recursive: true })
    writeFileSync(join(r.root, ".git", "hooks", "pre-commit"), "#!/bin/sh\necho 'lint: bad style in a.txt' >&2\nexit 1\n")
    chmodSync(join(r.root, ".git", "hooks", "pre-commit"), 0o755)
    writeFileSync(join(r.root, "a.txt"), "b\n")
    git(r.root, "add", "a.txt")
    const { code, envelope } = await binaryTool({ ...r, env: { ...r.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@e", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@e" } }, "git_commit", { message: "second" })
    expect(code).toBe(1)
    expect(envelope.error.message).toBe(
      "The pre-commit hook refused the commit (exit code 1); nothing was committed. Fix what its output says, stage the fixes with git_add, and commit again.",
    )
    expect(envelope.text).toContain("Hook output:\nlint: bad style in a.txt")
    expect(envelope.text).toEndWith("* GitStatus()")
    expect(new TextDecoder().decode(git(r.root, "rev-list", "--count", "HEAD").stdout).trim()).toBe("1")
  })

  test("a call with a parameter the tool does not take: the same call without it, a short list kept a list", async () => {
    const r = binaryRepo({ "a.txt": "a\n" })
    const { envelope } = await binaryTool(r, "git_add", { paths: ["a.txt"], bogus: 1 })
    expect(envelope.text).toEndWith('* GitAdd(paths=["a.txt"])')
  })
})
