import { describe, expect, setDefaultTimeout, test } from "bun:test"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { tempDir } from "../support/harness.ts"
import { runBinary, sandboxBinary } from "../sandbox/binary.ts"
import { expandedPattern, withRootTwins } from "../../src/permission/root-twins.ts"
import { levelFor, toolRules } from "../../src/permission/rules.ts"
import { foldersOf } from "../../src/permission/path-patterns.ts"

// The forms a path rule may take — a name anywhere (`secret*`, `**/secret*`), a path anchored at the root (`./x`,
// `a/b`), an absolute path or pattern (`/abs/…`, `/**/secret*`, Claude Code's `//abs`), the home folder's (`~/x`,
// `$HOME/x`) — hold alike for read, grep, glob, list and the command sandbox. Through the compiled binary.
setDefaultTimeout(120_000)

const binary = sandboxBinary()

/** A home with a project (`proj`, secrets at two depths) and a notes folder the file tools may reach; the rule in the user's settings. */
const world = (rule: (home: string, root: string) => string, level = "deny") => {
  const home = tempDir("anvil-forms-home-")
  const root = join(home, "proj")
  mkdirSync(join(root, "a", "b"), { recursive: true })
  mkdirSync(join(home, "notes"))
  mkdirSync(join(home, ".config", "anvil"), { recursive: true })
  Bun.spawnSync(["git", "init", "-q"], { cwd: root })
  writeFileSync(join(root, "secret.txt"), "SEC-TOP\n")
  writeFileSync(join(root, "a", "b", "secret2.txt"), "SEC-DEEP\n")
  writeFileSync(join(root, "ok.txt"), "PLAIN\n")
  writeFileSync(join(home, "notes", "secret3.txt"), "SEC-NOTE\n")
  const written = rule(home, root)
  writeFileSync(join(home, ".config", "anvil", "anvil.json"), JSON.stringify({ permission: { read: { [written]: level } }, sandbox: { allow: ["~/notes"] } }))
  const tool = async (name: string, params: unknown) => JSON.parse((await runBinary(binary(), ["tool", name, JSON.stringify(params)], root, { HOME: home })).out)
  return { home, root, written, tool }
}

const readable = async (w: ReturnType<typeof world>, paths: ReadonlyArray<string>) => {
  const out: Record<string, string> = {}
  for (const p of paths) {
    const e = await w.tool("read", { path: p })
    out[p] = e.status === "success" ? "read" : e.error.code
  }
  return out
}

describe("path rule forms through the binary", () => {
  test("`/**/secret*` (absolute, from /) holds for the project's files in every file tool; commands are not run, saying why", async () => {
    const w = world(() => "/**/secret*")
    expect(await readable(w, ["secret.txt", "a/b/secret2.txt", "ok.txt", "~/notes/secret3.txt"])).toEqual({
      "secret.txt": "PERMISSION_DENIED",
      "a/b/secret2.txt": "PERMISSION_DENIED",
      "ok.txt": "read",
      "~/notes/secret3.txt": "PERMISSION_DENIED",
    })
    const refused = await w.tool("read", { path: "a/b/secret2.txt" })
    expect(refused.error.message).toContain(`"read": {"/**/secret*": "deny"}`)
    expect((await w.tool("grep", { pattern: "SEC|PLAIN", output_mode: "files_with_matches" })).data.files).toEqual(["ok.txt"])
    expect((await w.tool("glob", { pattern: "**/*.txt" })).data.paths).toEqual(["ok.txt"])
    expect((await w.tool("list", { path: "a/b" })).text).not.toContain("secret2")
    const bash = await w.tool("bash", { command: "cat ok.txt" })
    expect(bash.error.code).toBe("PERMISSION_DENIED")
    expect(bash.error.message).toContain("cannot all be found")
  })

  test("`**/secret*` and `secret*` (anywhere in the project): every tool and the command sandbox", async () => {
    for (const written of ["**/secret*", "secret*"]) {
      const w = world(() => written)
      expect(await readable(w, ["secret.txt", "a/b/secret2.txt", "ok.txt"])).toEqual({ "secret.txt": "PERMISSION_DENIED", "a/b/secret2.txt": "PERMISSION_DENIED", "ok.txt": "read" })
      expect((await w.tool("grep", { pattern: "SEC|PLAIN", output_mode: "files_with_matches" })).data.files).toEqual(["ok.txt"])
      expect((await w.tool("glob", { pattern: "**/*.txt" })).data.paths).toEqual(["ok.txt"])
      const bash = await w.tool("bash", { command: "cat secret.txt a/b/secret2.txt ok.txt 2>/dev/null; true" })
      expect(bash.data.stdout).toBe("PLAIN")
    }
  })

  test("`~/notes/secret*`, `$HOME/notes/**` and `//<home>/notes/secret3.txt` name the home folder's file, not `<root>/~/…`, for the file tools and commands", async () => {
    for (const rule of [() => "~/notes/secret*", () => "$HOME/notes/**", (home: string) => `/${home}/notes/secret3.txt`]) {
      const w = world(rule)
      expect(await readable(w, ["~/notes/secret3.txt", join(w.home, "notes", "secret3.txt"), "secret.txt"])).toEqual({
        "~/notes/secret3.txt": "PERMISSION_DENIED",
        [join(w.home, "notes", "secret3.txt")]: "PERMISSION_DENIED",
        "secret.txt": "read",
      })
      // The refusal names the rule as it is written.
      expect((await w.tool("read", { path: "~/notes/secret3.txt" })).error.message).toContain(JSON.stringify(w.written))
      const bash = await w.tool("bash", { command: `cat ${w.home}/notes/secret3.txt ok.txt 2>/dev/null; true` })
      expect(bash.data.stdout).toBe("PLAIN")
      // A folder named `~` in the project is not what the rule means.
      mkdirSync(join(w.root, "~", "notes"), { recursive: true })
      writeFileSync(join(w.root, "~", "notes", "secret3.txt"), "LOCAL\n")
      expect((await w.tool("read", { path: "./~/notes/secret3.txt" })).status).toBe("success")
    }
  })

  test("an edit rule with `~/` holds for a path the call names with `~/` (it is the home folder's file, not `<cwd>/~/…`)", async () => {
    const w = world(() => "unused")
    writeFileSync(join(w.home, ".config", "anvil", "anvil.json"), JSON.stringify({ permission: { edit: { "~/notes/**": "deny" } }, sandbox: { allow: ["~/notes"] } }))
    const wrote = await w.tool("write", { path: "~/notes/new.txt", content: "x" })
    expect(wrote.error.code).toBe("PERMISSION_DENIED")
    expect(wrote.error.message).toContain(`"edit": {"~/notes/**": "deny"}`)
  })

  test("an absolute rule with a wildcard before the project (`/<parent>/*/a/`) covers the project's folder", async () => {
    const w = world((home) => `${join(home, "..")}/*/proj/a/`)
    expect(await readable(w, ["a/b/secret2.txt", "secret.txt"])).toEqual({ "a/b/secret2.txt": "PERMISSION_DENIED", "secret.txt": "read" })
    expect((await w.tool("glob", { pattern: "**/*.txt" })).data.paths.sort()).toEqual(["ok.txt", "secret.txt"])
  })
})

describe("rule forms, as matched", () => {
  test("home and absolute forms are spelt out; others stay as written", () => {
    expect(expandedPattern("~/x/**", "/h/me")).toBe("/h/me/x/**")
    expect(expandedPattern("~", "/h/me")).toBe("/h/me")
    expect(expandedPattern("$HOME/.env", "/h/me")).toBe("/h/me/.env")
    expect(expandedPattern("${HOME}/k/", "/h/me/")).toBe("/h/me/k/")
    expect(expandedPattern("//etc/passwd", "/h/me")).toBe("/etc/passwd")
    expect(expandedPattern("~user/x", "/h/me")).toBe("~user/x")
    expect(expandedPattern("$HOMEDIR/x", "/h/me")).toBe("$HOMEDIR/x")
    expect(expandedPattern("./~/x", "/h/me")).toBe("./~/x")
    expect(expandedPattern("src/**", "/h/me")).toBe("src/**")
  })

  test("an absolute pattern reaches the project's paths wherever its wildcards fall", () => {
    const level = (pattern: string, path: string) =>
      levelFor(toolRules(withRootTwins({ read: { [pattern]: "deny" } }, "/w/app", "/h"), "read"), "allow", { kind: "path", values: [path] })
    expect(level("/**/secret*", "secret.txt")).toBe("deny")
    expect(level("/**/secret*", "a/b/secret.txt")).toBe("deny")
    expect(level("/**/secret*", "a/b/public.txt")).toBe("allow")
    expect(level("/w/*/keys/", "keys/a.pem")).toBe("deny")
    expect(level("/w/*/keys/", "src/keys/a.pem")).toBe("allow")
    expect(level("/x/*/keys/", "keys/a.pem")).toBe("allow")
    // A pattern naming the root itself (or a folder holding it) covers all it holds.
    expect(level("/w/", "a/b.txt")).toBe("deny")
    // Outside the project, the absolute path is matched as it is, folders included.
    expect(level("~/.aws", "/h/.aws/credentials")).toBe("deny")
    expect(foldersOf("/h/.aws/credentials")).toEqual(["/h", "/h/.aws"])
  })
})
