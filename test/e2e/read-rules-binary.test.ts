import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { realpathSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { anvilBinary } from "../support/binary.ts"
import { binaryRepo, binaryTool } from "../support/binary-repo.ts"

// read rules through the compiled binary: './' anchoring, folders a deny-all with exceptions leaves nothing in,
// and ask rules keeping files out of grep.
setDefaultTimeout(60_000)
beforeAll(() => void anvilBinary(), 120_000)

const repo = binaryRepo
const tool = binaryTool

const tree = {
  "secret.txt": "TOKEN=root-secret\n",
  "a/secret.txt": "TOKEN=nested\n",
  "keys/k.pem": "TOKEN=root-key\n",
  "lib/keys/k.pem": "TOKEN=lib-key\n",
  ".env": "TOKEN=env-value\n",
  "src/app.ts": "const TOKEN = 1\n",
  "src/.env": "TOKEN=src-env\n",
  "docs/deep/r.md": "TOKEN in docs\n",
}

describe("read rules in the search tools", () => {
  test("'./name' is the root's only, for read and for every search tool", async () => {
    const r = repo(tree, { permission: { read: { "./secret.txt": "deny", "./keys/": "deny" } } })
    expect((await tool(r, "read", { path: "secret.txt" })).envelope.error.code).toBe("PERMISSION_DENIED")
    expect((await tool(r, "read", { path: "a/secret.txt" })).envelope.status).toBe("success")
    expect((await tool(r, "read", { path: "lib/keys/k.pem" })).envelope.status).toBe("success")
    const grep = await tool(r, "grep", { pattern: "TOKEN", output_mode: "files_with_matches" })
    expect(grep.envelope.data.files.toSorted()).toEqual([".env", "a/secret.txt", "docs/deep/r.md", "lib/keys/k.pem", "src/.env", "src/app.ts"])
    const glob = await tool(r, "glob", { pattern: "**/*", include_hidden: true })
    expect(glob.envelope.data.paths).not.toContain("secret.txt")
    expect(glob.envelope.data.paths).toContain("a/secret.txt")
    expect(glob.envelope.data.paths).toContain("lib/keys/k.pem")
    const list = await tool(r, "list", { include_hidden: true })
    expect(list.envelope.data.entries.map((e: { name: string }) => e.name)).toEqual([".git", "a", "docs", "lib", "src", ".env"])
  })

  test("a rule written as an absolute path inside the project holds for read, bash and the searches, and is named as written", async () => {
    const r = repo(tree, {})
    const root = realpathSync(r.root)
    writeFileSync(join(r.env.HOME, ".config", "anvil", "anvil.json"), JSON.stringify({ permission: { read: { [`${root}/secret.txt`]: "deny", [`${root}/keys/`]: "deny" } } }))
    for (const path of ["secret.txt", `${root}/secret.txt`, "a/../secret.txt", "keys/k.pem"]) {
      const out = await tool(r, "read", { path })
      expect(out.envelope.error.code).toBe("PERMISSION_DENIED")
      expect(out.envelope.error.message).toContain(`{"${root}/`)
    }
    expect((await tool(r, "read", { path: "a/secret.txt" })).envelope.status).toBe("success")
    const grep = await tool(r, "grep", { pattern: "TOKEN", output_mode: "files_with_matches" })
    expect(grep.envelope.data.files).not.toContain("secret.txt")
    expect(grep.envelope.data.files).not.toContain("keys/k.pem")
    expect(grep.envelope.data.files).toContain("a/secret.txt")
  })

  test("read denied but for src/**: folders outside src are neither listed nor globbed, and searching one is refused", async () => {
    const r = repo(tree, { permission: { read: { "*": "deny", "src/**": "allow" } } })
    const list = await tool(r, "list", { include_hidden: true })
    expect(list.envelope.data.entries.map((e: { name: string }) => e.name)).toEqual(["src"])
    const glob = await tool(r, "glob", { pattern: "**", include_hidden: true })
    expect(glob.envelope.data.paths).toEqual(["src/.env", "src/app.ts"])
    const docs = await tool(r, "list", { path: "docs" })
    expect(docs.envelope.error.code).toBe("PERMISSION_DENIED")
    expect(docs.envelope.error.message).toContain(`"read": {"*": "deny"}`)
  })

  test("read ask rules keep files out of grep, which names the rule; a grep of such a file is refused with a Read hint", async () => {
    const r = repo(tree, { permission: { read: { ".env": "ask" } } })
    for (const engine of ["auto", "builtin"]) {
      const rr = repo(tree, { permission: { read: { ".env": "ask" } }, tools: { grep: { engine } } })
      const out = await tool(rr, "grep", { pattern: "TOKEN" })
      expect(out.stdout).not.toContain("env-value")
      expect(out.stdout).not.toContain("src-env")
      expect(out.envelope.data.total_files).toBe(6)
      expect(out.envelope.text).toContain(`Not searched: files read asks about before opening them ("read": {".env": "ask"} in`)
      expect(out.envelope.data.not_searched.rules[0].rule).toBe(`"read": {".env": "ask"}`)
    }
    const one = await tool(r, "grep", { pattern: "TOKEN", path: ".env" })
    expect(one.envelope.error.code).toBe("PERMISSION_DENIED")
    expect(one.envelope.context.asked_by.rule).toBe(`"read": {".env": "ask"}`)
    expect(one.envelope.text).toContain(`Read(file_path=".env")`)
    expect(one.stdout).not.toContain("env-value")
    // Names are not content: glob and list still show them, and read (run by the user here) opens it.
    expect((await tool(r, "glob", { pattern: "**/.env", include_hidden: true })).envelope.data.paths).toEqual([".env", "src/.env"])
    expect((await tool(r, "read", { path: ".env" })).envelope.status).toBe("success")
    // A search of a folder no ask rule reaches says nothing of them.
    const docs = await tool(repo(tree, { permission: { read: { "./.env": "ask" } } }), "grep", { pattern: "TOKEN", path: "docs" })
    expect(docs.envelope.data.not_searched).toBeUndefined()
  })
})
