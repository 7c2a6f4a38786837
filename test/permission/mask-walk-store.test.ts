import { describe, expect, test } from "bun:test"
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { makeConfig } from "../../src/config/config.ts"
import { maskWalker } from "../../src/permission/mask-walk.ts"
import { maskWalkStore } from "../../src/permission/mask-walk-store.ts"
import { readRuleMasks } from "../../src/permission/read-masks.ts"
import type { PatternRule } from "../../src/permission/rules.ts"
import { buildPolicy } from "../../src/sandbox/policy.ts"
import { readSandboxSettings } from "../../src/sandbox/settings.ts"
import { tempDir } from "../support/harness.ts"

// The read-rule walk kept between anvil processes (mask-walk-store.ts): what a later process takes from it, and
// what it must never take (a folder changed since, too recently to trust, other rules, a store commands can write).

const tree = (files: ReadonlyArray<string>) => {
  const root = tempDir("anvil-mask-store-")
  for (const f of files) {
    mkdirSync(join(root, f, ".."), { recursive: true })
    writeFileSync(join(root, f), "x\n")
  }
  return root
}

const PEM: ReadonlyArray<PatternRule> = [{ pattern: "*.pem", level: "deny" }]
/** A walk as a new anvil process makes it: a fresh walker over the store in `file`. */
const walkWith = (root: string, file: string, rules = PEM, racyMs = 0) =>
  maskWalker(root, rules, racyMs)(maskWalkStore(file, root, rules)).found.map((m) => m.rel).sort()

/** Adds a match the folder `dir` does not hold to the store, as if an earlier walk had found it there. */
const plant = (file: string, dir: string, name: string) => {
  const data = JSON.parse(readFileSync(file, "utf8"))
  const line = data.folders.find((l: [string]) => l[0] === dir)
  line[4].push([name, 0])
  writeFileSync(file, JSON.stringify(data))
}

describe("the read-rule walk kept for the next process", () => {
  test("an unchanged folder's visit is taken from the store; a folder changed since is listed again, a new one too", () => {
    const root = tree(["a/x.txt", "b/k.pem", "c/d/y.txt"])
    const file = join(tempDir("anvil-state-"), "read-masks.json")
    expect(walkWith(root, file)).toEqual(["b/k.pem"])
    // The next process trusts the unchanged folder a without listing it: a match planted there is reported.
    plant(file, "a", "planted.pem")
    expect(walkWith(root, file)).toEqual(["a/planted.pem", "b/k.pem"])
    // A secret made since, in a folder seen before and in a new one deeper down: both found, the planted one gone.
    writeFileSync(join(root, "a", "new.pem"), "x\n")
    mkdirSync(join(root, "c", "d", "e"))
    writeFileSync(join(root, "c", "d", "e", "z.pem"), "x\n")
    expect(walkWith(root, file)).toEqual(["a/new.pem", "b/k.pem", "c/d/e/z.pem"])
  })

  test("a folder changed too recently is not kept; other rules, another project or a damaged file count for nothing", () => {
    const root = tree(["a/x.txt", "b/k.pem"])
    const file = join(tempDir("anvil-state-"), "read-masks.json")
    // Just made: no folder is old enough to trust (2.5 s, the margin anvil uses), so none is kept.
    expect(walkWith(root, file, PEM, 2500)).toEqual(["b/k.pem"])
    expect(existsSync(file)).toBe(false)
    // With no margin a folder is kept once its ctime is before the walk's clock: on a fast machine the tree's ctime can
    // equal that millisecond (the kernel's coarse clock may even lead it), so let the clock pass it first.
    Bun.sleepSync(20)
    expect(walkWith(root, file)).toEqual(["b/k.pem"])
    plant(file, "a", "planted.pem")
    expect(walkWith(root, file, [...PEM, { pattern: "*.key", level: "ask" }])).toEqual(["b/k.pem"])
    plant(file, "a", "planted.pem")
    const other = tree(["a/x.txt", "b/k.pem"])
    expect(walkWith(other, file)).toEqual(["b/k.pem"])
    writeFileSync(file, '{"version":1,"key":')
    expect(walkWith(root, file)).toEqual(["b/k.pem"])
  })

  test("the sandbox keeps it in the state folder only where its commands cannot write", async () => {
    const root = tree(["b/k.pem"])
    // Older than the margin, so that the walk has folders to keep.
    await Bun.sleep(2600)
    const readMasks = readRuleMasks(makeConfig({ permission: { read: { "*.pem": "deny" } } }, {}), root)!
    const facts = (stateDir: string) => ({ root, home: undefined, configHome: undefined, sessionTmp: tempDir("anvil-tmp-"), stateDir })
    const settings = { ...readSandboxSettings({}, undefined), readMasks }
    const outside = tempDir("anvil-state-")
    expect(buildPolicy(settings, facts(outside))!.ruleMasks.map((m) => m.path)).toEqual([join(root, "b", "k.pem")])
    expect(existsSync(join(outside, "read-masks.json"))).toBe(true)
    // The state folder inside the project (its cache under a project at HOME): commands could write it.
    const inside = join(root, "state")
    mkdirSync(inside)
    expect(buildPolicy(settings, facts(inside))!.ruleMasks.map((m) => m.path)).toEqual([join(root, "b", "k.pem")])
    expect(existsSync(join(inside, "read-masks.json"))).toBe(false)
    // Read-only commands cannot write the project, but anvil's write and edit tools can: a planted store would
    // hide a file from the next command, so it is never kept inside the project whatever the mode.
    expect(buildPolicy({ ...settings, mode: "read-only" }, facts(inside))!.ruleMasks.length).toBe(1)
    expect(existsSync(join(inside, "read-masks.json"))).toBe(false)
    // A store planted there (every visit found nothing) is not read either.
    const forged = JSON.parse(readFileSync(join(outside, "read-masks.json"), "utf8"))
    for (const line of forged.folders) line[4] = []
    writeFileSync(join(inside, "read-masks.json"), JSON.stringify(forged))
    expect(buildPolicy({ ...settings, mode: "read-only" }, facts(inside))!.ruleMasks.map((m) => m.path)).toEqual([join(root, "b", "k.pem")])
  })
})
