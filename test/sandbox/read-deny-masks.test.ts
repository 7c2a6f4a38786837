import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { readDenyMasks } from "../../src/permission/read-masks.ts"
import { untrackedPlaces } from "../../src/sandbox/untracked-places.ts"
import { tempDir } from "../support/harness.ts"
import { anvilBinary, requireBwrap, runBinary } from "./binary.ts"

// What read deny rules name, confined commands do not read either: the places the rules name literally, where git
// tracks nothing (an emptied tracked folder would be committed as deleted by a command's git add -A).
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

describe("the places read deny rules name", () => {
  test("literal paths and folders, a bare name at the root only; patterns name no place", () => {
    expect(
      readDenyMasks({ read: { "sec/**": "deny", "./secret.txt": "deny", ".env": "deny", "keys/": "deny", "config/prod.env": "deny", "*.pem": "deny", "a/**/b": "deny", "docs": "ask", "/srv/keys": "deny", "../up": "deny" } }),
    ).toEqual(["sec/", "secret.txt", ".env", "keys/", "config/prod.env", "/srv/keys"])
    expect(readDenyMasks({ read: "deny" })).toEqual([])
    expect(readDenyMasks({})).toEqual([])
  })

  test("only places that exist and that git tracks nothing in", () => {
    const root = repo()
    const places = ["sec", "secret.txt", ".env", "tracked", "missing.txt", "tracked/t.txt"].map((p) => join(root, p))
    expect(untrackedPlaces(root, places)).toEqual(["sec", "secret.txt", ".env"].map((p) => join(root, p)))
    // A project that is a folder of a larger repository: the repository's index decides.
    const outer = tempDir("anvil-outer-")
    mkdirSync(join(outer, "pkg", "keys"), { recursive: true })
    writeFileSync(join(outer, "pkg", "keys", "k.pem"), "k\n")
    writeFileSync(join(outer, "pkg", "loose.txt"), "l\n")
    git(outer, "init", "-q")
    git(outer, "add", "pkg/keys")
    git(outer, "commit", "-qm", "first")
    expect(untrackedPlaces(join(outer, "pkg"), [join(outer, "pkg", "keys"), join(outer, "pkg", "loose.txt")])).toEqual([join(outer, "pkg", "loose.txt")])
    // Outside a repository nothing is tracked.
    const plain = tempDir("anvil-plain-")
    writeFileSync(join(plain, "k.txt"), "k\n")
    expect(untrackedPlaces(plain, [join(plain, "k.txt")])).toEqual([join(plain, "k.txt")])
    // A link in the project that leads out of it names the link only: its target stays visible (a link to /usr
    // hidden would stop every command); a link within the project hides where it leads, an absolute rule its place.
    const elsewhere = tempDir("anvil-elsewhere-")
    symlinkSync(elsewhere, join(plain, "out"))
    symlinkSync(join(plain, "k.txt"), join(plain, "in.txt"))
    expect(untrackedPlaces(plain, [join(plain, "out"), join(plain, "in.txt"), elsewhere])).toEqual([join(plain, "k.txt"), elsewhere])
  })
})

describe("through the binary", () => {
  let binary = ""
  beforeAll(async () => {
    requireBwrap()
    binary = await anvilBinary()
  }, 120_000)

  test("bash cannot read what read may not open and the sandbox can hide; a tracked folder and a nested name stay", async () => {
    const root = repo()
    const home = tempDir("anvil-home-")
    mkdirSync(join(home, ".config", "anvil"), { recursive: true })
    const rules = { "sec/**": "deny", "./secret.txt": "deny", ".env": "deny", "tracked/": "deny" }
    writeFileSync(join(home, ".config", "anvil", "anvil.json"), JSON.stringify({ permission: { read: rules } }))
    const ran = await runBinary(binary, ["tool", "bash", JSON.stringify({ command: "cat sec/a.txt secret.txt .env app/.env tracked/t.txt; git status --short" })], root, { HOME: home })
    const data = JSON.parse(ran.out).data
    expect(data.stdout).not.toContain("SEC-")
    expect(data.stdout).toContain("NESTED-ENV")
    expect(data.stdout).toContain("TRACKED")
    // git sees no tracked file gone.
    expect(data.stdout).not.toMatch(/^ ?D /m)
    const report = await runBinary(binary, ["sandbox"], root, { HOME: home })
    expect(report.out).toContain(join(root, "sec"))
    expect(report.out).not.toContain(join(root, "tracked"))
  })
})
