import { beforeAll, describe, expect, test } from "bun:test"
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { VERSION } from "../../src/version.ts"
import { tempDir } from "../support/harness.ts"

// Builds the executable into a temp folder (about a second) and runs it from
// elsewhere: the embedded skills and rg must work without the repository.
const repo = join(import.meta.dir, "..", "..")
let binary = ""
let buildOutput = ""

beforeAll(() => {
  binary = join(tempDir("anvil-build-"), "anvil")
  const build = Bun.spawnSync([process.execPath, "build.ts", "--outfile", binary], { cwd: repo, stdout: "pipe", stderr: "pipe" })
  buildOutput = build.stdout.toString() + build.stderr.toString()
  if (build.exitCode !== 0) throw new Error(`build.ts failed:\n${buildOutput}`)
}, 60_000)

/** Runs the binary in `cwd` with only the environment given (no rg on PATH, a private cache). */
const run = (args: ReadonlyArray<string>, cwd: string, env: Record<string, string>) => {
  const r = Bun.spawnSync([binary, ...args], { cwd, env, stdout: "pipe", stderr: "pipe", stdin: "ignore" })
  return { code: r.exitCode, out: r.stdout.toString(), err: r.stderr.toString() }
}

describe("the compiled executable", () => {
  test("build.ts reports the binary size", () => {
    expect(buildOutput).toMatch(/binary size: \d+ bytes/)
    expect(existsSync(binary)).toBe(true)
  })

  test("answers --version", () => {
    const r = run(["--version"], tempDir(), { PATH: "/usr/bin:/bin" })
    expect(r).toEqual({ code: 0, out: `anvil ${VERSION}\n`, err: "" })
  })

  test("runs a tool from another folder", () => {
    const dir = tempDir()
    const r = run(["tool", "calculator", '{"expression":"2**10"}'], dir, { PATH: "/usr/bin:/bin", HOME: dir })
    expect(r.code).toBe(0)
    expect(JSON.parse(r.out).data).toEqual({ expression: "2**10", result: "1024" })
  })

  test("reads its embedded skills and extracts its embedded rg into the cache, once", () => {
    const dir = tempDir()
    const cache = join(dir, "cache")
    const emptyPath = join(dir, "empty-bin")
    mkdirSync(emptyPath)
    const env = { PATH: emptyPath, XDG_CACHE_HOME: cache, HOME: dir }
    const first = run(["self-check"], dir, env)
    expect(first.code).toBe(0)
    const report = JSON.parse(first.out)
    expect(report.compiled).toBe(true)
    expect(report.skills.map((s: { name: string }) => s.name)).toContain("create-skill")
    expect(report.skills[0].path).toContain("$bunfs")
    expect(report.ripgrep.source).toBe("embedded")
    expect(report.ripgrep.path).toStartWith(join(cache, "anvil", "rg-"))
    expect(report.ripgrep.version).toStartWith("ripgrep ")
    const again = JSON.parse(run(["self-check"], dir, env).out)
    expect(again.ripgrep.path).toBe(report.ripgrep.path)
    expect(readdirSync(join(cache, "anvil"))).toHaveLength(1)
  })

  test("ignores the .env and bunfig.toml of the folder it runs in", () => {
    const dir = tempDir()
    writeFileSync(join(dir, "bunfig.toml"), 'preload = ["./preload.ts"]\n')
    writeFileSync(join(dir, "preload.ts"), 'console.log("PRELOADED")\n')
    writeFileSync(join(dir, ".env"), `XDG_CACHE_HOME=${join(dir, "from-dotenv")}\n`)
    const r = run(["self-check"], dir, { PATH: "/nonexistent", HOME: dir })
    expect(r.out).not.toContain("PRELOADED")
    expect(JSON.parse(r.out).ripgrep.path).toStartWith(join(dir, ".cache", "anvil"))
  })
})
