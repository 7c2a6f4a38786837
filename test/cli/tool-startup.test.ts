import { describe, expect, test } from "bun:test"
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join, relative } from "node:path"
import { runProcess } from "../support/anvil-cli.ts"
import { project, tempDir } from "../support/harness.ts"

// `anvil tool NAME` loads the tool it runs and the services that tool declares, nothing else: what a
// call evaluates is its start-up cost. Checked from source, with a preload that lists every module the
// process evaluated (effect itself is not checked: from source its index loads every effect module).

const repo = join(import.meta.dir, "..", "..")
const preload = join(import.meta.dir, "..", "support", "loaded-modules.ts")

/** The repository-relative modules and the packages one `anvil tool` call evaluated. */
const loadedBy = async (cwd: string, args: ReadonlyArray<string>, env: Record<string, string> = {}) => {
  const list = join(tempDir("anvil-loaded-"), "modules.txt")
  const r = await runProcess([process.execPath, "--preload", preload, join(repo, "src", "main.ts"), "tool", ...args], {
    cwd,
    env: { ANVIL_TEST_LOADED_MODULES: list, XDG_CONFIG_HOME: join(cwd, ".config"), XDG_CACHE_HOME: join(cwd, ".cache"), ...env },
  })
  const paths = readFileSync(list, "utf8").split("\n").filter((p) => p !== "")
  const own = paths.filter((p) => p.startsWith(join(repo, "src") + "/")).map((p) => relative(repo, p))
  // effect's own modules cannot be told apart from source (its index loads them all); @effect/platform-node's can.
  const platform = paths.filter((p) => p.includes("/@effect/platform-node")).map((p) => p.split("/dist/").pop()!)
  // Built-in modules anvil looks up on use (process.getBuiltinModule): bun:ffi and bun:jsc for the fast folder reader.
  const builtins = paths.filter((p) => p.startsWith("builtin:")).map((p) => p.slice("builtin:".length))
  const packages = [...new Set(paths.filter((p) => p.includes("/node_modules/")).map((p) => p.split("/node_modules/").pop()!.split("/").slice(0, p.split("/node_modules/").pop()!.startsWith("@") ? 2 : 1).join("/")))]
  return { code: r.code, stdout: r.stdout, stderr: r.stderr, own, packages: packages.sort(), platform, builtins }
}

/**
 * What reading a file must never evaluate: other tools' domains, the agent, the plugin host, the config Schema,
 * code for what went wrong or for changing files (journal recovery without a journal folder, atomic writes, file
 * locks, the similar-path search), the loader tool, the envelope and execution_meta Schemas.
 */
const HEAVY = [
  /^src\/(agent|llm|git|mcp|lsp|skills|host|trust|search|net|edit|patch|shell|todo)\//,
  /^src\/plugins\/(?!places\.ts$)/,
  /^src\/sandbox\/(?!settings\.ts$)/,
  /^src\/config\/(schema|check|jsonc)\.ts$/,
  // Other tools (a tool's error translation beside it is its own; the domain it names is checked above).
  /^src\/tools\/(?!read\.ts$|read\.md$|builtin\.ts$|[a-z-]+-errors\.ts$)/,
  /^src\/workspace\/(journal|atomic-write|flock|file-transaction|similar-paths|ignore-rules|gitignore|walk|node-file-system)\.ts$/,
  /^src\/protocol\/(envelope|execution-meta|hint-schema)\.ts$/,
  /^src\/output\/retention\.ts$/,
  /^src\/process\/(process-runner|managed-process|lazy-spawner)\.ts$/,
]

describe("what `anvil tool` evaluates", () => {
  test("read of a small file: the read tool, the pipeline and its core services; no other domain, package, Schema of the settings or plugin host for empty plugin folders", async () => {
    // An empty anvil.json has nothing to check: the settings' Schema is made only for settings.
    const root = project({ "small.txt": "one\ntwo\n", "anvil.json": "{}\n" })
    // Empty plugin folders (or ones holding only hidden or private names) hold no plugin: the host is not loaded.
    mkdirSync(join(root, ".config", "anvil", "plugins"), { recursive: true })
    mkdirSync(join(root, ".anvil", "plugins", "_drafts"), { recursive: true })
    const r = await loadedBy(root, ["read", '{"path":"small.txt"}'])
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout).data.content).toContain("two")
    expect(r.own).toContain("src/tools/read.ts")
    expect(r.own.filter((m) => HEAVY.some((h) => h.test(m)))).toEqual([])
    expect(r.packages.filter((p) => p !== "effect" && p !== "@effect/platform-node" && p !== "@effect/platform-node-shared")).toEqual([])
    // The platform's file system (and with it effect's streams) is imported by a FileSystem call, which a read
    // does not make; paths come from workspace/node-path.ts, not from a layer of @effect/platform-node.
    expect(r.platform).toEqual([])
    // The fast folder reader (workspace/fast-listing.ts), which the read rules' walk imports, makes its buffers and
    // sets its JIT hint (bun:jsc) on its first listing, not when it loads: a read lists no folder.
    expect(r.builtins.filter((b) => b.startsWith("bun:"))).toEqual([])
  })

  test("what a call does need is still loaded: git's domain for git_status (isomorphic-git only without a git executable), the plugin host when there are plugins, the JSONC parser and the settings' Schema for a commented anvil.json with a typo", async () => {
    const root = project({ "anvil.json": '{\n  // comment\n  "outptu": {}\n}\n' })
    Bun.spawnSync(["git", "init", "-q"], { cwd: root })
    const git = await loadedBy(root, ["git_status", "{}"])
    expect(JSON.parse(git.stdout).status).toBe("success")
    expect(git.own.some((m) => m.startsWith("src/git/"))).toBe(true)
    expect(git.packages).not.toContain("isomorphic-git")
    expect(git.own).toContain("src/config/check.ts")
    expect(git.packages).toContain("jsonc-parser")
    expect(git.stderr).toContain("unknown key 'outptu'")
    const plugins = join(root, ".config", "anvil", "plugins")
    mkdirSync(plugins, { recursive: true })
    writeFileSync(join(plugins, "hello.ts"), 'export default { api: 1, name: "hello" }\n')
    const withPlugin = await loadedBy(root, ["read", '{"path":"anvil.json"}'])
    expect(withPlugin.code).toBe(0)
    expect(withPlugin.own).toContain("src/plugins/plugin-host.ts")
  })

  test("code left out of a plain read still comes when it is needed: the similar-path search for a missing file, journal recovery with a journal folder, load_tools by name, the platform's file system", async () => {
    const root = project({ "small.txt": "one\n" })
    const missing = await loadedBy(root, ["read", '{"path":"smal.txt"}'])
    expect(JSON.parse(missing.stdout).text).toContain("small.txt")
    expect(missing.own).toContain("src/workspace/similar-paths.ts")
    mkdirSync(join(root, ".anvil", "journal"), { recursive: true })
    const journal = await loadedBy(root, ["read", '{"path":"small.txt"}'])
    expect(journal.code).toBe(0)
    expect(journal.own).toContain("src/workspace/journal.ts")
    const loader = await loadedBy(root, ["load_tools", '{"names":["read"]}'])
    expect(JSON.parse(loader.stdout).data.loaded).toEqual(["read"])
    // A FileSystem call imports the platform's file system (list reads the folder through it); grep, which
    // streams files, names FileSystem in its requires and gets it from the start.
    const list = await loadedBy(root, ["list", "{}"])
    expect(JSON.parse(list.stdout).status).toBe("success")
    expect(list.own).toContain("src/workspace/node-file-system.ts")
    const grep = await loadedBy(root, ["grep", '{"pattern":"one","path":"small.txt"}'])
    expect(JSON.parse(grep.stdout).data.total_matches).toBe(1)
    expect(grep.own).toContain("src/workspace/node-file-system.ts")
    // A walk lists folders with the fast reader, which then loads bun:ffi and sets its JIT hint (bun:jsc).
    const glob = await loadedBy(root, ["glob", '{"pattern":"**/*.txt"}'])
    expect(JSON.parse(glob.stdout).status).toBe("success")
    expect(glob.builtins).toEqual(expect.arrayContaining(["bun:ffi", "bun:jsc"]))
  })
})
