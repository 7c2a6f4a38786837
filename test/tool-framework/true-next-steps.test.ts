import { describe, expect, test } from "bun:test"
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { Effect, Schema } from "effect"
import { defineTool } from "../../src/tool-framework/definition.ts"
import { builtinTools, callTool, project } from "../support/harness.ts"

/**
 * A next step must be true for the case it follows: a list asked for as a list, a right name not asked for again,
 * a file too large for a tool pointed at the tools that take it.
 */

const steps = (text: string): Array<string> => {
  const at = text.indexOf("Recommended next step (token-efficient):\n")
  return at < 0 ? [] : text.slice(at).split("\n").slice(1).filter((l) => l.startsWith("* ")).map((l) => l.slice(2))
}

const outcome = async (root: string, name: string, params: unknown, options: Parameters<typeof callTool>[3] = {}) => {
  const e = (await callTool(root, name, params, options)).envelope
  return { code: e.error?.code, steps: steps(e.text), text: e.text, fields: e.error?.field_errors?.map((f) => f.field) }
}

describe("a parameter asked for again keeps its shape", () => {
  test("lists as lists (the one given with its faulty items mended, else one item with its required fields), objects with their required fields, records with one entry", async () => {
    const root = project({ "f.txt": "a\n" })
    Bun.spawnSync(["git", "init", "-q"], { cwd: root })
    const cases: Array<[string, Record<string, unknown>, string]> = [
      // The decoder's own error (a missing key inside an item): the list given, that item's missing field asked for.
      ["multiedit", { path: "f.txt", edits: [{ old_string: "a" }] }, 'MultiEdit(edits=[{"old_string":"a","new_string":"<correct_value>"}])'],
      // A list with no item to mend: one item with its required fields.
      ["multiedit", { path: "f.txt", edits: [] }, 'MultiEdit(edits=[{"old_string":"<correct_value>","new_string":"<correct_value>"}])'],
      // A tool's own check (no hint of its own): the framework's fallback shapes it the same way; "one string or a list" shows the list.
      ["git_add", { paths: [""] }, 'GitAdd(paths=["<correct_value>"])'],
      ["question", { questions: "Which one?" }, 'AskUserQuestion(questions=[{"question":"<correct_value>","header":"<correct_value>","options":[{"label":"<correct_value>"}]}])'],
      ["fetch", { url: "http://127.0.0.1:9/", auth: { type: "digest" } }, 'WebFetch(auth={"type":"basic","username":"<correct_value>","password":"<correct_value>"})'],
      ["fetch", { url: "http://127.0.0.1:9/", headers: { a: 1 } }, 'WebFetch(headers={"<name>":"<correct_value>"})'],
      // Strings stay strings.
      ["read", {}, 'Read(path="<correct_value>")'],
    ]
    for (const [name, params, step] of cases) {
      const r = await outcome(root, name, params)
      expect({ name, params, code: r.code, step: r.steps[0] }).toEqual({ name, params, code: "INVALID_PARAM", step })
    }
  })

  test("a tool with its own JSON Schema (an MCP server's) is shaped from that schema", async () => {
    const tagged = defineTool({
      name: "mcp__docs__tag",
      title: "mcp__docs__tag",
      description: "Tags.",
      parameters: Schema.Struct({ tags: Schema.Array(Schema.String) }),
      jsonSchema: { type: "object", properties: { tags: { type: "array", items: { type: "string" } } }, required: ["tags"] },
      run: () => Effect.succeed({ data: {}, text: "" }),
    })
    const r = await outcome(project({}), "mcp__docs__tag", { tags: "a" }, { tools: [...builtinTools, tagged] })
    expect(r).toMatchObject({ code: "INVALID_PARAM", steps: ['mcp__docs__tag(tags=["<correct_value>"])'] })
  })
})

describe("an empty path is a parameter error, not the project's top folder", () => {
  test("read, write, edit, multiedit and the LSP tools: INVALID_PARAM on path, a listing of the top folder next, nothing written", async () => {
    const root = project({ "f.txt": "a\n" })
    const cases: Array<[string, Record<string, unknown>]> = [
      ["read", { path: "" }],
      ["read", { path: "  " }],
      ["write", { path: "", content: "x" }],
      ["edit", { path: "", old_string: "a", new_string: "b" }],
      ["multiedit", { path: "", edits: [{ old_string: "a", new_string: "b" }] }],
      ["lsp_hover", { path: "", line: 1, character: 1 }],
      ["lsp_diagnostics", { path: "" }],
    ]
    for (const [name, params] of cases) {
      const r = await outcome(root, name, params)
      expect({ name, params, code: r.code, fields: r.fields, step: r.steps[0] }).toEqual({ name, params, code: "INVALID_PARAM", fields: ["path"], step: 'LS(path=".")' })
    }
    expect(readFileSync(join(root, "f.txt"), "utf8")).toBe("a\n")
    expect(existsSync(join(root, " "))).toBe(false)
  })
})

describe("a file too large for a language server: grep or read of that file, not the file named again", () => {
  test("lsp_hover reads around its line; lsp_diagnostics from the start", async () => {
    const root = project({})
    writeFileSync(join(root, "big.py"), "x = 1  # padding padding padding padding padding\n".repeat(180_000))
    const hover = await outcome(root, "lsp_hover", { path: "big.py", line: 40, character: 1 })
    expect(hover.code).toBe("INVALID_PARAM")
    expect(hover.steps).toEqual(['Grep(pattern="<symbol>", path="big.py")', 'Read(path="big.py", offset=29, limit=21)'])
    const diagnostics = await outcome(root, "lsp_diagnostics", { path: "big.py" })
    expect(diagnostics.steps).toEqual(['Grep(pattern="<symbol>", path="big.py")', 'Read(path="big.py")'])
  })
})

describe("load_tools: names the permission rules refuse are not called wrong", () => {
  const deny = { configOverrides: { permission: { git_commit: "deny", fetch: "deny" } } }

  test("only refused names: no call asked again, the next step said in words", async () => {
    const r = await outcome(project({}), "load_tools", { names: ["git_commit"] }, deny)
    expect(r.code).toBe("INVALID_PARAM")
    expect(r.steps).toEqual([])
    expect(r.text).toContain('denied by the rule "git_commit": "deny"')
    expect(r.text.trimEnd().split("\n").pop()).toBe(
      "Next step: go on with the tools you have; the permission rules named above refuse git_commit, and only the user can change them.",
    )
  })

  test("an unknown name beside a refused one: only the unknown one is called unknown, and asked for again as a list", async () => {
    const r = await outcome(project({}), "load_tools", { names: ["fetch", "nosuch"] }, deny)
    expect(r.code).toBe("INVALID_PARAM")
    expect(r.text).toContain("no such tool: nosuch.")
    expect(r.text).not.toContain("no such tool: nosuch, fetch")
    expect(r.text).toContain('Also not loaded, every call would be refused: The \'fetch\' call is denied by the rule "fetch": "deny"')
    expect(r.steps).toEqual(['LoadTools(names=["<correct_value>"])'])
  })
})

describe("a path one of whose folders is a file names that file, and the listing that shows it", () => {
  test("every tool that takes a path: the file in the way said, the folder holding it listed (not a fixed folder of the path)", async () => {
    const root = project({ "d/f": "x\n", "a.txt": "hi\n" })
    Bun.spawnSync(["git", "init", "-q"], { cwd: root })
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ["write", { path: "d/f/b/c.txt", content: "x" }, "d/f is a file, not a folder, so d/f/b/c.txt cannot be under it. Nothing was written."],
      ["write", { path: "a.txt/b.txt", content: "x" }, "a.txt is a file, not a folder, so a.txt/b.txt cannot be under it. Nothing was written."],
      ["edit", { path: "d/f/b/c.txt", old_string: "", new_string: "x" }, "d/f is a file, not a folder, so d/f/b/c.txt cannot be under it. Nothing was written."],
      ["edit", { path: "d/f/b/c.txt", old_string: "a", new_string: "x" }, "File not found: d/f/b/c.txt (d/f is a file, not a folder)."],
      ["read", { path: "d/f/b/c.txt" }, "File not found: d/f/b/c.txt (d/f is a file, not a folder)"],
      ["list", { path: "d/f/b" }, "Directory not found: d/f/b (d/f is a file, not a folder)"],
      ["glob", { pattern: "*", path: "d/f/b" }, "Directory not found: d/f/b (d/f is a file, not a folder)"],
      ["grep", { pattern: "x", path: "d/f/b/c" }, "No such file or directory: d/f/b/c (d/f is a file, not a folder)"],
      ["lsp_hover", { path: "d/f/b.py", line: 1, character: 1 }, "File not found: d/f/b.py (d/f is a file, not a folder)"],
      ["git_add", { paths: ["d/f/b"] }, "d/f is a file, not a folder, so d/f/b cannot be under it."],
      ["bash", { command: "true", workdir: "d/f/b" }, "Working directory not found: d/f/b (d/f is a file, not a folder)"],
    ]
    for (const [name, params, message] of cases) {
      const r = await outcome(root, name, params)
      const folder = message.startsWith("a.txt") ? "." : "d"
      expect({ name, params, code: r.code, message: r.text.includes(message), look: r.steps.includes(`LS(path="${folder}")`) }).toEqual({ name, params, code: "NOT_FOUND", message: true, look: true })
    }
    expect(readFileSync(join(root, "d/f"), "utf8")).toBe("x\n")
  })

  test("a path whose folders are only missing: the nearest folder that exists is listed, never one that is not there", async () => {
    const root = project({ "d/e.txt": "x\n" })
    for (const [name, params] of [
      ["read", { path: "d/no/deeper/x.txt" }],
      ["list", { path: "d/no/deeper" }],
      ["glob", { pattern: "*", path: "d/no/deeper" }],
      ["grep", { pattern: "x", path: "d/no/deeper" }],
      ["edit", { path: "d/no/deeper/x.txt", old_string: "a", new_string: "b" }],
      ["bash", { command: "true", workdir: "d/no/deeper" }],
    ] as const) {
      const r = await outcome(root, name, params)
      expect({ name, code: r.code, looks: r.steps.filter((s) => s.startsWith("LS(")) }).toEqual({ name, code: "NOT_FOUND", looks: ['LS(path="d")'] })
    }
  })
})

describe("fetch: a 401 or 403 is told apart by what it says, and only a challenge or a bare refusal suggests credentials", () => {
  test("a challenge's scheme, credentials refused, bot protection (header or page), an object store's AccessDenied, a bare 403", async () => {
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: (req) => {
        const path = new URL(req.url).pathname
        if (path === "/basic") return new Response("who are you", { status: 401, headers: { "WWW-Authenticate": 'Basic realm="files"' } })
        if (path === "/bearer") return new Response("bad token", { status: 401, headers: { "WWW-Authenticate": 'Bearer error="invalid_token"' } })
        if (path === "/cf") return new Response("<html><title>Just a moment...</title></html>", { status: 403, headers: { "cf-mitigated": "challenge", "content-type": "text/html" } })
        if (path === "/bots") return new Response("Automated requests are not allowed on this site.", { status: 403 })
        if (path === "/s3") return new Response("<Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>", { status: 403, headers: { "content-type": "application/xml" } })
        return new Response("forbidden", { status: 403 })
      },
    })
    try {
      const root = project({})
      const base = `http://127.0.0.1:${server.port}`
      const get = (path: string, extra: Record<string, unknown> = {}) => outcome(root, "fetch", { url: `${base}${path}`, ...extra })

      const basic = await get("/basic")
      expect(basic.code).toBe("PERMISSION_DENIED")
      expect(basic.steps).toEqual([`WebFetch(url="${base}/basic", auth={"type":"basic","username":"<user>","password":"<password>"})`])
      expect(basic.text).toContain('The server asks for credentials (WWW-Authenticate: Basic realm="files").')

      const bearer = await get("/bearer", { auth: { type: "bearer", token: "t0k3n-secret" } })
      expect(bearer.text).toContain("The credentials sent were refused")
      expect(bearer.steps).toEqual([`WebFetch(url="${base}/bearer", auth={"type":"bearer","token":"<token>"})`])
      expect(bearer.text).not.toContain("t0k3n-secret")

      for (const [path, sign] of [["/cf", "Cloudflare's bot check: cf-mitigated header"], ["/bots", "the page says automated clients are refused"]]) {
        const blocked = await get(path!)
        expect({ path, code: blocked.code, steps: blocked.steps }).toEqual({ path, code: "PERMISSION_DENIED", steps: [] })
        expect(blocked.text).toContain(`The refusal comes from bot protection in front of the site (${sign}), not from missing credentials: neither a token nor a retry gets past it.`)
        expect(blocked.text).not.toContain("bearer")
        expect(blocked.text.trimEnd().split("\n").pop()).toStartWith("Next step: get the content another way")
      }

      // A private object (no challenge, no sign of a bot check) and a bare 403: said not to be known, credentials one way on.
      for (const path of ["/s3", "/plain"]) {
        const bare = await get(path)
        expect(bare.text).toContain("The server refused without asking for credentials (no WWW-Authenticate header)")
        expect(bare.steps).toEqual([`WebFetch(url="${base}${path}", auth={"type":"bearer","token":"<token>"})`])
      }
      // The same bare 403 with a cookie sent: those credentials were refused, and sending them again fares the same.
      const withCookie = await get("/plain", { auth: { type: "cookie", cookie: "session=abc" } })
      expect(withCookie.steps).toEqual([])
      expect(withCookie.text).toContain("The credentials sent were refused, or they give no access to this page")
      expect(withCookie.text.trimEnd().split("\n").pop()).toStartWith("Next step: check the credentials")
    } finally {
      await server.stop(true)
    }
  })
})

describe("where no call helps, the next step is said in words rather than a parameter asked for again", () => {
  test("a protected file (not 'another path'), and a background command id when the session started none", async () => {
    const root = project({ "a.txt": "a\n" })
    Bun.spawnSync(["git", "init", "-q"], { cwd: root })
    for (const [name, params] of [
      ["write", { path: "anvil.json", content: "{}" }],
      ["edit", { path: ".vscode/tasks.json", old_string: "", new_string: "{}" }],
    ] as const) {
      const r = await outcome(root, name, params)
      expect({ name, code: r.code, steps: r.steps, last: r.text.trimEnd().split("\n").pop() }).toEqual({
        name,
        code: "ACCESS_DENIED",
        steps: [],
        last: "Next step: go on without changing it; only the user can, as said above.",
      })
    }
    expect(existsSync(join(root, ".vscode"))).toBe(false)
    for (const name of ["bash_output", "bash_stop"]) {
      const r = await outcome(root, name, { id: "zz" })
      expect({ name, code: r.code, steps: r.steps }).toEqual({ name, code: "NOT_FOUND", steps: [] })
      expect(r.text.trimEnd().split("\n").pop()).toStartWith("Next step: there is no background command to read or stop")
    }
  })
})
