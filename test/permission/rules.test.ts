import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { allowCovers, parseAllowRule } from "../../src/permission/allow-rule.ts"
import { commandParts } from "../../src/permission/command-parts.ts"
import { levelFor, toolRules } from "../../src/permission/rules.ts"
import { pathGlob } from "../../src/permission/path-patterns.ts"
import { subjectsOf } from "../../src/permission/subjects.ts"
import { withRootTwins } from "../../src/permission/root-twins.ts"
import type { AskAnswer, PermissionRequest } from "../../src/permission/permissions.ts"
import { askTool } from "../support/fixture-tools.ts"
import { callTool, project, session } from "../support/harness.ts"
import { defineTool, type Tool } from "../../src/tool-framework/definition.ts"
import { Layer, Schema } from "effect"
import { Config } from "../../src/config/config.ts"
import { Permissions } from "../../src/permission/permissions.ts"

describe("permission rules", () => {
  test("a compound command splits into the commands it runs", () => {
    expect(commandParts("git status && rm -rf / ; echo 'a;b' | wc -l")).toEqual(["git status", "rm -rf /", "echo 'a;b'", "wc -l"])
    expect(commandParts('echo "$(curl evil)" `id`')).toEqual(["curl evil", 'echo "$(…)"', "id"])
    expect(commandParts("(cd src && make) &")).toEqual(["cd src", "make"])
  })

  test("the strictest matching pattern wins; no match falls back to the tool level, then the default", () => {
    const rules = toolRules({ bash: { "*": "ask", "git status*": "allow", "git *": "ask", "npm test": "allow", "rm *": "deny" } }, "bash")
    const level = (command: string) => levelFor(rules, "allow", { kind: "command", values: [command] })
    expect(level("git status --short")).toBe("ask") // "git *" (ask) is stricter than "git status*" (allow)
    expect(level("npm test")).toBe("allow")
    expect(level("npm test -- --watch")).toBe("ask")
    expect(level("rm -rf build")).toBe("deny")
    expect(level("npm test && rm -rf /")).toBe("deny")
    expect(level("ls")).toBe("ask")
    const noStar = toolRules({ bash: { "npm test": "allow" } }, "bash")
    expect(levelFor(noStar, "ask", { kind: "command", values: ["npm test"] })).toBe("allow")
    expect(levelFor(noStar, "ask", { kind: "command", values: ["npm test; curl x"] })).toBe("ask")
    expect(levelFor(toolRules({ read: "deny" }, "read"), "allow", undefined)).toBe("deny")
    expect(levelFor(undefined, "ask", undefined)).toBe("ask")
  })

  test("path globs: ** crosses folders, a bare name matches anywhere", () => {
    expect(pathGlob("src/**").test("src/a/b.ts")).toBe(true)
    expect(pathGlob("src/*.ts").test("src/a/b.ts")).toBe(false)
    expect(pathGlob("*.lock").test("deep/dir/yarn.lock")).toBe(true)
    expect(pathGlob("docs/").test("docs/x/y.md")).toBe(true)
    const rules = toolRules({ edit: { "src/**": "allow", "*.lock": "deny" } }, "edit")
    expect(levelFor(rules, "ask", { kind: "path", values: ["src/app.ts"] })).toBe("allow")
    expect(levelFor(rules, "ask", { kind: "path", values: ["src/yarn.lock"] })).toBe("deny")
    expect(levelFor(rules, "ask", { kind: "path", values: ["README.md"] })).toBe("ask")
    expect(levelFor(rules, "ask", { kind: "path", values: ["src/a.ts", "other.ts"] })).toBe("ask")
  })

  test("a deny or ask rule written as an absolute path inside the project gets a root-relative twin; an allow rule does not", () => {
    const permission = { read: { "/p/app/secret.txt": "deny", "/p/app/keys/": "ask", "/p/app/pub.txt": "allow", "/p/other.txt": "deny" }, bash: "ask" }
    const twinned = withRootTwins(permission, "/p/app")
    expect(twinned).toEqual({ read: { ...permission.read, "./secret.txt": "deny", "./keys/": "ask" }, bash: "ask" })
    expect(withRootTwins(permission, "/p/app")).toBe(twinned)
    expect(levelFor(toolRules(twinned, "read"), "allow", { kind: "path", values: ["keys/a.pem"] })).toBe("ask")
    expect(withRootTwins(permission, undefined)).toBe(permission)
  })

  test("an absolute rule through a linked root names the same place: the link in the rule or in the root is resolved", () => {
    const real = realpathSync(mkdtempSync(join(tmpdir(), "twins-")))
    mkdirSync(join(real, "app/keys"), { recursive: true })
    symlinkSync(join(real, "app"), join(real, "via"))
    const at = (permission: unknown, root: string, value: string) => levelFor(toolRules(withRootTwins(permission, root), "read"), "allow", { kind: "path", values: [value] })
    // The rule through the link, the root real (as the workspace resolves it).
    expect(at({ read: { [`${real}/via/secret.txt`]: "deny" } }, join(real, "app"), "secret.txt")).toBe("deny")
    // The rule real, the root given through the link; a wildcard after the resolved part is kept.
    expect(at({ read: { [`${real}/app/keys/*.pem`]: "ask" } }, join(real, "via"), "keys/a.pem")).toBe("ask")
    expect(at({ read: { [`${real}/via/keys/*.pem`]: "deny" } }, join(real, "app"), "keys/a.pem")).toBe("deny")
    // A missing file under a linked folder still resolves through the folder.
    expect(at({ read: { [`${real}/via/keys/new/x.txt`]: "deny" } }, join(real, "app"), "keys/new/x.txt")).toBe("deny")
    expect(at({ read: { [`${real}/via/other.txt`]: "deny" } }, join(real, "app"), "secret.txt")).toBe("allow")
  })

  test("names are compared composed: a rule on café.txt holds for the decomposed name macOS writes, and the other way round", () => {
    const nfc = "caf\u00e9"
    const nfd = "cafe\u0301"
    const at = (rules: unknown, value: string) => levelFor(toolRules(rules, "read"), "allow", { kind: "path", values: [value] })
    expect(at({ read: { [`${nfc}.txt`]: "deny" } }, `${nfd}.txt`)).toBe("deny")
    expect(at({ read: { [`${nfd}/`]: "deny" } }, `${nfc}/a.txt`)).toBe("deny")
    expect(at({ read: { [nfc]: "deny" } }, `x/${nfd}/a.txt`)).toBe("deny")
  })

  test("a leading ./ anchors a pattern at the root, for a name and for a folder with what it holds", () => {
    expect(pathGlob("./secret.txt").test("secret.txt")).toBe(true)
    expect(pathGlob("./secret.txt").test("a/secret.txt")).toBe(false)
    expect(pathGlob("secret.txt").test("a/secret.txt")).toBe(true)
    expect(pathGlob("./keys/").test("lib/keys/a.pem")).toBe(false)
    expect(pathGlob("./keys/").test("keys/")).toBe(true)
    const deny = toolRules({ read: { "./secret.txt": "deny", "./keys": "deny" } }, "read")
    const at = (value: string) => levelFor(deny, "allow", { kind: "path", values: [value] })
    expect([at("secret.txt"), at("a/secret.txt"), at("keys/x/a.pem"), at("lib/keys/a.pem")]).toEqual(["deny", "allow", "deny", "allow"])
  })

  test("hosts: exact or *.subdomain", () => {
    const rules = toolRules({ fetch: { "docs.python.org": "allow", "*.internal": "deny" } }, "fetch")
    const level = (url: string) => levelFor(rules, "ask", subjectsOf({ url }))
    expect(level("https://docs.python.org/3/")).toBe("allow")
    expect(level("https://evil.docs.python.org.example/")).toBe("ask")
    expect(level("http://db.internal/x")).toBe("deny")
  })

  test("hosts: a rule holds for every spelling of its host (a trailing dot, case, IPv4 forms, IPv4 written as IPv6), written either way", () => {
    const rules = toolRules({ fetch: { localhost: "deny", "127.0.0.1": "deny", "evil.example.": "deny", "*.internal": "deny" } }, "fetch")
    const level = (url: string) => levelFor(rules, "allow", subjectsOf({ url }))
    const urls = ["http://localhost./", "http://LocalHost../", "http://127.1/", "http://0x7f.0.0.1/", "http://[::ffff:127.0.0.1]/", "http://evil.example/", "http://evil.example./", "http://db.internal./"]
    expect(urls.map(level)).toEqual(urls.map(() => "deny"))
    expect([level("http://[::1]/"), level("http://example.org./")]).toEqual(["allow", "allow"])
  })

  test("subjects come from the parameters", () => {
    expect(subjectsOf({ command: "ls" })).toEqual({ kind: "command", values: ["ls"] })
    expect(subjectsOf({ args: ["git", "log"] })).toEqual({ kind: "command", values: ["git log"] })
    expect(subjectsOf({ path: "./a.ts" }, (p) => p.replace(/^\.\//, ""))).toEqual({ kind: "path", values: ["a.ts"] })
    expect(subjectsOf({ expression: "1" })).toBeUndefined()
  })

  test("--allow rules: TOOL, TOOL:PATTERN, TOOL(PATTERN); a pattern must cover every part", () => {
    expect(parseAllowRule("bash")).toEqual({ tool: "bash" })
    expect(parseAllowRule("bash:git status*")).toEqual({ tool: "bash", pattern: "git status*" })
    expect(parseAllowRule("Bash(npm test)")).toEqual({ tool: "bash", pattern: "npm test" })
    expect(parseAllowRule("no spaces allowed")).toBeUndefined()
    const rule = parseAllowRule("bash:echo *")!
    expect(allowCovers(rule, "bash", { kind: "command", values: ["echo hi"] })).toBe(true)
    expect(allowCovers(rule, "bash", { kind: "command", values: ["echo hi && rm x"] })).toBe(false)
    expect(allowCovers(rule, "edit", { kind: "command", values: ["echo hi"] })).toBe(false)
    expect(allowCovers({ tool: "bash" }, "bash", undefined)).toBe(true)
  })
})

const pathTool = defineTool({
  name: "touchy",
  title: "Touchy",
  description: "Test tool with a path.",
  permission: "ask",
  parameters: Schema.Struct({ path: Schema.String }),
  run: ({ path }) => Effect.succeed({ data: { path }, text: `touched ${path}` }),
})

describe("the Permissions service", () => {
  test("asks for 'ask' calls; 'session' approves the same subject for the rest of the session", async () => {
    const root = project({})
    const asked: Array<PermissionRequest> = []
    const answers: Array<AskAnswer> = ["session", "deny"]
    const s = session(root, { tools: [pathTool], onAsk: (r) => Effect.sync(() => (asked.push(r), answers.shift()!)) })
    expect((await s.call("touchy", { path: "a.txt" })).envelope.status).toBe("success")
    expect((await s.call("touchy", { path: "./a.txt" })).envelope.status).toBe("success")
    expect(asked.length).toBe(1)
    expect(asked[0]!.subjects).toEqual({ kind: "path", values: ["a.txt"] })
    const denied = await s.call("touchy", { path: "b.txt" })
    expect(denied.envelope.error?.code).toBe("PERMISSION_DENIED")
    expect(denied.envelope.error?.message).toContain("b.txt")
    expect(asked.length).toBe(2)
  })

  test("'always' saves the rule into the project's anvil.json, keeping its other settings", async () => {
    const root = project({})
    writeFileSync(join(root, "anvil.json"), JSON.stringify({ model: "openai/x", permission: { touchy: "ask" } }))
    let asks = 0
    // The saved rule is trusted in the user's store (the project file's allow rules need trust otherwise).
    const env = { XDG_CONFIG_HOME: join(root, ".user-config") }
    const s = session(root, { env, tools: [pathTool], onAsk: () => Effect.sync(() => (asks++, "always" as const)) })
    await s.call("touchy", { path: "src/a.ts" })
    await s.call("touchy", { path: "src/a.ts" })
    expect(asks).toBe(1)
    const saved = JSON.parse(readFileSync(join(root, "anvil.json"), "utf8"))
    expect(saved).toEqual({ model: "openai/x", permission: { touchy: { "*": "ask", "src/a.ts": "allow" } } })
    // A new session reads it: no question for that path.
    let later = 0
    const again = await callTool(root, "touchy", { path: "src/a.ts" }, { env, tools: [pathTool], onAsk: () => Effect.sync(() => (later++, false)) })
    expect(again.envelope.status).toBe("success")
    expect(later).toBe(0)
  })

  test("a path rule holds for a link to its file or folder too: a deny on secret.txt is not passed by alias.txt -> secret.txt", async () => {
    const root = project({ "secret.txt": "s\n", "src/code.ts": "c\n" })
    writeFileSync(join(root, "anvil.json"), JSON.stringify({ permission: { read: { "secret.txt": "deny" }, write: { "secret.txt": "deny", "src/**": "deny" } } }))
    symlinkSync("secret.txt", join(root, "alias.txt"))
    symlinkSync("src", join(root, "lib"))
    mkdirSync(join(root, "sub"))
    symlinkSync("../src/new.ts", join(root, "sub/dangling.ts"))
    const calls: Array<[string, unknown]> = [
      ["read", { path: "alias.txt" }],
      ["write", { path: "alias.txt", content: "x" }],
      ["write", { path: "lib/code.ts", content: "x" }],
      ["write", { path: "lib/new.ts", content: "x" }],
      ["write", { path: "sub/dangling.ts", content: "x" }],
    ]
    for (const [tool, params] of calls) {
      const { envelope } = await callTool(root, tool, params)
      expect([tool, envelope.error?.code]).toEqual([tool, "PERMISSION_DENIED"])
    }
    expect(readFileSync(join(root, "secret.txt"), "utf8")).toBe("s\n")
    expect((await callTool(root, "write", { path: "other.txt", content: "x" })).envelope.status).toBe("success")
    const refusal = (await callTool(root, "write", { path: "alias.txt", content: "x" })).envelope.error?.message
    expect(refusal).toContain("The 'write' call (alias.txt -> secret.txt) is denied by the rule \"write\": {\"secret.txt\": \"deny\"}")
  })

  test("a path given quoted as anvil shows names (\"secret.txt\", escaped bytes) is judged as the file it names: deny and ask rules hold for every file tool", async () => {
    const root = project({ "secret.txt": "s\n", "a.key": "k\n", "x.cfg": "c\n", "ok.txt": "o\n" })
    writeFileSync(join(root, "anvil.json"), JSON.stringify({ permission: { read: { "secret.txt": "deny", "*.key": "ask" }, write: { "*.cfg": "deny" }, edit: { "*.cfg": "deny" } } }))
    const calls: Array<[string, unknown]> = [
      ["read", { path: '"secret.txt"' }],
      ["read", { path: '"sec\\162et.txt"' }],
      ["read", { path: '"./secret.txt"' }],
      ["write", { path: '"x.cfg"', content: "pwn\n" }],
      ["edit", { path: '"x.cfg"', old_string: "c", new_string: "d" }],
      ["multiedit", { path: '"x.cfg"', edits: [{ old_string: "c", new_string: "d" }] }],
    ]
    for (const [tool, params] of calls) {
      const { envelope } = await callTool(root, tool, params)
      expect([tool, params, envelope.error?.code]).toEqual([tool, params, "PERMISSION_DENIED"])
    }
    expect(readFileSync(join(root, "x.cfg"), "utf8")).toBe("c\n")
    let asked = 0
    const key = await callTool(root, "read", { path: '"a.key"' }, { onAsk: () => Effect.sync(() => (asked++, false)) })
    expect([asked, key.envelope.status]).toEqual([1, "error"])
    expect((await callTool(root, "read", { path: '"ok.txt"' })).envelope.status).toBe("success")
  })

  test("patch is judged on every file its patch names: renames, copies, mode changes, quoted names, Begin Patch moves", async () => {
    const root = project({ "secret.txt": "s\n", "ü.txt": "u\n", "src/a.ts": "a\n" })
    writeFileSync(join(root, "anvil.json"), JSON.stringify({ permission: { patch: { "secret.txt": "deny", "ü.txt": "deny" } } }))
    const patches = [
      "diff --git a/secret.txt b/moved.txt\nsimilarity index 100%\nrename from secret.txt\nrename to moved.txt\n",
      "diff --git a/secret.txt b/copy.txt\nsimilarity index 100%\ncopy from secret.txt\ncopy to copy.txt\n",
      "diff --git a/secret.txt b/secret.txt\nold mode 100644\nnew mode 100755\n",
      'diff --git "a/\\303\\274.txt" "b/\\303\\274.txt"\n--- "a/\\303\\274.txt"\n+++ "b/\\303\\274.txt"\n@@ -1 +1 @@\n-u\n+v\n',
      "*** Begin Patch\n*** Update File: src/a.ts\n*** Move to: secret.txt\n@@\n-a\n+b\n*** End Patch\n",
      "--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1 +1 @@\n-a\n+b\n--- a/secret.txt\n+++ b/secret.txt\n@@ -1 +1 @@\n-s\n+t\n",
    ]
    for (const patch of patches) {
      const { envelope } = await callTool(root, "patch", { patch, dry_run: true })
      expect([patch, envelope.error?.code]).toEqual([patch, "PERMISSION_DENIED"])
    }
    const other = await callTool(root, "patch", { patch: "--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1 +1 @@\n-a\n+b\n", dry_run: true })
    expect(other.envelope.status).toBe("partial")
  })

  test("an approval or allow rule naming a link, or where it leads, covers the call; ask and deny rules on either side hold", async () => {
    const root = project({ "a.txt": "a\n", "docs/guide.md": "g\n" })
    symlinkSync("a.txt", join(root, "l.txt"))
    symlinkSync("../a.txt", join(root, "docs/a-link.txt"))
    const allowing = (pattern: string) =>
      Permissions.layer(() => Effect.succeed(false), { allow: [{ tool: "touchy", pattern }] }).pipe(
        Layer.provide(Config.layerFrom({ permission: { touchy: { "docs/**": "allow", "a.txt": "ask" } } })),
      )
    const check = (pattern: string, path: string) =>
      session(root, { tools: [pathTool] }).run(
        Effect.gen(function* () {
          return yield* (yield* Permissions).check({ tool: pathTool, params: { path } })
        }).pipe(Effect.provide(allowing(pattern))),
      )
    expect((await check("l.txt", "l.txt")).allowed).toBe(true)
    expect((await check("a.txt", "l.txt")).allowed).toBe(true)
    expect((await check("b.txt", "l.txt")).allowed).toBe(false)
    // docs/** allows, but the link leads to a.txt, whose rule asks: asked (and refused here).
    expect((await check("none", "docs/a-link.txt")).allowed).toBe(false)
    expect((await check("none", "docs/guide.md")).allowed).toBe(true)
  })

  test("--allow rules approve matching asks but never a deny rule", async () => {
    const layer = Permissions.layer(() => Effect.succeed(false), { allow: [{ tool: "touchy" }] }).pipe(
      Layer.provide(Config.layerFrom({ permission: { touchy: { "secret/**": "deny" } } })),
    )
    const check = (tool: Tool, params: unknown) =>
      Effect.runPromise(
        Effect.gen(function* () {
          return yield* (yield* Permissions).check({ tool, params })
        }).pipe(Effect.provide(layer)),
      )
    expect(await check(pathTool, { path: "x" })).toEqual({ allowed: true })
    const secret = await check(pathTool, { path: "secret/key" })
    expect(secret.allowed).toBe(false)
    expect(!secret.allowed && secret.reason).toContain('denied by the rule "touchy": {"secret/**": "deny"}')
    expect(!secret.allowed && secret.reason).toContain("--yes and --allow do not override a deny rule")
    expect((await check(askTool, {})).allowed).toBe(false)
  })

  test('a confined call is auto-allowed by the sandbox unless "read" asks about every file: then it is asked, naming that rule', async () => {
    const confinedTool = defineTool({
      name: "runner",
      title: "Runner",
      description: "runs",
      parameters: Schema.Struct({ command: Schema.String }),
      permission: "ask",
      sandboxedCall: () => true,
      run: () => Effect.succeed({ status: "success" as const, header: "", text: "", data: {} }),
    })
    const decide = (permission: Record<string, unknown>) => {
      const asked: Array<PermissionRequest> = []
      const layer = Permissions.layer((r) => Effect.sync(() => (asked.push(r), "once" as AskAnswer)), { sandbox: { confining: true, autoAllow: true } }).pipe(
        Layer.provide(Config.layerFrom({ permission })),
      )
      return Effect.runPromise(
        Effect.gen(function* () {
          return yield* (yield* Permissions).check({ tool: confinedTool, params: { command: "cat x" } })
        }).pipe(Effect.provide(layer)),
      ).then((decision) => ({ allowed: decision.allowed, asked: asked.map((r) => r.readAsked ?? "no rule") }))
    }
    expect(await decide({})).toEqual({ allowed: true, asked: [] })
    expect(await decide({ read: { "*.pem": "ask" } })).toEqual({ allowed: true, asked: [] })
    expect(await decide({ read: "ask" })).toEqual({ allowed: true, asked: ['"read": "ask" in "permission" of the settings in force'] })
    expect(await decide({ read: { "*": "ask", "src/**": "allow" } })).toEqual({ allowed: true, asked: ['"read": {"*": "ask"} in "permission" of the settings in force'] })
    // The command's own allow rule is an approval of it.
    expect(await decide({ read: "ask", runner: { "cat *": "allow" } })).toEqual({ allowed: true, asked: [] })
  })
})
