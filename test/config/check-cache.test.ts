import { describe, expect, test } from "bun:test"
import { readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { defaultCheckCache, type ConfigCheckCache } from "../../src/config/check-cache.ts"
import { ConfigError, readConfig, type ConfigShape } from "../../src/config/config.ts"
import { project, tempDir } from "../support/harness.ts"

// The check of a file's settings is remembered by the hash of the build, the file's path and its text: the same
// text is not checked again, any other text (or build) is. Shown by planting a warning in the one remembered entry.

const TYPO = '{\n  "output": { "max_line": 300 }\n}\n'
const PLANTED = { file: "", line: 9, column: 9, key: "planted", kind: "unknown_key", message: "planted by the test" }

const load = async (root: string, cache: ConfigCheckCache | false): Promise<ConfigShape> => {
  const config = await readConfig({ root, env: { HOME: root }, checkCache: cache })
  if (config instanceof ConfigError) throw config
  return config
}

const entries = (cache: ConfigCheckCache) => readdirSync(cache.dir).map((name) => join(cache.dir, name))

/** Replaces the warnings of the one remembered entry with a planted one. */
const plant = (cache: ConfigCheckCache, file: string) => {
  const [entry] = entries(cache)
  const stored = JSON.parse(readFileSync(entry!, "utf8"))
  writeFileSync(entry!, JSON.stringify({ ...stored, warnings: [{ ...PLANTED, file }] }))
}

describe("remembered settings checks", () => {
  test("the same text is not checked again; a changed text, another build or no cache is checked", async () => {
    const root = project({ "anvil.json": TYPO })
    const file = join(root, "anvil.json")
    const cache = { dir: join(tempDir(), "checks"), stamp: "build-1" }
    const first = await load(root, cache)
    expect(first.warnings.map((w) => w.key)).toEqual(["output.max_line"])
    expect(entries(cache)).toHaveLength(1)
    plant(cache, file)
    expect((await load(root, cache)).warnings.map((w) => w.key)).toEqual(["planted"])
    // Another build's Schema, or no cache at all: checked.
    expect((await load(root, { ...cache, stamp: "build-2" })).warnings.map((w) => w.key)).toEqual(["output.max_line"])
    expect((await load(root, false)).warnings.map((w) => w.key)).toEqual(["output.max_line"])
    // One byte more (a space): checked again, and that check is remembered beside the first.
    writeFileSync(file, `${TYPO} `)
    expect((await load(root, cache)).warnings.map((w) => w.key)).toEqual(["output.max_line"])
    writeFileSync(file, '{ "output": { "max_lines": 300 } }')
    const fixed = await load(root, cache)
    expect(fixed.warnings).toEqual([])
    expect(fixed.get("output.max_lines", 0)).toBe(300)
  })

  test("a commented file's value comes from the entry; a damaged entry is checked again and replaced", async () => {
    const root = project({ "anvil.json": '{\n  // limits\n  "output": { "max_lines": 42, },\n  "modle": "x",\n}\n' })
    const cache = { dir: join(tempDir(), "checks"), stamp: "build-1" }
    const first = await load(root, cache)
    expect(first.warnings.map((w) => [w.key, w.line])).toEqual([["modle", 4]])
    const second = await load(root, cache)
    expect(second.warnings).toEqual(first.warnings)
    expect(second.get("output.max_lines", 0)).toBe(42)
    expect(second.data).toEqual(first.data)
    for (const damaged of ["{ not json", JSON.stringify({ file: join(root, "anvil.json"), warnings: [{ key: 1 }] }), JSON.stringify({ file: join(root, "anvil.json"), warnings: [] })]) {
      writeFileSync(entries(cache)[0]!, damaged)
      const again = await load(root, cache)
      expect(again.warnings).toEqual(first.warnings)
      expect(again.get("output.max_lines", 0)).toBe(42)
    }
  })

  test("errors are never remembered; a cache folder that cannot be written changes nothing", async () => {
    const root = project({ "anvil.json": '{ "output": }' })
    const cache = { dir: join(tempDir(), "checks"), stamp: "build-1" }
    for (let i = 0; i < 2; i++) {
      const r = await readConfig({ root, env: {}, checkCache: cache })
      expect(r).toBeInstanceOf(ConfigError)
    }
    writeFileSync(join(root, "anvil.json"), "[1]")
    expect(await readConfig({ root, env: {}, checkCache: cache })).toBeInstanceOf(ConfigError)
    // Under a file, no folder can be made (not even by root).
    const blocker = join(tempDir(), "a-file")
    writeFileSync(blocker, "")
    writeFileSync(join(root, "anvil.json"), TYPO)
    const r = await load(root, { dir: join(blocker, "checks"), stamp: "build-1" })
    expect(r.warnings.map((w) => w.key)).toEqual(["output.max_line"])
  })

  test("the folder keeps the newest 64 entries", async () => {
    const root = project()
    const cache = { dir: join(tempDir(), "checks"), stamp: "build-1" }
    for (let i = 0; i < 70; i++) {
      writeFileSync(join(root, "anvil.json"), JSON.stringify({ output: { max_lines: i + 1 } }))
      await load(root, cache)
    }
    expect(entries(cache).length).toBe(64)
  })

  test("run from source nothing is remembered by default (no stamp follows an edit of the Schema)", () => {
    expect(defaultCheckCache({ HOME: tempDir() })).toBeUndefined()
  })
})
