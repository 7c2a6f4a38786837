import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { makeConfig } from "../../src/config/config.ts"
import { readRuleMasks } from "../../src/permission/read-masks.ts"
import { buildPolicy } from "../../src/sandbox/policy.ts"
import { MAX_RULE_MASKS, tooManyMasks } from "../../src/sandbox/rule-masks.ts"
import { readSandboxSettings } from "../../src/sandbox/settings.ts"
import { hideablePlaces } from "../../src/sandbox/hideable-places.ts"
import { tempDir } from "../support/harness.ts"
import { anvilBinary, requireBwrap, runBinary } from "./binary.ts"

// What read deny rules name, confined commands do not read either, tracked or not: a tracked file becomes a device file
// (git refuses to stage it), and a hidden folder gets what git tracks in it made again (never seen as deleted).
setDefaultTimeout(60_000)

const git = (cwd: string, ...args: Array<string>) => Bun.spawnSync(["git", "-c", "user.email=a@b", "-c", "user.name=a", ...args], { cwd })

/** A repository with untracked secrets and a tracked folder. */
const repo = () => {
  const root = tempDir("anvil-masks-")
  const files: Record<string, string> = {
    "sec/a.txt": "SEC-FOLDER",
    "secret.txt": "SEC-FILE",
    ".env": "SEC-ENV",
    "app/.env": "NESTED-ENV",
    "tracked/t.txt": "TRACKED",
    "x.txt": "x",
  }
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(root, name, ".."), { recursive: true })
    writeFileSync(join(root, name), `${text}\n`)
  }
  git(root, "init", "-q")
  git(root, "add", "x.txt", "tracked")
  git(root, "commit", "-qm", "first")
  return root
}

/** The places the read rules of `rules` hide in `root`, root-relative (absolute outside it), with the rules' patterns. */
const masksOf = (root: string, rules: unknown) => {
  const masks = readRuleMasks(makeConfig({ permission: { read: rules } }, {}), root)
  if (masks === undefined) return undefined
  const { places, stopped } = masks()
  const shown = places.map((p) => [p.path.startsWith(`${root}/`) ? p.path.slice(root.length + 1) : p.path, /\{"(.*)": "/.exec(p.rule)?.[1]] as const)
  return { places: shown.sort((a, b) => a[0].localeCompare(b[0])), stopped }
}

describe("the places read deny and ask rules name or match", () => {
  test("literal paths and folders as written; patterns and bare names found at any depth, ask rules too", () => {
    const root = repo()
    for (const f of ["keys/a.pem", "deep/b/c.pem", "lib/secret/s.txt", "node_modules/pkg/n.pem", "dist/d.pem"]) {
      mkdirSync(join(root, f, ".."), { recursive: true })
      writeFileSync(join(root, f), "k\n")
    }
    const rules = { "sec/**": "deny", "./secret.txt": "deny", ".env": "deny", "*.pem": "ask", "**/secret/": "deny", "config/prod.env": "deny", "/srv/keys": "deny", "../up": "deny", "docs": "allow" }
    expect(masksOf(root, rules)).toEqual({
      places: [
        [".env", ".env"],
        ["/srv/keys", "/srv/keys"],
        ["app/.env", ".env"],
        ["config/prod.env", "config/prod.env"],
        ["deep/b/c.pem", "*.pem"],
        ["keys/a.pem", "*.pem"],
        // A folder a pattern matches is one place.
        ["lib/secret", "**/secret/"],
        ["sec", "sec/**"],
        ["secret.txt", "./secret.txt"],
      ],
      stopped: false,
    })
    // A dependency or build folder is walked only for a rule anchored into it.
    expect(masksOf(root, { "node_modules/**/*.pem": "deny" })!.places).toEqual([["node_modules/pkg/n.pem", "node_modules/**/*.pem"]])
    // read's own level names every file, which no set of places covers: it comes whole, for the sandbox to refuse.
    const whole = (rules: unknown) => readRuleMasks(makeConfig({ permission: { read: rules } }, {}), root)?.()
    expect(whole("deny")).toEqual({ places: [], stopped: false, everything: `"read": "deny" in "permission" of the settings in force` })
    expect(whole({ "*": "deny", "src/**": "allow" })?.everything).toStartWith(`"read": {"*": "deny"}`)
    // Asked about as a whole, it comes as `asked`, with the places only the deny rules name.
    expect(whole({ "*": "ask", "src/**": "allow", "secret.txt": "deny", ".env": "ask" })).toMatchObject({ asked: expect.stringMatching(/^"read": \{"\*": "ask"\}/), places: [{ path: join(root, "secret.txt") }] })
    expect(whole({ "*": "allow", "x.txt": "deny" })?.everything).toBeUndefined()
  })

  test("only places that exist and git does not need; a folder with the paths git tracks in it, by the index git uses", () => {
    const root = repo()
    const places = ["sec", "secret.txt", ".env", "tracked", "missing.txt", "tracked/t.txt", ".git", ".git/config"].map((p) => join(root, p))
    const shown = (r: string, ps: Array<string>, env = {}) =>
      hideablePlaces(r, ps, env).map((p) => [p.path, p.dir, p.tracked === undefined ? "unknown" : p.tracked.map((t) => `${t.path}:${t.kind}`)] as const)
    expect(shown(root, places)).toEqual([
      [join(root, "sec"), true, []],
      [join(root, "secret.txt"), false, []],
      [join(root, ".env"), false, []],
      [join(root, "tracked"), true, [`${join(root, "tracked", "t.txt")}:file`]],
      [join(root, "tracked", "t.txt"), false, []],
    ])
    // A project that is a folder of a larger repository: the repository's index decides.
    const outer = tempDir("anvil-outer-")
    mkdirSync(join(outer, "pkg", "keys", "deep"), { recursive: true })
    writeFileSync(join(outer, "pkg", "keys", "deep", "k.pem"), "k\n")
    writeFileSync(join(outer, "pkg", "keys", "loose.pem"), "l\n")
    writeFileSync(join(outer, "pkg", "keyset.txt"), "a name sorting between keys and keys/\n")
    git(outer, "init", "-q")
    git(outer, "add", "pkg")
    git(outer, "rm", "-q", "--cached", "pkg/keys/loose.pem")
    git(outer, "commit", "-qm", "first")
    const keys = [join(outer, "pkg", "keys"), join(outer, ".git")]
    expect(shown(join(outer, "pkg"), keys)).toEqual([[join(outer, "pkg", "keys"), true, [`${join(outer, "pkg", "keys", "deep", "k.pem")}:file`]]])
    // The index is read again when git writes it; a submodule in a hidden folder gets a folder, not a file.
    git(outer, "add", "pkg/keys/loose.pem")
    const oid = git(outer, "rev-parse", "HEAD").stdout.toString().trim()
    git(outer, "update-index", "--add", "--cacheinfo", `160000,${oid},pkg/keys/sub`)
    const now = [`${join(outer, "pkg", "keys", "deep", "k.pem")}:file`, `${join(outer, "pkg", "keys", "loose.pem")}:file`, `${join(outer, "pkg", "keys", "sub")}:dir`]
    expect(shown(join(outer, "pkg"), keys)).toEqual([[join(outer, "pkg", "keys"), true, now]])
    // Version 4 (names shortened against the one before) reads the same; a split index cannot be read here.
    git(outer, "update-index", "--index-version", "4")
    expect(shown(join(outer, "pkg"), keys)).toEqual([[join(outer, "pkg", "keys"), true, now]])
    // GIT_INDEX_FILE names the index git uses, relative to the checkout's top as the git tools take it.
    const alt = { GIT_INDEX_FILE: ".git/alt-index" }
    Bun.spawnSync(["git", "add", "pkg/keys/loose.pem"], { cwd: outer, env: { ...process.env, GIT_INDEX_FILE: join(outer, ".git", "alt-index") } })
    expect(shown(join(outer, "pkg"), keys, alt)).toEqual([[join(outer, "pkg", "keys"), true, [`${join(outer, "pkg", "keys", "loose.pem")}:file`]]])
    expect(shown(join(outer, "pkg"), keys, { GIT_INDEX_FILE: join(outer, ".git", "none-yet") })).toEqual([[join(outer, "pkg", "keys"), true, []]])
    git(outer, "update-index", "--index-version", "2")
    git(outer, "update-index", "--split-index")
    expect(shown(join(outer, "pkg"), keys)).toEqual([[join(outer, "pkg", "keys"), true, "unknown"]])
    // Outside a repository nothing is tracked.
    const plain = tempDir("anvil-plain-")
    writeFileSync(join(plain, "k.txt"), "k\n")
    expect(shown(plain, [join(plain, "k.txt")])).toEqual([[join(plain, "k.txt"), false, []]])
    // A link in the project that leads out of it names the link only: its target stays visible (a link to /usr
    // hidden would stop every command); a link within the project hides where it leads, an absolute rule its place.
    const elsewhere = tempDir("anvil-elsewhere-")
    symlinkSync(elsewhere, join(plain, "out"))
    symlinkSync(join(plain, "k.txt"), join(plain, "in.txt"))
    expect(hideablePlaces(plain, [join(plain, "out"), join(plain, "in.txt"), elsewhere])).toEqual([
      { path: join(plain, "k.txt"), given: join(plain, "in.txt"), dir: false, tracked: [] },
      { path: elsewhere, given: elsewhere, dir: true, tracked: [] },
    ])
  })

  test("a rule matching more places than a command should wait to mount is cut short, and says so", () => {
    const root = tempDir("anvil-many-")
    for (let d = 0; d < 3; d++) {
      mkdirSync(join(root, `d${d}`))
      for (let f = 0; f < 100; f++) writeFileSync(join(root, `d${d}`, `f${f}.json`), "{}\n")
    }
    const readMasks = readRuleMasks(makeConfig({ permission: { read: { "*.json": "deny" } } }, {}), root)!
    const policy = buildPolicy({ ...readSandboxSettings({}, undefined), readMasks }, { root, home: undefined, configHome: undefined, sessionTmp: tempDir("anvil-tmp-") })!
    expect(readMasks().places.length).toBe(300)
    expect(policy.ruleMasks.length).toBe(MAX_RULE_MASKS)
    expect(policy.hiddenFiles.length).toBe(MAX_RULE_MASKS)
    expect(policy.masksRefused).toEqual(tooManyMasks)
    // Each tracked file made again inside a hidden folder is a mount too: a folder tracking more than fit is refused.
    const repoRoot = repo()
    mkdirSync(join(repoRoot, "keys"))
    for (let f = 0; f < MAX_RULE_MASKS; f++) writeFileSync(join(repoRoot, "keys", `k${f}.txt`), "k\n")
    git(repoRoot, "add", "keys")
    const policyOf = (rules: unknown) =>
      buildPolicy(
        { ...readSandboxSettings({}, undefined), readMasks: readRuleMasks(makeConfig({ permission: { read: rules } }, {}), repoRoot)! },
        { root: repoRoot, home: undefined, configHome: undefined, sessionTmp: tempDir("anvil-tmp-") },
      )!
    expect(policyOf({ "keys/": "deny" }).masksRefused).toEqual(tooManyMasks)
    const fits = policyOf({ "tracked/": "deny" })
    expect(fits.masksRefused).toBeUndefined()
    expect([fits.hiddenDirs, fits.hiddenTracked]).toEqual([[join(repoRoot, "tracked")], [{ path: join(repoRoot, "tracked", "t.txt"), kind: "file" }]])
  })
})

describe("through the binary", () => {
  let binary = ""
  beforeAll(async () => {
    requireBwrap()
    binary = await anvilBinary()
  }, 120_000)

  test("bash cannot read what read denies or asks about, literal or by pattern, tracked or not; .git stays; a failure on a hidden place names the rule", async () => {
    const root = repo()
    for (const f of ["keys/k.pem", "node_modules/pkg/index.js"]) {
      mkdirSync(join(root, f, ".."), { recursive: true })
      writeFileSync(join(root, f), f.endsWith(".pem") ? "SEC-PEM\n" : "module.exports = 1\n")
    }
    const home = tempDir("anvil-home-")
    mkdirSync(join(home, ".config", "anvil"), { recursive: true })
    const settings = (extra: object) =>
      writeFileSync(
        join(home, ".config", "anvil", "anvil.json"),
        JSON.stringify({ permission: { read: { "sec/**": "deny", "./secret.txt": "deny", ".env": "deny", "*.pem": "ask", "tracked/": "deny", ".git/": "deny", "node_modules/": "deny" } }, ...extra }),
      )
    settings({})
    const command =
      "cat sec/a.txt secret.txt .env app/.env keys/k.pem tracked/t.txt x.txt; git status --short; git add -A 2>&1 || echo ADD-REFUSED; " +
      "node -e 'require(\"pkg\")' 2>&1 || echo NODE-FAILED; echo x > sec/new"
    const ran = await runBinary(binary, ["tool", "bash", JSON.stringify({ command })], root, { HOME: home })
    const data = JSON.parse(ran.out).data
    expect(`${data.stdout}${data.stderr}`).not.toContain("SEC-")
    expect(data.stdout).not.toContain("NESTED-ENV")
    // A tracked file is hidden too (the rule "tracked/" covers the tracked folder).
    expect(data.stdout).not.toContain("TRACKED")
    expect(data.stdout).toMatch(/^x$/m)
    // git still works (.git is never hidden) and sees the tracked file changed, never deleted: it refuses to stage it.
    expect(data.stdout).toContain("?? keys/")
    expect(data.stdout).toMatch(/^ M tracked\/t\.txt$/m)
    expect(data.stdout).not.toMatch(/^ ?D /m)
    expect(data.stdout).toContain("tracked/t.txt: can only add regular files")
    expect(data.stdout).toContain("ADD-REFUSED")
    expect(git(root, "status", "--porcelain", "--", "tracked").stdout.toString()).toBe("")
    // The failures on hidden places name the rule that hides each.
    const refused = data.sandbox.refused as Array<{ kind: string; subject: string; message: string }>
    const about = (subject: string) => refused.find((r) => r.kind === "masked" && r.subject === subject)?.message
    // Each says what a command finds there, the rule and its level, and the next step for what failed.
    expect(about("sec")).toContain(`the read deny rule "read": {"sec/**": "deny"} in "permission" of ${join(home, ".config", "anvil", "anvil.json")}`)
    expect(about("sec")).toContain("to a command it is an empty read-only folder")
    expect(about("sec")).toContain(`sandbox.allow_read: ["sec/"]`)
    expect(about("app/.env")).toContain(`the read deny rule "read": {".env": "deny"}`)
    expect(about("app/.env")).toContain("to a command it is a device file that cannot be opened: reading or writing it fails with Permission denied")
    expect(about("app/.env")).not.toContain("empty file")
    expect(about("keys/k.pem")).toContain(`the read ask rule "read": {"*.pem": "ask"}`)
    expect(about("keys/k.pem")).toContain("a command cannot stop to ask, so an ask rule hides as a deny rule does")
    // git add -A stopped at the hidden tracked file: the way on is naming what to stage, not a sandbox setting.
    expect(about("tracked")).toContain(`the read deny rule "read": {"tracked/": "deny"}`)
    expect(about("tracked")).toContain("Stage by name what you mean to")
    expect(about("tracked")).not.toContain("sandbox.allow_read")
    if (Bun.which("node")) {
      expect(data.stdout).toContain("NODE-FAILED")
      expect(about("node_modules")).toContain(`sandbox.allow_read: ["node_modules/"]`)
    }
    const report = await runBinary(binary, ["sandbox"], root, { HOME: home })
    expect(report.out).toContain(`Hidden by a read rule: keys/k.pem ("read": {"*.pem": "ask"}`)
    expect(report.out).toContain(`Hidden by a read rule: tracked ("read": {"tracked/": "deny"}`)
    expect(report.out).not.toContain(join(root, ".git"))
    // sandbox.allow_read gives a folder back to commands; read's rule still holds for anvil's tools.
    settings({ sandbox: { allow_read: ["node_modules/"] } })
    const back = await runBinary(binary, ["tool", "bash", JSON.stringify({ command: "cat node_modules/pkg/index.js; cat keys/k.pem" })], root, { HOME: home })
    expect(JSON.parse(back.out).data.stdout).toContain("module.exports = 1")
    expect(JSON.parse(back.out).data.stdout).not.toContain("SEC-PEM")
    const read = await runBinary(binary, ["tool", "read", JSON.stringify({ path: "node_modules/pkg/index.js" })], root, { HOME: home })
    expect(JSON.parse(read.out).error.code).toBe("PERMISSION_DENIED")
  })

  test("read refused for every file: no confined command runs, and the answer says why and what to do (asked about: read-ask-everything.test.ts)", async () => {
    const root = repo()
    const home = tempDir("anvil-home-")
    mkdirSync(join(home, ".config", "anvil"), { recursive: true })
    const file = join(home, ".config", "anvil", "anvil.json")
    for (const read of ["deny", { "*": "deny", "src/**": "allow" }]) {
      writeFileSync(file, JSON.stringify({ permission: { read } }))
      const ran = JSON.parse((await runBinary(binary, ["tool", "bash", JSON.stringify({ command: "cat x.txt" })], root, { HOME: home })).out)
      expect(ran.status).toBe("error")
      expect(ran.error.code).toBe("PERMISSION_DENIED")
      expect(ran.error.message).toContain(`The command was not run: the rule ${read === "deny" ? `"read": "deny"` : `"read": {"*": "deny"}`} in "permission" of ${file}`)
      expect(ran.text).toContain("run this one command with sandbox: false")
      expect(JSON.stringify(ran)).not.toContain('"stdout"')
      const report = await runBinary(binary, ["sandbox"], root, { HOME: home })
      expect(report.out).toContain("confined commands are refused")
    }
    // Unconfined (--sandbox off) the read rules never reach bash, patterns or not.
    const off = JSON.parse((await runBinary(binary, ["tool", "bash", JSON.stringify({ command: "cat x.txt" }), "--sandbox", "off"], root, { HOME: home })).out)
    expect(off.data.stdout).toBe("x")
  })

  test("a command that makes more matching files than can be hidden (decoys) gets no command run after it, not the secret", async () => {
    const root = repo()
    mkdirSync(join(root, "keys"))
    writeFileSync(join(root, "keys", "prod.pem"), "SEC-PROD\n")
    const home = tempDir("anvil-home-")
    mkdirSync(join(home, ".config", "anvil"), { recursive: true })
    writeFileSync(join(home, ".config", "anvil", "anvil.json"), JSON.stringify({ permission: { read: { "*.pem": "deny" } } }))
    const bash = async (command: string) => JSON.parse((await runBinary(binary, ["tool", "bash", JSON.stringify({ command })], root, { HOME: home })).out)
    const first = await bash(`cat keys/prod.pem; for i in $(seq ${MAX_RULE_MASKS + 100}); do : > a$i.pem; done`)
    expect(`${first.data.stdout}${first.data.stderr}`).not.toContain("SEC-PROD")
    const after = await bash("cat keys/prod.pem")
    expect(after.status).toBe("error")
    expect(after.error.code).toBe("PERMISSION_DENIED")
    expect(after.error.message).toContain("The command was not run")
    expect(after.text).toContain("sandbox.allow_read")
    expect(JSON.stringify(after)).not.toContain("SEC-PROD")
    const report = await runBinary(binary, ["sandbox"], root, { HOME: home })
    expect(report.out).toContain("confined commands are refused")
  })
})
