import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { join } from "node:path"
import { Config, ConfigError, makeConfig } from "../../src/config/config.ts"
import { parseJsonc } from "../../src/config/jsonc.ts"
import { PlatformLive } from "../../src/runtime.ts"
import { runBinary } from "../support/anvil-binary.ts"
import { project, tempDir, writeTree } from "../support/harness.ts"

const load = (root: string, env: Record<string, string> = {}) =>
  Effect.runPromise(Config.load({ root, env }).pipe(Effect.provide(PlatformLive), Effect.result))

describe("config", () => {
  test("JSON with comments and trailing commas; // inside strings survives", () => {
    expect(parseJsonc('{\n // c\n "url": "http://x/y", /* b */ "a": [1, 2,],\n}')).toEqual({ url: "http://x/y", a: [1, 2] })
  })

  test("project anvil.json overrides the user file key by key", async () => {
    const home = tempDir()
    writeTree(home, { ".config/anvil/anvil.json": '{ "output": { "max_lines": 10, "max_bytes": 999 }, "model": "a/b" }' })
    const root = project()
    writeTree(root, { "anvil.json": '// project\n{ "output": { "max_lines": 20 } }' })
    const r = await load(root, { HOME: home })
    if (r._tag !== "Success") throw r.failure
    expect(r.success.get("output.max_lines", 0)).toBe(20)
    expect(r.success.get("output.max_bytes", 0)).toBe(999)
    expect(r.success.get("model", "")).toBe("a/b")
    expect(r.success.get("output.missing", 7)).toBe(7)
    expect(r.success.get("model", 3)).toBe(3) // wrong type: the fallback
    expect(r.success.sources).toEqual([join(home, ".config/anvil/anvil.json"), join(root, "anvil.json")])
  })

  test("count: a positive whole number, else the fallback", () => {
    const c = makeConfig({ a: 12.7, zero: 0, neg: -3, text: "5", nan: Number.NaN }, {})
    expect(c.count("a", 1)).toBe(12)
    for (const key of ["zero", "neg", "text", "nan", "missing"]) expect(c.count(key, 7)).toBe(7)
  })

  test("a project or user anvil.json that is not a regular file (a FIFO, a device, a folder) is a ConfigError with the next step, and never stalls the start", async () => {
    const failure = async (root: string, env: Record<string, string> = {}) => {
      const r = await load(root, env)
      if (r._tag !== "Failure") throw new Error("expected a ConfigError")
      expect(r.failure).toBeInstanceOf(ConfigError)
      return r.failure.message
    }
    const root = project({}, { marker: false })
    expect(Bun.spawnSync(["mkfifo", join(root, "anvil.json")]).exitCode).toBe(0)
    expect(await failure(root)).toBe(`${join(root, "anvil.json")} cannot be read as a settings file (it is not a regular file): replace it with a regular JSON file, or remove it.`)
    const folder = project({ "anvil.json/x": "" }, { marker: false })
    expect(await failure(folder)).toBe(
      `${join(folder, "anvil.json")} cannot be read as a settings file (it is a folder): move the folder away (or rename it) and write the settings in a file of that name.`,
    )
    const home = tempDir()
    writeTree(home, { ".config/anvil/anvil.json/settings.json": "{}" })
    expect(await failure(project(), { HOME: home })).toContain(`${join(home, ".config/anvil/anvil.json")} cannot be read as a settings file (it is a folder)`)
    const device = tempDir()
    writeTree(device, { ".config/anvil/anvil.json": { link: "/dev/zero" } })
    expect(await failure(project(), { HOME: device })).toContain("(it is not a regular file)")
  })

  test("an anvil.json linked to /dev/null holds no settings (as an empty one)", async () => {
    const home = tempDir()
    writeTree(home, { ".config/anvil/anvil.json": { link: "/dev/null" } })
    const r = await load(project({}, { marker: false }), { HOME: home })
    if (r._tag !== "Success") throw r.failure
    expect(r.success.sources).toEqual([])
  })

  test("a broken anvil.json is a ConfigError naming the file", async () => {
    const root = project()
    writeTree(root, { "anvil.json": '{ "a": }' })
    const r = await load(root)
    expect(r._tag).toBe("Failure")
    if (r._tag === "Failure") {
      expect(r.failure).toBeInstanceOf(ConfigError)
      expect(r.failure.message).toContain(join(root, "anvil.json"))
    }
  })

  test("settings nested past 100 levels are a ConfigError at the place they go too deep, never a stack overflow; wide or quoted brackets are not depth", async () => {
    const deep = (text: string) => async (root: string, env: Record<string, string> = {}) => {
      const r = await load(root, env)
      if (r._tag !== "Failure") throw new Error(`expected a ConfigError for ${text.slice(0, 20)}`)
      expect(r.failure).toBeInstanceOf(ConfigError)
      return r.failure.message
    }
    const plain = '{"a":'.repeat(20_000) + "1" + "}".repeat(20_000)
    const unclosed = "[".repeat(100_000)
    const commented = '// c\n{"a": ' + "[".repeat(150) + "]".repeat(150) + "}"
    for (const text of [plain, unclosed, commented]) {
      const root = project({ "anvil.json": text })
      const message = await deep(text)(root)
      expect(message).toContain(`${join(root, "anvil.json")}: not valid settings (nested deeper than 100 levels at line`)
    }
    const home = tempDir()
    writeTree(home, { ".config/anvil/anvil.json": plain })
    expect(await deep(plain)(project(), { HOME: home })).toContain("nested deeper than 100 levels at line 1, column 501")
    // Many brackets side by side, or inside strings and comments, nest no deeper than a few levels.
    const wide = `// ${"{[".repeat(200)}\n{"permission": {"bash": {${Array.from({ length: 150 }, (_, i) => `"c${i} [*]": "deny"`).join(", ")}}}, "model": "a/${"{".repeat(200)}",}`
    const root = project({ "anvil.json": wide })
    const r = await load(root)
    if (r._tag !== "Success") throw r.failure
    expect(r.success.get("model", "")).toBe(`a/${"{".repeat(200)}`)
    // Through the binary: exit 3 with the file and place, no stack trace.
    const bin = project({ "a.txt": "hi\n", "anvil.json": plain })
    const run = await runBinary(["tool", "read", '{"path":"a.txt"}'], { cwd: bin, env: { HOME: tempDir() } })
    expect(run.code).toBe(3)
    expect(run.stderr).toContain("nested deeper than 100 levels at line 1, column 501")
    expect(run.stderr).not.toContain("RangeError")
  })
})
