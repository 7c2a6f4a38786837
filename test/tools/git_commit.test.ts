import { describe, expect, test, setDefaultTimeout, beforeAll } from "bun:test"
import { Effect } from "effect"
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { callTool } from "../support/harness.ts"
import { git, gitHome, gitRepo } from "../support/git-repo.ts"

// Repositories are built with the git CLI; on a busy machine that takes longer than bun's 5 s default.
setDefaultTimeout(60_000)

const home = gitHome({ name: "Config Person", email: "config@example.test" })
let env: Record<string, string> = { HOME: home }
const commit = (root: string, params: unknown, options: Parameters<typeof callTool>[3] = {}) => callTool(root, "git_commit", params, { env, ...options })
const head = (root: string) => git(root, home, ["log", "-1", "--format=%H%n%an <%ae>%n%cn <%ce>%n%B"]).replace(/\n+$/, "")

const staged = (options: { commit?: boolean } = { commit: true }) => {
  const root = gitRepo(home, { "a.txt": "a\n" }, options.commit ? { commit: "one" } : {})
  writeFileSync(join(root, "b.txt"), "b\n")
  git(root, home, ["add", "b.txt"])
  return root
}

/** Writes an executable hook into the repository's hooks folder; returns the folder. */
const writeHook = (root: string, name: string, script: string): string => {
  const hooks = join(root, ".git", "hooks")
  mkdirSync(hooks, { recursive: true })
  writeFileSync(join(hooks, name), script)
  chmodSync(join(hooks, name), 0o755)
  return hooks
}

// Both backends answer every case: the git command line, and isomorphic-git (used when no git is installed).
for (const backend of ["cli", "isomorphic"] as const) {
describe(`git_commit (${backend})`, () => {
  beforeAll(() => {
    env = { HOME: home, ANVIL_GIT_BACKEND: backend }
  })
  test("commits the staged changes with the identity from ~/.gitconfig; git reads the result", async () => {
    const root = staged()
    writeFileSync(join(root, "unstaged.txt"), "not staged\n")
    const out = await commit(root, { message: "Add b\n\nWith a body line.   \n\n\n" })
    expect(out.envelope.status).toBe("success")
    const data = out.envelope.data as { ok: boolean; commit: string; branch: string }
    expect(data.ok).toBe(true)
    const [oid, author, committer, ...message] = head(root).split("\n")
    expect(oid).toBe(data.commit)
    expect(author).toBe("Config Person <config@example.test>")
    expect(committer).toBe("Config Person <config@example.test>")
    expect(message.join("\n")).toBe("Add b\n\nWith a body line.")
    expect(out.envelope.text).toContain(`[main ${data.commit.slice(0, 7)}] Add b`)
    expect(out.envelope.text).toContain("create b.txt")
    expect(git(root, home, ["status", "--porcelain"])).toBe("?? unstaged.txt\n")
    git(root, home, ["fsck", "--no-progress"])
  })

  test("the first commit of a repository is a root commit", async () => {
    const root = staged({ commit: false })
    const out = await commit(root, { message: "Initial" })
    expect(out.envelope.text).toContain("[main (root-commit) ")
    expect(git(root, home, ["log", "--oneline"]).trim().split("\n")).toHaveLength(1)
  })

  test("GIT_AUTHOR_* in the environment win over the config files", async () => {
    const root = staged()
    await commit(root, { message: "env identity" }, { env: { ...env, GIT_AUTHOR_NAME: "Env Author", GIT_AUTHOR_EMAIL: "env@example.test" } })
    const [, author, committer] = head(root).split("\n")
    expect(author).toBe("Env Author <env@example.test>")
    expect(committer).toBe("Config Person <config@example.test>")
  })

  test("no identity anywhere: a clear error, nothing committed", async () => {
    const bare = gitHome(null)
    const root = gitRepo(bare, { "a.txt": "a\n" })
    git(root, bare, ["add", "a.txt"])
    const out = await callTool(root, "git_commit", { message: "x" }, { env: { HOME: bare } })
    expect(out.envelope.error?.code).toBe("EXECUTION_ERROR")
    expect(out.envelope.error?.message).toContain("Author identity unknown")
    expect(out.envelope.error?.message).toContain("user.email")
    expect(() => git(root, bare, ["rev-parse", "HEAD"])).toThrow()
  })

  test("refuses --amend, --no-verify, --force and the like, in the message or as parameters", async () => {
    const root = staged()
    const before = head(root)
    for (const message of ["--amend", "--no-verify -m sneaky", "-n skip hooks", '--force', 'fix" --amend']) {
      const out = await commit(root, { message })
      expect(out.envelope.error?.code).toBe("INVALID_PARAM")
      expect(out.envelope.error?.message).toContain("looks like a git option")
    }
    const extra = await commit(root, { message: "ok", amend: true })
    expect(extra.envelope.error?.code).toBe("INVALID_PARAM")
    expect(extra.envelope.error?.field_errors?.[0]?.field).toBe("amend")
    expect(head(root)).toBe(before)
    // A message that merely mentions an option is fine.
    expect((await commit(root, { message: "Document why we never use --no-verify" })).envelope.status).toBe("success")
  })

  test("nothing staged, an empty message, a merge in progress: errors that say what to do", async () => {
    const root = gitRepo(home, { "a.txt": "a\n" }, { commit: "one" })
    writeFileSync(join(root, "a.txt"), "changed but not staged\n")
    const nothing = await commit(root, { message: "x" })
    expect(nothing.envelope.error?.message).toContain("Nothing to commit")
    expect(nothing.envelope.text).toContain("GitAdd(")
    expect((await commit(root, { message: "  \n " })).envelope.error?.code).toBe("INVALID_PARAM")
    git(root, home, ["add", "a.txt"])
    const nul = await commit(root, { message: "sub\u0000ject" })
    expect(nul.envelope.error?.code).toBe("INVALID_PARAM")
    expect(nul.envelope.error?.field_errors?.[0]?.field).toBe("message")
    writeFileSync(join(root, ".git", "MERGE_HEAD"), `${head(root).split("\n")[0]}\n`)
    expect((await commit(root, { message: "x" })).envelope.error?.code).toBe("CONFLICT")
  })

  test("files a pre-commit hook stages are committed and reported; a hook that unstages everything leaves nothing to commit", async () => {
    const root = staged()
    writeHook(root, "pre-commit", "#!/bin/sh\necho formatted > fmt.txt\ngit add fmt.txt\n")
    const out = await commit(root, { message: "with the formatter's output" })
    expect(out.envelope.status).toBe("success")
    const committed = git(root, home, ["show", "--name-only", "--format=", "HEAD"]).trim().split("\n")
    expect(committed).toEqual(["b.txt", "fmt.txt"])
    expect((out.envelope.data as { files: Array<{ path: string }> }).files.map((f) => f.path)).toEqual(committed)
    expect(out.envelope.text).toContain("2 files changed")

    writeFileSync(join(root, "c.txt"), "c\n")
    git(root, home, ["add", "c.txt"])
    writeHook(root, "pre-commit", "#!/bin/sh\ngit reset -q\n")
    const before = head(root)
    const none = await commit(root, { message: "emptied by the hook" })
    expect(none.envelope.error?.code).toBe("EXECUTION_ERROR")
    expect(none.envelope.error?.message).toContain("the pre-commit hook left none")
    expect(head(root)).toBe(before)
  })

  test("unresolved conflicts outside a merge (a stash popped) are CONFLICT naming the files, nothing committed, no hook run", async () => {
    const root = gitRepo(home, { "f.txt": "1\n2\n3\n" }, { commit: "one" })
    writeFileSync(join(root, "f.txt"), "1\nS\n3\n")
    git(root, home, ["stash", "-q"])
    writeFileSync(join(root, "f.txt"), "1\nZ\n3\n")
    git(root, home, ["commit", "-q", "-am", "z"])
    expect(() => git(root, home, ["stash", "pop"])).toThrow()
    writeFileSync(join(root, "h.txt"), "h\n")
    git(root, home, ["add", "h.txt"])
    writeHook(root, "pre-commit", "#!/bin/sh\ntouch hook-ran\n")
    const before = head(root)
    const out = await commit(root, { message: "x" })
    expect(out.envelope.error?.code).toBe("CONFLICT")
    expect(out.envelope.error?.message).toContain("unresolved conflicts (f.txt)")
    expect(out.envelope.text).toContain('GitAdd(paths=["f.txt"])')
    expect(head(root)).toBe(before)
    expect(existsSync(join(root, "hook-ran"))).toBe(false)
  })

  test("runs the pre-commit hook (a failing hook stops the commit) and the commit-msg hook (which may edit the message)", async () => {
    const root = staged()
    const hooks = writeHook(root, "pre-commit", "#!/bin/sh\necho 'lint failed: b.txt' >&2\nexit 1\n")
    const before = head(root)
    const refused = await commit(root, { message: "blocked" })
    expect(refused.envelope.error?.code).toBe("EXECUTION_ERROR")
    expect(refused.envelope.error?.message).toContain("pre-commit hook refused")
    expect(refused.envelope.text).toContain("lint failed: b.txt")
    expect(head(root)).toBe(before)
    // A long hook output is not cut by the hook runner: the framework shows its start and saves it whole.
    writeFileSync(join(hooks, "pre-commit"), "#!/bin/sh\nseq 1 5000 | sed 's/^/lint problem /' >&2\nexit 1\n")
    const long = await commit(root, { message: "blocked" })
    const saved = (long.envelope.data as { truncation?: { full_output_text_path: string } }).truncation?.full_output_text_path
    expect(long.envelope.text).toContain("Output too large")
    expect(readFileSync(join(root, saved!), "utf8")).toContain("lint problem 5000")
    writeFileSync(join(hooks, "pre-commit"), "#!/bin/sh\nexit 0\n")
    writeFileSync(join(hooks, "commit-msg"), '#!/bin/sh\nprintf "\\nSigned-off-by: Hook <hook@example.test>\\n" >> "$1"\n')
    chmodSync(join(hooks, "commit-msg"), 0o755)
    const out = await commit(root, { message: "hooked" })
    expect(out.envelope.status).toBe("success")

    expect(head(root)).toEndWith("hooked\n\nSigned-off-by: Hook <hook@example.test>")
  })

  test("a commit-msg hook that empties the message is named as the fault: the next step reads the hook, not another message", async () => {
    const root = staged()
    writeHook(root, "commit-msg", '#!/bin/sh\n: > "$1"\n')
    const before = head(root)
    const emptied = await commit(root, { message: "emptied" })
    expect(emptied.envelope.error?.message).toContain("the commit-msg hook left an empty message")
    expect(emptied.envelope.text).toContain("cat '.git/hooks/commit-msg'")
    expect(emptied.envelope.text).not.toContain("<correct_value>")
    expect(head(root)).toBe(before)
  })

  test("a hook that never ends is stopped at git.hook_timeout_ms with what it started: TIMEOUT, nothing committed", async () => {
    const root = staged()
    writeHook(root, "pre-commit", "#!/bin/sh\necho 'waiting for a lock'\nsleep 600\n")
    const before = head(root)
    const started = performance.now()
    const stuck = await commit(root, { message: "never" }, { configOverrides: { git: { hook_timeout_ms: 500 } } })
    expect(performance.now() - started).toBeLessThan(20_000)
    expect(stuck.envelope.error).toMatchObject({ code: "TIMEOUT" })
    expect(stuck.envelope.error?.message).toContain("The pre-commit hook did not finish within 0.5 s and was stopped; nothing was committed.")
    expect(stuck.envelope.text).toContain("waiting for a lock")
    expect(head(root)).toBe(before)
  })

  test("runs pre-commit, prepare-commit-msg, commit-msg and post-commit in git's order, once each, with git's arguments", async () => {
    const root = staged()
    const hooks = join(root, ".git", "hooks")
    mkdirSync(hooks, { recursive: true })
    const log = join(root, ".git", "hook-log")
    for (const name of ["pre-commit", "prepare-commit-msg", "commit-msg", "post-commit"]) {
      // Each records its name and the argument after the message file (prepare-commit-msg's source: "message" for -m).
      writeFileSync(join(hooks, name), `#!/bin/sh\necho "${name} $2" >> "${log}"\n`)
      chmodSync(join(hooks, name), 0o755)
    }
    writeFileSync(join(hooks, "prepare-commit-msg"), `#!/bin/sh\necho "prepare-commit-msg $2" >> "${log}"\nprintf "[PROJ-1] %s" "$(cat "$1")" > "$1"\n`)
    chmodSync(join(hooks, "prepare-commit-msg"), 0o755)
    const out = await commit(root, { message: "ordered" })
    expect(out.envelope.status).toBe("success")
    expect(readFileSync(log, "utf8")).toBe("pre-commit \nprepare-commit-msg message\ncommit-msg \npost-commit \n")
    expect(head(root)).toEndWith("[PROJ-1] ordered")
    expect((out.envelope.data as { subject: string }).subject).toBe("[PROJ-1] ordered")
    // A failing post-commit hook changes nothing: the commit is made (git only prints its output).
    writeFileSync(join(hooks, "post-commit"), "#!/bin/sh\nexit 3\n")
    writeFileSync(join(root, "b.txt"), "again\n")
    git(root, home, ["add", "b.txt"])
    expect((await commit(root, { message: "after" })).envelope.status).toBe("success")
    expect(head(root)).toEndWith("[PROJ-1] after")
  })

  test("asks for permission by default; a refusal commits nothing", async () => {
    const root = staged()
    const before = head(root)
    const out = await commit(root, { message: "x" }, { onAsk: () => Effect.succeed(false) })
    expect(out.envelope.error?.code).toBe("PERMISSION_DENIED")
    expect(head(root)).toBe(before)
  })
})
}
