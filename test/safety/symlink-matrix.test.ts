import { describe, expect, test } from "bun:test"
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { callTool, tempDir } from "../support/harness.ts"
import { gitHome, gitRepo } from "../support/git-repo.ts"

/**
 * The path sandbox against symbolic links: every tool that takes a
 * path, pointed through every kind of link that leads out of the root —
 * out-pointing, dangling, through a linked folder — must refuse, and the
 * folder outside must stay byte-identical with no file added.
 */

const SECRET = "TOP-SECRET canary line\nhidden-value-8813\n"
/** Only in the files outside: an answer holding it leaked their content. */
const LEAK = "hidden-value-8813"
/** The answer without the echo of the call's own parameters. */
const answer = (envelope: { context?: Record<string, unknown> }) => JSON.stringify({ ...envelope, context: { ...envelope.context, params_input: null } })

/** Everything under `dir`: relative path → content (links by target). */
const snapshot = (dir: string): Record<string, string> => {
  const out: Record<string, string> = {}
  const walk = (d: string, rel: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name)
      const r = rel === "" ? name : `${rel}/${name}`
      const st = lstatSync(p)
      if (st.isDirectory()) walk(p, r)
      else if (st.isSymbolicLink()) out[r] = `link`
      else out[r] = readFileSync(p, "utf8")
    }
  }
  walk(dir, "")
  return out
}

const setup = () => {
  const home = gitHome()
  const outside = tempDir("anvil-outside-")
  writeFileSync(join(outside, "secret.txt"), SECRET)
  mkdirSync(join(outside, "sub"))
  writeFileSync(join(outside, "sub", "deep.txt"), SECRET)
  const root = gitRepo(home, { "inside.txt": "inside\n", "real/file.txt": "real SECRET-free\n" })
  symlinkSync(outside, join(root, "out")) // a folder link out
  symlinkSync(join(outside, "secret.txt"), join(root, "file-link")) // a file link out
  symlinkSync(join(outside, "created.txt"), join(root, "dangling")) // a dangling link out
  symlinkSync(join(outside, "newdir"), join(root, "dangling-dir")) // a dangling folder link out
  symlinkSync("../" + outside.split("/").pop() + "/secret.txt", join(root, "relative-out")) // relative, out
  symlinkSync("real", join(root, "in-link")) // inside: fine
  const before = snapshot(outside)
  const env = { XDG_CACHE_HOME: tempDir("anvil-cache-"), HOME: tempDir("anvil-home-") }
  const call = (name: string, params: unknown) => callTool(root, name, params, { env })
  const untouched = () => expect(snapshot(outside)).toEqual(before)
  return { root, outside, call, untouched, env }
}

/** Paths that must be refused for a file operation. */
const FILE_PATHS = ["out/secret.txt", "out/sub/deep.txt", "out/new.txt", "file-link", "dangling", "dangling-dir/x.txt", "relative-out", "in-link/../out/secret.txt"]

const refused = (envelope: { status: string; error?: { code: string } | null }) => {
  expect(envelope.status).toBe("error")
  expect(["ACCESS_DENIED", "NOT_FOUND"]).toContain(envelope.error!.code)
}

describe("symlink matrix: file tools", () => {
  const s = setup()
  for (const p of FILE_PATHS) {
    test(`read / write / edit / multiedit / patch refuse ${p}`, async () => {
      const read = await s.call("read", { path: p })
      refused(read.envelope)
      expect(answer(read.envelope)).not.toContain(LEAK)
      for (const [name, params] of [
        ["write", { path: p, content: "pwned\n" }],
        ["edit", { path: p, old_string: "TOP-SECRET", new_string: "pwned" }],
        ["edit", { path: p, old_string: "", new_string: "pwned\n" }],
        ["multiedit", { path: p, edits: [{ old_string: "TOP-SECRET", new_string: "pwned" }] }],
        ["patch", { patch: `*** Begin Patch\n*** Update File: ${p}\n@@\n-TOP-SECRET canary line\n-${"hidden"}-value-8813\n+pwned\n*** End Patch\n` }],
        ["patch", { patch: `*** Begin Patch\n*** Add File: ${p}\n+pwned\n*** End Patch\n` }],
        ["patch", { patch: `*** Begin Patch\n*** Delete File: ${p}\n*** End Patch\n` }],
        ["patch", { patch: `*** Begin Patch\n*** Update File: inside.txt\n*** Move to: ${p}\n@@\n-inside\n+moved\n*** End Patch\n` }],
      ] as const) {
        const { envelope } = await s.call(name, params)
        expect([name, envelope.status]).toEqual([name, "error"])
        expect(answer(envelope)).not.toContain(LEAK)
      }
      s.untouched()
      expect(readFileSync(join(s.root, "inside.txt"), "utf8")).toBe("inside\n")
    })
  }

  test("a link inside the root that points inside is written through", async () => {
    const { envelope } = await s.call("write", { path: "in-link/file.txt", content: "through\n" })
    expect(envelope.status).toBe("success")
    expect(readFileSync(join(s.root, "real", "file.txt"), "utf8")).toBe("through\n")
    expect(lstatSync(join(s.root, "in-link")).isSymbolicLink()).toBe(true)
  })

  test("list / glob / grep refuse linked folders and never show outside content", async () => {
    for (const p of ["out", "out/sub", "dangling-dir"]) {
      refused((await s.call("list", { path: p })).envelope)
      refused((await s.call("glob", { pattern: "**/*", path: p })).envelope)
      refused((await s.call("grep", { pattern: "canary", path: p })).envelope)
    }
    for (const p of ["file-link", "out/secret.txt"]) refused((await s.call("grep", { pattern: "canary", path: p })).envelope)
    const all = await s.call("grep", { pattern: "hidden-value" })
    expect(answer(all.envelope)).not.toContain(LEAK)
    const globbed = await s.call("glob", { pattern: "**/*.txt" })
    expect(JSON.stringify(globbed.envelope)).not.toContain("deep.txt")
    s.untouched()
  })

  test("git_add refuses paths through links out; bash refuses a linked workdir", async () => {
    for (const p of ["out/secret.txt", "file-link", "dangling"]) {
      const { envelope } = await s.call("git_add", { paths: [p] })
      expect(envelope.status).toBe("error")
    }
    for (const w of ["out", "out/sub", "dangling-dir"]) {
      const { envelope } = await s.call("bash", { command: "touch ran-here && pwd", workdir: w })
      refused(envelope)
    }
    s.untouched()
  })
})

describe("symlink matrix: anvil's own folders", () => {
  test("a linked .anvil is never followed: journal, todos, spill go to the private cache folder", async () => {
    const s = setup()
    const evil = tempDir("anvil-evil-state-")
    symlinkSync(evil, join(s.root, ".anvil"))
    const w = await s.call("write", { path: "made.txt", content: "ok\n" })
    expect(w.envelope.status).toBe("success")
    const t = await s.call("todowrite", { todos: [{ content: "a", status: "pending", id: "1" }] })
    expect(t.envelope.status).toBe("success")
    // Force a spill: a long file read whole.
    writeFileSync(join(s.root, "long.txt"), "x".repeat(200) + "\n".repeat(10))
    const big = await s.call("bash", { command: "seq 1 100000" })
    expect(big.envelope.status).not.toBe("error")
    expect(readdirSync(evil)).toEqual([])
    expect(existsSync(join(s.env.XDG_CACHE_HOME, "anvil", "projects"))).toBe(true)
    s.untouched()
  })

  test("a linked .anvil/tool-output, .anvil/journal or .anvil/todos is never followed", async () => {
    const s = setup()
    const evil = tempDir("anvil-evil-sub-")
    mkdirSync(join(s.root, ".anvil"))
    for (const sub of ["tool-output", "journal", "todos"]) symlinkSync(evil, join(s.root, ".anvil", sub))
    expect((await s.call("write", { path: "made.txt", content: "ok\n" })).envelope.status).toBe("success")
    expect((await s.call("todowrite", { todos: [{ content: "a", status: "pending", id: "1" }] })).envelope.status).toBe("success")
    expect((await s.call("bash", { command: "seq 1 100000" })).envelope.status).not.toBe("error")
    expect(readdirSync(evil)).toEqual([])
    // The spill folder outside is not part of the sandbox either.
    refused((await s.call("list", { path: ".anvil/tool-output" })).envelope)
    s.untouched()
  })
})
