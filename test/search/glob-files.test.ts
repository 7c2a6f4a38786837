import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { utimesSync } from "node:fs"
import { join } from "node:path"
import { globFiles, type GlobRequest } from "../../src/search/glob-files.ts"
import { project, session } from "../support/harness.ts"

const ask = (pattern: string, more: Partial<GlobRequest> = {}): GlobRequest => ({
  pattern,
  path: ".",
  includeHidden: false,
  includeIgnored: false,
  sortBy: "path",
  ignoredDirs: new Set(["node_modules"]),
  maxEntries: 100_000,
  maxDurationMs: 10_000,
  ...more,
})

describe("globFiles (search domain)", () => {
  const root = project({ "src/b.ts": "", "src/a/c.ts": "", "src/d.js": "", ".hidden/e.ts": "", "node_modules/m/f.ts": "", "old.ts": "" })
  utimesSync(join(root, "old.ts"), new Date(2020, 1, 1), new Date(2020, 1, 1))
  const s = session(root)
  const glob = (pattern: string, more: Partial<GlobRequest> = {}) => s.run(globFiles(ask(pattern, more)))
  const failure = (pattern: string, more: Partial<GlobRequest> = {}) => s.run(Effect.flip(globFiles(ask(pattern, more))))

  test("paths in tree order, hidden and ignored folders skipped unless asked; newest first on request", async () => {
    expect(await glob("**/*.ts")).toMatchObject({ shown: ".", paths: ["old.ts", "src/a/c.ts", "src/b.ts"], stopped: undefined })
    expect((await glob("**/*.ts", { includeHidden: true, includeIgnored: true })).paths).toContain(".hidden/e.ts")
    expect((await glob("**/*.ts", { includeIgnored: true })).paths).toContain("node_modules/m/f.ts")
    expect((await glob("*.ts", { path: "src" })).paths).toEqual(["b.ts"])
    expect((await glob("**/*.ts", { sortBy: "mtime" })).paths.at(-1)).toBe("old.ts")
  })

  test("the walk's circuit breaker stops it", async () => {
    expect((await glob("**/*", { maxEntries: 2 })).stopped).toBe("max_entries")
  })

  test("tagged errors: a bad pattern, a missing folder, a file", async () => {
    expect(await failure("/abs/*.ts")).toMatchObject({ _tag: "GlobInvalid" })
    expect(await failure("*.ts", { path: "nope" })).toMatchObject({ _tag: "GlobFolderNotFound", shown: "nope" })
    expect(await failure("*.ts", { path: "old.ts" })).toMatchObject({ _tag: "GlobNotAFolder", shown: "old.ts" })
  })
})
