import { describe, expect, test } from "bun:test"
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { binaryRepo, binaryTool } from "../support/binary-repo.ts"
import { tempDir } from "../support/harness.ts"

/** git_add reports what it staged: a submodule whose only changes are inside it is staged by nothing, so not named. */

const git = (cwd: string, ...args: ReadonlyArray<string>) =>
  Bun.spawnSync(["git", "-c", "user.name=t", "-c", "user.email=t@e", "-c", "protocol.file.allow=always", ...args], { cwd })

/** A repository with a.txt and the submodule sm, committed, then sm/s.txt changed inside the submodule. */
const withChangedSubmodule = () => {
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
  return r
}

describe("git_add and a submodule with changes inside it", () => {
  test("through the binary: 'Nothing new to stage' for it, and only the real changes beside it", async () => {
    const r = withChangedSubmodule()
    const alone = await binaryTool(r, "git_add", { paths: ["sm"] })
    expect(alone.envelope.text).toBe("# GitAdd: sm\n\nNothing new to stage: the named paths match the index already.")
    expect(alone.envelope.data.changes).toEqual([])
    writeFileSync(join(r.root, "b.txt"), "b\n")
    const all = await binaryTool(r, "git_add", { paths: ["."] })
    expect(all.envelope.data.changes).toEqual([{ path: "b.txt", change: "added" }])
    expect(new TextDecoder().decode(git(r.root, "diff", "--cached", "--name-only").stdout)).toBe("b.txt\n")
  })

  test("through the binary: a path inside the submodule is INVALID_PARAM naming it, with the add in the submodule next; nothing staged; git_diff of it says whose changes they are", async () => {
    const r = withChangedSubmodule()
    appendFileSync(join(r.root, "a.txt"), "more\n")
    const inside = await binaryTool(r, "git_add", { paths: ["a.txt", "sm/s.txt"] })
    expect(inside.envelope.error).toMatchObject({ code: "INVALID_PARAM", field_errors: [{ field: "paths.1", message: "inside the submodule sm" }] })
    // git's own words named its pathspec magic (':(top,literal)sm/s.txt'); the message names the path as given.
    expect(inside.envelope.error.message).toStartWith("'sm/s.txt' is inside the submodule 'sm', a repository of its own")
    expect(inside.envelope.text).toEndWith(`* Bash(command="git -C 'sm' add -- 's.txt'")`)
    expect(new TextDecoder().decode(git(r.root, "diff", "--cached", "--name-only").stdout)).toBe("")
    // git_diff of that path: not "no changes" as if the file were unchanged, but whose changes they are.
    const diff = await binaryTool(r, "git_diff", { path: "sm/s.txt" })
    expect(diff.envelope.text).toBe(
      "# GitDiff: sm/s.txt\n\nNo unstaged changes in sm/s.txt in this repository: sm/s.txt is inside sm, a repository of its own (a submodule), whose changes are its own: Bash `git -C 'sm' diff -- 's.txt'` shows them; git_diff of 'sm' shows which commit this repository records for it.",
    )
    expect((await binaryTool(r, "git_diff", { path: "a.txt" })).envelope.text).toContain("1 file with unstaged changes in a.txt: +1 -0.")
  })
})

describe("git_add in a sparse checkout", () => {
  test("through the binary: a path outside the sparse definition is skipped and named, the others staged: partial, not an error", async () => {
    const r = binaryRepo({ "in/a.txt": "a\n", "out/b.txt": "b\n" })
    git(r.root, "add", ".")
    git(r.root, "commit", "-qm", "first")
    git(r.root, "sparse-checkout", "set", "in")
    appendFileSync(join(r.root, "in", "a.txt"), "more\n")
    mkdirSync(join(r.root, "out"), { recursive: true })
    writeFileSync(join(r.root, "out", "b.txt"), "changed\n")
    const add = await binaryTool(r, "git_add", { paths: ["in/a.txt", "out/b.txt"] })
    expect(add.envelope.status).toBe("partial")
    expect(add.envelope.data).toMatchObject({ changes: [{ path: "in/a.txt", change: "modified" }], outside_sparse: ["out/b.txt"] })
    expect(add.envelope.text).toContain(
      "Staged 1 file:\nM  in/a.txt\n\nSkipped (outside the sparse-checkout definition, not staged): out/b.txt. Stage them only if the user asks, with Bash `git add --sparse`.",
    )
    expect(new TextDecoder().decode(git(r.root, "diff", "--cached", "--name-only").stdout)).toBe("in/a.txt\n")
  })
})
