import { describe, expect, test } from "bun:test"
import { mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { bwrapArgs } from "../../src/sandbox/bwrap-args.ts"
import { buildPolicy, classifyPath } from "../../src/sandbox/policy.ts"
import type { SandboxSettings } from "../../src/sandbox/settings.ts"
import { tempDir } from "../support/harness.ts"

// How the command sandbox keeps git from running code the command planted: which paths it protects,
// pins or removes afterwards. The binary test (sandbox.test.ts) shows the same through bubblewrap.
const settings: SandboxSettings = { mode: "workspace-write", require: false, writable: [], protected: [], denyRead: [], allowRead: [], allowEnv: [], denyEnv: [], maxProcesses: 4096, network: { kind: "off" }, autoAllow: true }

const repo = () => {
  const root = realpathSync(tempDir("anvil-gitpol-"))
  Bun.spawnSync(["git", "init", "-q", root])
  const tmp = realpathSync(tempDir("anvil-gitpol-tmp-"))
  return { root, facts: { root, home: undefined, configHome: undefined, sessionTmp: tmp } }
}

describe("the sandbox policy for git folders", () => {
  test(".git is pinned (bound onto itself before its hooks and config) so it cannot be moved aside and remade", () => {
    const { root, facts } = repo()
    const p = buildPolicy(settings, facts)!
    expect(p.pinned).toContain(join(root, ".git"))
    expect(p.pinned).not.toContain(root)
    const args = bwrapArgs({ policy: p, shareNet: false, root: false, cwd: root, file: "/bin/true", args: [] })
    const pinAt = args.findIndex((a, i) => a === join(root, ".git") && args[i - 1] === "--bind")
    const hooksAt = args.indexOf(join(root, ".git", "hooks"))
    expect(pinAt).toBeGreaterThan(args.indexOf(root))
    expect(pinAt).toBeLessThan(hooksAt)
  })

  test("a missing .git/commondir or config.worktree must stay absent (removed after the command); present ones are read-only", () => {
    const { root, facts } = repo()
    let p = buildPolicy(settings, facts)!
    expect(p.mustStayAbsent).toEqual([join(root, ".git", "commondir"), join(root, ".git", "config.worktree")])
    expect(classifyPath(p, join(root, ".git", "commondir"))).toBe("protected")
    writeFileSync(join(root, ".git", "config.worktree"), "[core]\n")
    p = buildPolicy(settings, facts)!
    expect(p.mustStayAbsent).toEqual([join(root, ".git", "commondir")])
    expect(p.readOnly).toContain(join(root, ".git", "config.worktree"))
  })

  test("core.hooksPath inside the project (husky) is protected, and its folders pinned; a missing one gets a stand-in", () => {
    const { root, facts } = repo()
    mkdirSync(join(root, ".husky", "_"), { recursive: true })
    Bun.spawnSync(["git", "-C", root, "config", "core.hooksPath", ".husky/_"])
    let p = buildPolicy(settings, facts)!
    expect(p.readOnly).toContain(join(root, ".husky", "_"))
    expect(p.pinned).toContain(join(root, ".husky"))
    Bun.spawnSync(["git", "-C", root, "config", "core.hooksPath", "githooks"])
    p = buildPolicy(settings, facts)!
    expect(p.standIns).toContainEqual({ path: join(root, "githooks"), kind: "dir" })
  })

  test("config files .git/config includes (include.path, includeIf.*.path, followed from file to file) are read-only where they lie in the project; the hooksPath one sets is protected too", () => {
    const { root, facts } = repo()
    mkdirSync(join(root, "conf"), { recursive: true })
    writeFileSync(join(root, ".git", "config"), `${readFileSync(join(root, ".git", "config"), "utf8")}[include]\n\tpath = ../.gitconfig-project\n[includeIf "gitdir:/"]\n\tpath = ../conf/a\n`)
    writeFileSync(join(root, ".gitconfig-project"), "[core]\n\thooksPath = githooks\n")
    writeFileSync(join(root, "conf", "a"), "[include]\n\tpath = b\n")
    writeFileSync(join(root, "conf", "b"), "[include]\n\tpath = a\n")
    const p = buildPolicy(settings, facts)!
    expect(p.readOnly).toEqual(expect.arrayContaining([join(root, ".gitconfig-project"), join(root, "conf", "a"), join(root, "conf", "b")]))
    expect(classifyPath(p, join(root, ".gitconfig-project"))).toBe("protected")
    expect(p.standIns).toContainEqual({ path: join(root, "githooks"), kind: "dir" })
    expect(p.pinned).toContain(join(root, "conf"))
  })

  test("hook managers' scripts and settings (husky's .husky/, pre-commit, lefthook), .envrc and .vscode/ are read-only; a tool's group is held once one of it is present, .vscode/ always", () => {
    const { root, facts } = repo()
    mkdirSync(join(root, ".husky", "_"), { recursive: true })
    writeFileSync(join(root, ".husky", "pre-commit"), "npm test\n")
    writeFileSync(join(root, ".pre-commit-config.yaml"), "repos: []\n")
    writeFileSync(join(root, ".envrc"), "use flake\n")
    const p = buildPolicy(settings, facts)!
    expect(p.readOnly).toEqual(expect.arrayContaining([join(root, ".husky"), join(root, ".pre-commit-config.yaml"), join(root, ".envrc")]))
    expect(classifyPath(p, join(root, ".husky", "pre-push"))).toBe("protected")
    expect(p.standIns.map((s) => s.path)).not.toContain(join(root, "lefthook.yml"))
    // .vscode/ is held even when missing (an empty folder, which git does not see).
    expect(p.standIns).toContainEqual({ path: join(root, ".vscode"), kind: "dir" })
    // One lefthook file present: the others cannot be added beside it.
    writeFileSync(join(root, "lefthook.yml"), "pre-commit: {}\n")
    const q = buildPolicy(settings, facts)!
    expect(q.readOnly).toContain(join(root, "lefthook.yml"))
    expect(q.standIns).toContainEqual({ path: join(root, "lefthook-local.yml"), kind: "file" })
    expect(q.gitExclude?.text).toContain("/lefthook-local.yml\n")
  })

  test("the stand-in files are added to the repository's info/exclude as it is laid over inside (each name matching only itself), after a bind of the pinned .git; the real file stays", () => {
    const { root, facts } = repo()
    const exclude = join(root, ".git", "info", "exclude")
    const before = readFileSync(exclude, "utf8")
    const p = buildPolicy({ ...settings, protected: ["deploy [x]*.sh", "tools/"] }, facts)!
    expect(p.gitExclude?.path).toBe(exclude)
    expect(p.gitExclude?.text).toBe(`${before}# anvil: the sandbox's stand-ins for missing protected files (gone when the command ends)\n/anvil.json\n/.mcp.json\n/deploy \\[x\\]\\*.sh\n`)
    expect(readFileSync(exclude, "utf8")).toBe(before)
    const args = bwrapArgs({ policy: p, gitExcludeFile: "/tmp/x-exclude", shareNet: false, root: false, cwd: root, file: "/bin/true", args: [] })
    const at = args.indexOf(exclude)
    expect(args.slice(at - 2, at + 1)).toEqual(["--ro-bind", "/tmp/x-exclude", exclude])
    expect(at).toBeGreaterThan(args.indexOf(join(root, ".git")))
    writeFileSync(join(root, "anvil.json"), "{}")
    writeFileSync(join(root, ".mcp.json"), "{}")
    expect(buildPolicy(settings, facts)!.gitExclude).toBeUndefined()
  })

  test("a checkout whose .git is a file: that file and the git folder's commondir are read-only; submodules' git folders too", () => {
    const { root, facts } = repo()
    const gitDir = join(root, ".git", "worktrees", "w")
    mkdirSync(gitDir, { recursive: true })
    writeFileSync(join(gitDir, "commondir"), "../..\n")
    const checkout = realpathSync(tempDir("anvil-gitpol-wt-"))
    writeFileSync(join(checkout, ".git"), `gitdir: ${gitDir}\n`)
    const p = buildPolicy(settings, { ...facts, root: checkout })!
    expect(p.readOnly).toContain(join(checkout, ".git"))
    expect(p.readOnly).toContain(join(gitDir, "commondir"))
    expect(p.readOnly).toContain(join(root, ".git", "hooks"))
    mkdirSync(join(root, ".git", "modules", "sub"), { recursive: true })
    expect(buildPolicy(settings, facts)!.readOnly).toContain(join(root, ".git", "modules"))
  })
})
