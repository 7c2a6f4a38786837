import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { BROKEN_LINK, listFolder, OUTSIDE_SANDBOX, type ListRequest } from "../../src/files/list-folder.ts"
import { project, session } from "../support/harness.ts"

const ask = (path: string, more: Partial<ListRequest> = {}): ListRequest => ({
  path,
  offset: 0,
  limit: 100,
  includeHidden: false,
  includeIgnored: false,
  ignore: [],
  sortBy: "name",
  hiddenNames: new Set(["node_modules"]),
  ...more,
})

describe("listFolder (files domain)", () => {
  const root = project({
    ".gitignore": "*.log\n",
    "b.txt": "bb",
    "a.txt": "a",
    "big.txt": "x".repeat(100),
    "debug.log": "log",
    "zdir/inner.txt": "i",
    "adir/x": "x",
    "node_modules/m/index.js": "",
    "to-a": { link: "a.txt" },
    "to-dir": { link: "adir" },
    "to-etc": { link: "/etc" },
    "dangling": { link: "nowhere" },
  })
  const s = session(root)
  const list = (path: string, more: Partial<ListRequest> = {}) => s.run(listFolder(ask(path, more)))
  const failure = (path: string, more: Partial<ListRequest> = {}) => s.run(Effect.flip(listFolder(ask(path, more))))

  test("folders first, then by name; links described without being followed out; what was left out is counted", async () => {
    const page = await list(".")
    expect(page.entries.map((e) => e.path)).toEqual(["adir/", "to-dir", "zdir/", "a.txt", "anvil.json", "b.txt", "big.txt", "dangling", "to-a", "to-etc"])
    const byName = Object.fromEntries(page.entries.map((e) => [e.name, e]))
    expect(byName["to-a"]).toMatchObject({ type: "link", target: "a.txt", target_type: "file" })
    expect(byName["to-dir"]).toMatchObject({ type: "link", target: "adir", target_type: "dir" })
    expect(byName["to-etc"]).toMatchObject({ type: "link", target: OUTSIDE_SANDBOX })
    expect(byName.dangling).toMatchObject({ type: "link", target: BROKEN_LINK })
    expect(byName["big.txt"]).toMatchObject({ type: "file", size: 100 })
    expect(page).toMatchObject({ shown: ".", total: 10, dirs: 2, links: 4, files: 4, hidden: 2, gitIgnored: 1, matchedIgnore: 0 })
    expect(page.mtimesMs).toHaveLength(10)
  })

  test("hidden and ignored entries on request; ignore globs; size order; pages", async () => {
    const all = await list(".", { includeHidden: true, includeIgnored: true })
    expect(all.entries.map((e) => e.name)).toContain("node_modules")
    expect(all.entries.map((e) => e.name)).toContain("debug.log")
    const globbed = await list(".", { ignore: ["*.txt", "**/*.json"] })
    expect(globbed.matchedIgnore).toBe(4)
    const bySize = await list(".", { sortBy: "size" })
    expect(bySize.entries.filter((e) => e.type === "file")[0]!.name).toBe("big.txt")
    const second = await list(".", { offset: 8, limit: 5 })
    expect(second.entries).toHaveLength(2)
    expect(second.total).toBe(10)
  })

  test("tagged errors: not found (with similar folders), a file, past the end, a bad glob", async () => {
    const missing = await failure("zdri")
    expect(missing).toMatchObject({ _tag: "PathNotFound", kind: "dir", shown: "zdri", why: "" })
    expect(await failure("a.txt")).toMatchObject({ _tag: "NotAFolder", shown: "a.txt" })
    expect(await failure(".", { offset: 10 })).toMatchObject({ _tag: "EntriesPastEnd", offset: 10, total: 10, limit: 100 })
    expect(await failure(".", { ignore: ["ok", "/abs"] })).toMatchObject({ _tag: "IgnoreGlobInvalid", index: 1, pattern: "/abs" })
  })
})
