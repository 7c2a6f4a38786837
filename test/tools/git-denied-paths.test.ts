import { describe, expect, test, setDefaultTimeout } from "bun:test"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { answers } from "../support/git-parity.ts"
import { callTool } from "../support/harness.ts"
import { git, gitHome, gitRepo } from "../support/git-repo.ts"

// Repositories are built with the git CLI; on a busy machine that takes longer than bun's 5 s default.
setDefaultTimeout(120_000)

const home = gitHome()
const RULES = { read: { "secret/**": "deny", "*.pem": "deny" } }

/** A repository with changes in denied places (secret/, *.pem) and in open ones, and its anvil.json excluded from git. */
const deniedRepo = () => {
  const root = gitRepo(home, { "a.txt": "a\n", "secret/key.txt": "hunter2\n", "secret/old.txt": "x\n".repeat(20), "k.pem": "PEM 1\n", "anvil.json": JSON.stringify({ permission: RULES }) }, { commit: "one" })
  git(root, home, ["rm", "-q", "--cached", "anvil.json"])
  git(root, home, ["commit", "-q", "-m", "untrack anvil.json"])
  writeFileSync(join(root, ".git", "info", "exclude"), "anvil.json\n")
  writeFileSync(join(root, "a.txt"), "a changed\n")
  writeFileSync(join(root, "secret", "key.txt"), "hunter3\n")
  writeFileSync(join(root, "k.pem"), "PEM 2\n")
  mkdirSync(join(root, "secret", "new"))
  writeFileSync(join(root, "secret", "new", "n.txt"), "n\n")
  // A staged rename out of the denied folder: its old name is not shown either.
  git(root, home, ["mv", "secret/old.txt", "moved.txt"])
  writeFileSync(join(root, "b.pem"), "PEM new\n")
  git(root, home, ["add", "b.pem"])
  return root
}

const SECRETS = ["secret", "hunter", ".pem", "PEM"]
const expectNoSecret = (text: string) => {
  for (const s of SECRETS) expect(text).not.toContain(s)
}

for (const backend of ["cli", "isomorphic"] as const) {
  describe(`git tools leave out what read deny rules hide (${backend})`, () => {
    const env = { HOME: home, ANVIL_GIT_BACKEND: backend }

    test("git_diff leaves out a denied file's patch and says how many paths which rule withheld", async () => {
      const root = deniedRepo()
      const out = await callTool(root, "git_diff", {}, { env })
      expect(out.envelope.status).toBe("success")
      const data = out.envelope.data as { content: string; files: Array<{ path: string }>; withheld: { count: number; rules: Array<{ rule: string }> } }
      expect(data.files.map((f) => f.path)).toEqual(["a.txt"])
      expectNoSecret(JSON.stringify(data.files) + data.content)
      expect(data.content).toBe(git(root, home, ["diff", "--", "a.txt"]).replace(/\n$/, ""))
      expect(data.withheld.count).toBe(2)
      expect(out.envelope.text).toContain(
        `1 file with unstaged changes: +1 -1. 2 changed paths not shown: the rules "read": {"*.pem": "deny"} and "read": {"secret/**": "deny"} in "permission" of ${join(root, "anvil.json")} (this project's settings) deny reading them. To see them, change those rules.`,
      )
      const staged = await callTool(root, "git_diff", { staged: true }, { env })
      const sd = staged.envelope.data as { content: string; files: Array<{ path: string }>; withheld: { count: number } }
      // The rename from secret/old.txt (both its names: moved.txt is not shown either) and the new b.pem are withheld.
      expect(sd.files).toEqual([])
      expect(sd.withheld.count).toBe(3)
      expect(staged.envelope.text).toStartWith("# GitDiff (staged)\n\nNo staged changes. 3 changed paths not shown: ")
      expectNoSecret(sd.content)
    })

    test("git_diff of a denied path, existing or deleted, is refused as read refuses it", async () => {
      const root = deniedRepo()
      for (const path of ["secret", "secret/key.txt", "k.pem", "secret/old.txt"]) {
        const out = await callTool(root, "git_diff", { path }, { env })
        expect(out.envelope.status).toBe("error")
        expect(out.envelope.error?.code).toBe("PERMISSION_DENIED")
        expect(out.envelope.error?.message).toContain(`is denied by the rule "read": {`)
      }
      const read = await callTool(root, "read", { path: "secret/key.txt" }, { env })
      expect(read.envelope.error?.code).toBe("PERMISSION_DENIED")
    })

    test("git_status names no denied path, says how many it withheld, and is not 'clean'", async () => {
      const root = deniedRepo()
      for (const short of [false, true]) {
        const out = await callTool(root, "git_status", { short }, { env })
        const data = out.envelope.data as { entries: Array<{ path: string }>; clean: boolean; withheld: { count: number }; content: string }
        expect(data.entries.map((e) => e.path)).toEqual(["a.txt"])
        // key.txt, k.pem, secret/new/ (untracked folder), the rename from secret/old.txt to moved.txt (two names), b.pem.
        expect(data.withheld.count).toBe(6)
        expectNoSecret(out.envelope.text.replace(/the rules? .* in "permission" of .*$/m, ""))
        expect(out.envelope.text).toContain("6 changed paths not shown: the rules ")
      }
      // Only denied changes: not clean.
      git(root, home, ["checkout", "-q", "--", "a.txt"])
      const out = await callTool(root, "git_status", { short: true }, { env })
      expect((out.envelope.data as { clean: boolean }).clean).toBe(false)
      expect(out.envelope.text).not.toContain("nothing to commit")
    })

    test("git_add and git_commit stage and commit denied files as told, without naming them", async () => {
      const root = deniedRepo()
      const add = await callTool(root, "git_add", { paths: "." }, { env, configOverrides: { permission: { ...RULES, git_add: "allow", git_commit: "allow" } } })
      expect(add.envelope.status).toBe("success")
      expect((add.envelope.data as { files: Array<string> }).files).toEqual(["a.txt"])
      expect(add.envelope.text).toContain("3 staged paths not shown: the rules ")
      expectNoSecret(add.envelope.text.replace(/the rules? .* in "permission" of .*$/m, ""))
      // git staged them all the same.
      expect(git(root, home, ["diff", "--cached", "--name-only"])).toContain("secret/key.txt")
      const commit = await callTool(root, "git_commit", { message: "all" }, { env, configOverrides: { permission: { ...RULES, git_add: "allow", git_commit: "allow" } } })
      expect(commit.envelope.status).toBe("success")
      expect((commit.envelope.data as { files: Array<{ path: string }> }).files.map((f) => f.path)).toEqual(["a.txt"])
      expectNoSecret(commit.envelope.text.replace(/the rules? .* in "permission" of .*$/m, ""))
      expect(commit.envelope.text).toContain("committed paths not shown")
    })

    test("a conflict in a denied file is counted in git_commit's refusal, not named; git_status and git_diff leave it out", async () => {
      const root = gitRepo(home, { "secret/c.txt": "1\n", "open.txt": "1\n" }, { commit: "one" })
      git(root, home, ["checkout", "-q", "-b", "side"])
      writeFileSync(join(root, "secret", "c.txt"), "side\n")
      writeFileSync(join(root, "open.txt"), "side\n")
      git(root, home, ["commit", "-q", "-am", "side"])
      git(root, home, ["checkout", "-q", "main"])
      writeFileSync(join(root, "secret", "c.txt"), "main\n")
      writeFileSync(join(root, "open.txt"), "main\n")
      git(root, home, ["commit", "-q", "-am", "main"])
      expect(() => git(root, home, ["merge", "-q", "side"])).toThrow()
      git(root, home, ["merge", "--abort"])
      // A conflict outside any merge (git_commit refuses a merge first): a stash popped onto a conflicting change.
      writeFileSync(join(root, "secret", "c.txt"), "stashed\n")
      writeFileSync(join(root, "open.txt"), "stashed\n")
      git(root, home, ["stash", "-q"])
      writeFileSync(join(root, "secret", "c.txt"), "other\n")
      writeFileSync(join(root, "open.txt"), "other\n")
      git(root, home, ["commit", "-q", "-am", "other"])
      expect(() => git(root, home, ["stash", "pop", "-q"])).toThrow()
      const options = { env, configOverrides: { permission: { ...RULES, git_commit: "allow" } } }
      const commit = await callTool(root, "git_commit", { message: "x" }, options)
      expect(commit.envelope.error?.code).toBe("CONFLICT")
      expect(commit.envelope.error?.message).toContain("2 files have unresolved conflicts (open.txt, …).")
      expect(commit.envelope.text).not.toContain("secret")
      const status = await callTool(root, "git_status", {}, options)
      expect(status.envelope.text.replace(/the rules? .* in "permission" of .*$/m, "")).not.toContain("secret")
      expect((status.envelope.data as { withheld: { count: number } }).withheld.count).toBe(1)
      const diff = await callTool(root, "git_diff", {}, options)
      expect((diff.envelope.data as { unmerged: Array<string> }).unmerged).toEqual(["open.txt"])
      expect(diff.envelope.text.replace(/the rules? .* in "permission" of .*$/m, "")).not.toContain("secret")
    })

    test("a copy of a denied file is left out with both its names counted, so no line of the source shows", async () => {
      const body = "hunter2\n" + "shared line\n".repeat(8)
      const root = gitRepo(home, { "k.pem": body, "open.txt": "1\n" }, { commit: "one" })
      git(root, home, ["config", "diff.renames", "copies"])
      git(root, home, ["config", "status.renames", "copies"])
      writeFileSync(join(root, "copy.txt"), body.replace("hunter2", "public"))
      writeFileSync(join(root, "k.pem"), `${body}more\n`)
      git(root, home, ["add", "copy.txt", "k.pem"])
      // git itself pairs the copy with its denied source.
      expect(git(root, home, ["diff", "--cached", "--name-status"])).toContain("k.pem\tcopy.txt")
      const options = { env, configOverrides: { permission: RULES } }
      const diff = await callTool(root, "git_diff", { staged: true }, options)
      const data = diff.envelope.data as { content: string; files: Array<unknown>; withheld: { count: number } }
      expect(data.files).toEqual([])
      expect(data.content).toBe("")
      // copy.txt and k.pem (copied from, and modified): two names, not one.
      expect(data.withheld.count).toBe(2)
      expect(diff.envelope.text).toContain("No staged changes. 2 changed paths not shown: the rule ")
      expectNoSecret(diff.envelope.text.replace(/the rules? .* in "permission" of .*$/m, ""))
      const status = await callTool(root, "git_status", { short: true }, options)
      expect((status.envelope.data as { entries: Array<unknown>; withheld: { count: number } }).entries).toEqual([])
      expect((status.envelope.data as { withheld: { count: number } }).withheld.count).toBe(2)
    })
  })
}

test("both backends withhold the same paths with the same words", async () => {
  const root = deniedRepo()
  for (const [name, params] of [["git_status", {}], ["git_status", { short: true }], ["git_diff", {}], ["git_diff", { staged: true }]] as const) {
    const { cli, iso } = await answers(home, root, name, params)
    expect({ name, params, ...cli }).toEqual({ name, params, ...iso })
  }
})

test("git_diff leaves out the patch of a file read asks about, saying to read it; git_status still names it; a diff of it is refused", async () => {
  const root = gitRepo(home, { "a.txt": "a\n", "notes/plan.txt": "hunter2\n" }, { commit: "one" })
  writeFileSync(join(root, "a.txt"), "a changed\n")
  writeFileSync(join(root, "notes/plan.txt"), "hunter3\n")
  const options = { env: { HOME: home }, configOverrides: { permission: { read: { "notes/": "ask" } } } }
  const diff = await callTool(root, "git_diff", {}, options)
  const data = diff.envelope.data as { content: string; files: Array<{ path: string }>; withheld: { count: number; rules: Array<{ rule: string; level: string }> } }
  expect(data.files.map((f) => f.path)).toEqual(["a.txt"])
  expect(data.content).not.toContain("hunter")
  expect(data.withheld.count).toBe(1)
  expect(data.withheld.rules.map((r) => [r.rule, r.level])).toEqual([[`"read": {"notes/": "ask"}`, "ask"]])
  expect(diff.envelope.text).toContain(`1 changed path not shown: the rule "read": {"notes/": "ask"} in "permission" of `)
  expect(diff.envelope.text).toContain(" asks before reading it. To see what one holds, read it with read, which asks the user first")
  // Names are not what a file holds: git_status lists it, as glob and list do.
  const status = await callTool(root, "git_status", { short: true }, options)
  expect((status.envelope.data as { entries: Array<{ path: string }> }).entries.map((e) => e.path)).toContain("notes/plan.txt")
  const one = await callTool(root, "git_diff", { path: "notes/plan.txt" }, options)
  expect(one.envelope.error?.code).toBe("PERMISSION_DENIED")
  expect(one.envelope.error?.message).toContain("read asks before opening this file")
  expect(one.envelope.text).not.toContain("hunter")
})
