import { describe, expect, test } from "bun:test"
import { Effect, Layer } from "effect"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import { join } from "node:path"
import { comparePaths } from "../../src/search/glob-pattern.ts"
import { BulkFs } from "../../src/workspace/bulk-fs.ts"
import { DEFAULT_IGNORED_DIRS } from "../../src/workspace/ignore-rules.ts"
import { listFastKept } from "../../src/workspace/fast-listing.ts"
import { NameFilter } from "../../src/workspace/name-filter.ts"
import { walk, type WalkSummary } from "../../src/workspace/walk.ts"
import { project, type TreeSpec } from "../support/harness.ts"

const platform = Layer.mergeAll(NodeFileSystem.layer, NodePath.layer)

/** Walks everything under `root` with the given BulkFs layer; returns the reported paths and the summary. */
const walkAll = (
  root: string,
  bulk: Layer.Layer<BulkFs, never, never>,
  options: { maxEntries?: number; includeIgnored?: boolean; only?: string } = {},
) => {
  const found: Array<string> = []
  return Effect.runPromise(
    walk<null>({
      root,
      start: root,
      initial: null,
      includeIgnored: options.includeIgnored ?? false,
      ignoredDirs: new Set(DEFAULT_IGNORED_DIRS),
      maxEntries: options.maxEntries ?? 1_000_000,
      deadline: Number.MAX_SAFE_INTEGER,
      // `only`: files ending so; the same test given as a byte filter, which the kernel reader applies while listing.
      keep: options.only === undefined ? undefined : new NameFilter([{ prefix: "", suffix: options.only, exact: false }]),
      visitor: {
        dir: (s) => ({ descend: s, emit: false, explicit: false }),
        file: (_s, name) => (options.only === undefined || name.endsWith(options.only) ? { explicit: false } : undefined),
      },
      onEntry: (rel) => found.push(rel),
    }).pipe(Effect.provide(Layer.merge(bulk, platform))),
  ).then((summary: WalkSummary) => ({ found, summary }))
}

const TREE: TreeSpec = {
  ".gitignore": "*.log\nout/\n",
  "a.ts": "",
  "b.log": "",
  "out/x.ts": "",
  "src/z.ts": "",
  "src/a-b.ts": "",
  "src/a/b.ts": "",
  "src/.hidden": "",
  "node_modules/m/index.js": "",
  "link": { link: "src" },
}

describe("walk", () => {
  test("the live BulkFs and one built on the Effect FileSystem report the same, in tree order", async () => {
    const root = project(TREE)
    const live = await walkAll(root, BulkFs.layer)
    const viaFs = await walkAll(root, BulkFs.fromFileSystem.pipe(Layer.provide(NodeFileSystem.layer)))
    expect(live.found).toEqual([".gitignore", "a.ts", "anvil.json", "link", "src/.hidden", "src/a/b.ts", "src/a-b.ts", "src/z.ts"])
    expect(viaFs.found).toEqual(live.found)
    expect(live.found).toEqual([...live.found].sort(comparePaths))
    expect(viaFs.summary.visited).toBe(live.summary.visited)
  })

  test("include_ignored walks everything (ignore files and the default list off)", async () => {
    const root = project(TREE)
    const { found } = await walkAll(root, BulkFs.layer, { includeIgnored: true })
    expect(found).toContain("b.log")
    expect(found).toContain("out/x.ts")
    expect(found).toContain("node_modules/m/index.js")
  })

  test("the entries breaker stops at the same entry every time", async () => {
    const tree: TreeSpec = {}
    for (let d = 0; d < 10; d++) for (let f = 0; f < 10; f++) tree[`d${d}/f${f}.txt`] = ""
    const root = project(tree)
    const one = await walkAll(root, BulkFs.layer, { maxEntries: 37 })
    const two = await walkAll(root, BulkFs.layer, { maxEntries: 37 })
    expect(one.summary.stoppedBy).toBe("max_entries")
    expect(one.summary.visited).toBe(37)
    expect(two.found).toEqual(one.found)
    // Breadth first: the top level (anvil.json and ten folders) is looked at before any file below,
    // then 26 files: 27 reported.
    expect(one.found.length).toBe(27)
    expect(one.found.slice(0, 2)).toEqual(["anvil.json", "d0/f0.txt"])
  })

  test("names left out of a listing by the byte filter: the same entries, counts and breaker stops as when every name is read", async () => {
    const tree: TreeSpec = { ".gitignore": "skip*.py\n" }
    for (let d = 0; d < 6; d++) for (let f = 0; f < 12; f++) tree[`d${d}/${f % 3 === 0 ? "skip" : "f"}${f}.${f % 2 === 0 ? "py" : "txt"}`] = ""
    const root = project(tree)
    const portable = BulkFs.fromFileSystem.pipe(Layer.provide(NodeFileSystem.layer))
    const full = await walkAll(root, portable, { only: ".py" })
    expect(full.found.length).toBe(24)
    if (process.platform === "linux") {
      // The kernel reader does leave the other names out (folders always stay).
      const listing = listFastKept(join(root, "d0"), new NameFilter([{ prefix: "", suffix: ".py", exact: false }]))
      expect(listing).toMatchObject({ total: 12 })
      expect(typeof listing === "object" && listing.entries.map((e) => e.name).sort()).toEqual(["f10.py", "f2.py", "f4.py", "f8.py", "skip0.py", "skip6.py"])
    }
    for (let max = 1; max <= 82; max++) {
      const filtered = await walkAll(root, BulkFs.layer, { only: ".py", maxEntries: max })
      const every = await walkAll(root, portable, { only: ".py", maxEntries: max })
      expect(filtered.found).toEqual(every.found)
      expect(filtered.summary).toEqual(every.summary)
    }
  })

  test("a folder that cannot be listed is reported as unreadable; the rest is walked", async () => {
    const root = project({ "ok/a.txt": "", "locked/b.txt": "", "c.txt": "" })
    const locked = join(root, "locked")
    const failing = Layer.effect(
      BulkFs,
      Effect.map(BulkFs, (live) => ({
        ...live,
        listDirectories: (dirs: ReadonlyArray<string>) =>
          Effect.map(live.listDirectories(dirs), (listed) => listed.map((l, i) => (dirs[i] === locked ? undefined : l))),
      })),
    ).pipe(Layer.provide(BulkFs.layer))
    const { found, summary } = await walkAll(root, failing)
    expect(found).toEqual(["anvil.json", "c.txt", "ok/a.txt"])
    expect(summary.unreadable).toEqual(["locked"])
  })
})
