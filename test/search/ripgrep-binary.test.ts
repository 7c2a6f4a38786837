import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { Config } from "../../src/config/config.ts"
import type { EmbeddedAssets } from "../../src/embedded/assets.ts"
import { PlatformLive } from "../../src/runtime.ts"
import { findRipgrep, locateRipgrep, ripgrepCacheDirs, type LocateRipgrepOptions } from "../../src/search/ripgrep-binary.ts"
import { tempDir } from "../support/harness.ts"
import * as NodePath from "@effect/platform-node/NodePath"
import { Path } from "effect/Path"

const FAKE_RG = "#!/bin/sh\necho 'ripgrep 0.0.0-fake'\n"

/** A fake embedded rg (a shell script) in a temp folder, as build.ts would list it. */
const fakeAssets = (content = FAKE_RG, version = "9.9.9"): EmbeddedAssets => {
  const file = join(tempDir("anvil-embedded-"), "rg-abc123")
  writeFileSync(file, content)
  return { ripgrep: file, ripgrepVersion: version, skills: {}, compiled: true }
}

const find = (env: Record<string, string>, options: LocateRipgrepOptions) =>
  Effect.runPromise(findRipgrep(options).pipe(Effect.provide(Config.layerFrom({}, env)), Effect.provide(PlatformLive)))

/** A folder holding an executable (or not) file named rg. */
const binDirWithRg = (mode = 0o755): string => {
  const dir = tempDir("anvil-bin-")
  writeFileSync(join(dir, "rg"), FAKE_RG)
  chmodSync(join(dir, "rg"), mode)
  return dir
}

describe("extraction of the embedded rg", () => {
  test("is copied once into $XDG_CACHE_HOME/anvil/rg-<version>/rg with mode 755", async () => {
    const cache = tempDir("anvil-cache-")
    const assets = fakeAssets()
    const env = { XDG_CACHE_HOME: cache, PATH: tempDir("anvil-empty-path-") }
    const found = await find(env, { assets })
    const expected = join(cache, "anvil", "rg-9.9.9", "rg")
    expect(found).toEqual({ path: expected, source: "embedded" })
    expect(readFileSync(expected, "utf8")).toBe(FAKE_RG)
    expect(statSync(expected).mode & 0o777).toBe(0o755)
    const runs = Bun.spawnSync([expected])
    expect(runs.stdout.toString()).toBe("ripgrep 0.0.0-fake\n")
  })

  test("a later run reuses the extracted copy instead of writing it again", async () => {
    const cache = tempDir("anvil-cache-")
    const assets = fakeAssets()
    const env = { XDG_CACHE_HOME: cache, PATH: "" }
    const first = await find(env, { assets })
    const before = statSync(first!.path)
    const second = await find(env, { assets })
    const after = statSync(second!.path)
    expect(second!.path).toBe(first!.path)
    expect(after.ino).toBe(before.ino)
  })

  test("a cached copy of the wrong size (cut short) is replaced", async () => {
    const cache = tempDir("anvil-cache-")
    const assets = fakeAssets()
    const target = join(cache, "anvil", "rg-9.9.9", "rg")
    mkdirSync(join(cache, "anvil", "rg-9.9.9"), { recursive: true })
    writeFileSync(target, FAKE_RG.slice(0, 10))
    const found = await find({ XDG_CACHE_HOME: cache }, { assets, ignorePath: true })
    expect(found!.path).toBe(target)
    expect(readFileSync(target, "utf8")).toBe(FAKE_RG)
    expect(statSync(target).mode & 0o777).toBe(0o755)
  })

  test("a cached copy that lost its execute bit gets it back", async () => {
    const cache = tempDir("anvil-cache-")
    const assets = fakeAssets()
    const target = join(cache, "anvil", "rg-9.9.9", "rg")
    mkdirSync(join(cache, "anvil", "rg-9.9.9"), { recursive: true })
    writeFileSync(target, FAKE_RG)
    chmodSync(target, 0o644)
    await find({ XDG_CACHE_HOME: cache }, { assets, ignorePath: true })
    expect(statSync(target).mode & 0o777).toBe(0o755)
  })

  test("each version gets its own folder", async () => {
    const cache = tempDir("anvil-cache-")
    const a = await find({ XDG_CACHE_HOME: cache }, { assets: fakeAssets(FAKE_RG, "1.0.0"), ignorePath: true })
    const b = await find({ XDG_CACHE_HOME: cache }, { assets: fakeAssets(`${FAKE_RG}# v2\n`, "2.0.0"), ignorePath: true })
    expect(a!.path).toBe(join(cache, "anvil", "rg-1.0.0", "rg"))
    expect(b!.path).toBe(join(cache, "anvil", "rg-2.0.0", "rg"))
    expect(readFileSync(a!.path, "utf8")).toBe(FAKE_RG)
  })

  test("without $XDG_CACHE_HOME the copy goes to ~/.cache/anvil", async () => {
    const home = tempDir("anvil-home-")
    const found = await find({ HOME: home }, { assets: fakeAssets(), ignorePath: true })
    expect(found!.path).toBe(join(home, ".cache", "anvil", "rg-9.9.9", "rg"))
  })

  test("an unusable cache folder falls through to the next one", async () => {
    const blocker = join(tempDir("anvil-cache-"), "not-a-dir")
    writeFileSync(blocker, "a file where the cache folder should be")
    const home = tempDir("anvil-home-")
    const found = await find({ XDG_CACHE_HOME: blocker, HOME: home }, { assets: fakeAssets(), ignorePath: true })
    expect(found!.path).toBe(join(home, ".cache", "anvil", "rg-9.9.9", "rg"))
  })

  test("leaves no temp file behind", async () => {
    const cache = tempDir("anvil-cache-")
    await find({ XDG_CACHE_HOME: cache }, { assets: fakeAssets(), ignorePath: true })
    expect(readdirSync(join(cache, "anvil", "rg-9.9.9"))).toEqual(["rg"])
  })
})

describe("a gzip-compressed embedded rg (what build.ts embeds)", () => {
  const gzAssets = (content: string) => {
    const file = join(tempDir("anvil-embedded-"), "rg-abc123.gz")
    writeFileSync(file, Bun.gzipSync(new TextEncoder().encode(content)))
    return { ripgrep: file, ripgrepVersion: "9.9.9", skills: {}, compiled: true } satisfies EmbeddedAssets
  }

  test("is gunzipped into the cache and runs", async () => {
    const cache = tempDir("anvil-cache-")
    const found = await find({ XDG_CACHE_HOME: cache }, { assets: gzAssets(FAKE_RG), ignorePath: true })
    expect(found!.path).toBe(join(cache, "anvil", "rg-9.9.9", "rg"))
    expect(readFileSync(found!.path, "utf8")).toBe(FAKE_RG)
    expect(Bun.spawnSync([found!.path]).stdout.toString()).toBe("ripgrep 0.0.0-fake\n")
  })

  test("the cached copy is checked against the uncompressed size: kept when equal, replaced when not", async () => {
    const cache = tempDir("anvil-cache-")
    const assets = gzAssets(FAKE_RG)
    const first = await find({ XDG_CACHE_HOME: cache }, { assets, ignorePath: true })
    const inode = statSync(first!.path).ino
    await find({ XDG_CACHE_HOME: cache }, { assets, ignorePath: true })
    expect(statSync(first!.path).ino).toBe(inode)
    writeFileSync(first!.path, "#!/bin/sh\n")
    await find({ XDG_CACHE_HOME: cache }, { assets, ignorePath: true })
    expect(readFileSync(first!.path, "utf8")).toBe(FAKE_RG)
  })

  test("a broken .gz yields no rg from the embedding (and no half-written file)", async () => {
    const cache = tempDir("anvil-cache-")
    const file = join(tempDir("anvil-embedded-"), "rg.gz")
    writeFileSync(file, "this is not gzip data at all, but long enough")
    const found = await find({ XDG_CACHE_HOME: cache, PATH: "" }, { assets: { ripgrep: file, skills: {}, compiled: true } })
    expect(found).toBeUndefined()
    expect(readdirSync(cache)).toEqual([])
  })
})

describe("lookup order", () => {
  test("an executable rg on the Config environment's PATH comes first", async () => {
    const bin = binDirWithRg()
    const found = await find({ PATH: `/nonexistent-anvil-dir:${bin}`, XDG_CACHE_HOME: tempDir() }, { assets: fakeAssets() })
    expect(found).toEqual({ path: join(bin, "rg"), source: "path" })
  })

  test("a non-executable rg on PATH is skipped", async () => {
    const bin = binDirWithRg(0o644)
    const cache = tempDir("anvil-cache-")
    const found = await find({ PATH: bin, XDG_CACHE_HOME: cache }, { assets: fakeAssets() })
    expect(found!.source).toBe("embedded")
  })

  test("relative PATH entries are ignored (an rg inside the repository never runs)", async () => {
    const found = await find({ PATH: ".:bin:", XDG_CACHE_HOME: tempDir() }, { assets: fakeAssets() })
    expect(found!.source).toBe("embedded")
  })

  test("in a source checkout the platform package's rg is the fallback", async () => {
    const bin = binDirWithRg()
    const found = await find({ PATH: "" }, { assets: { skills: {}, compiled: false }, packageBinDir: bin })
    expect(found).toEqual({ path: join(bin, "rg"), source: "node_modules" })
  })

  test("undefined when there is no rg anywhere", async () => {
    const found = await find({ PATH: "" }, { assets: { skills: {}, compiled: true } })
    expect(found).toBeUndefined()
  })

  test("locateRipgrep gives a runnable rg in this checkout (node_modules or PATH)", async () => {
    const rg = await Effect.runPromise(
      locateRipgrep.pipe(Effect.provide(Config.layerFrom({}, { PATH: process.env.PATH ?? "" })), Effect.provide(PlatformLive)),
    )
    expect(rg).toBeString()
    const out = Bun.spawnSync([rg!, "--version"]).stdout.toString()
    expect(out).toStartWith("ripgrep ")
  })
})

test("cache folders: XDG first, then ~/.cache, then the temp folder; relative values ignored", async () => {
  const dirs = await Effect.runPromise(
    Effect.gen(function* () {
      const path = yield* Path
      return ripgrepCacheDirs({ XDG_CACHE_HOME: "relative/cache", HOME: "/home/u", TMPDIR: "/var/tmp" }, path)
    }).pipe(Effect.provide(NodePath.layer)),
  )
  expect(dirs).toEqual(["/home/u/.cache/anvil", "/var/tmp/anvil-cache"])
})
