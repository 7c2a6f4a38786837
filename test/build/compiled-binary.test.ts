import { beforeAll, describe, expect, test } from "bun:test"
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { VERSION } from "../../src/version.ts"
import { toolResults } from "../support/anvil-cli.ts"
import { fakeOpenAI } from "../support/fake-openai.ts"
import { project, tempDir } from "../support/harness.ts"

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

  test("holds its text imports (tool descriptions, the system prompt, the plugin API) as code, not as files required at load", async () => {
    // A file embedded in the executable is named /$bunfs/root/NAME-HASH.EXT; a text import left to --compile was one,
    // required when its importer loaded (build-options.ts inlineTextImports). The skills stay files.
    const image = Buffer.from(await Bun.file(binary).arrayBuffer())
    for (const name of ["read", "bash", "system-prompt", "plugin-api.dts"]) expect(image.indexOf(`/$bunfs/root/${name}-`)).toBe(-1)
    expect(image.indexOf("/$bunfs/root/SKILL-")).toBeGreaterThan(-1)
    const dir = tempDir()
    const readHelp = run(["tool", "read", "--help"], dir, { PATH: "/usr/bin:/bin", HOME: dir })
    expect(readHelp.code).toBe(0)
    expect(readHelp.out).toContain(readFileSync(join(repo, "src", "tools", "read.md"), "utf8").trim().split("\n")[0]!)
    expect(run(["plugins", "init", "hello"], dir, { PATH: "/usr/bin:/bin", HOME: dir }).code).toBe(0)
    const declarations = readFileSync(join(repo, "embedded", "plugin-api.dts.txt"), "utf8")
    expect(readFileSync(join(dir, ".anvil", "plugins", "hello", "anvil-plugin.d.ts"), "utf8")).toBe(declarations)
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

describe("the compiled executable as an agent", () => {
  test("a scripted run against a fake OpenAI-compatible server: grep through the embedded rg, read, answer", async () => {
    const root = project({ "src/app.ts": "export const needle = 42\n", "README.md": "# demo\n" })
    const home = tempDir()
    const emptyPath = join(home, "empty-bin")
    mkdirSync(emptyPath)
    const server = fakeOpenAI([
      {
        tool_calls: [
          { name: "grep", arguments: { pattern: "needle", output_mode: "files_with_matches" }, id: "g1" },
          { name: "read", arguments: { path: "src/app.ts" }, id: "r1" },
        ],
      },
      { text: "needle is 42, in src/app.ts." },
    ])
    try {
      // Async spawn: the fake server answers from this same process.
      const child = Bun.spawn([binary, "run", "--format", "stream-json", "where is needle?"], {
        cwd: root,
        env: { PATH: emptyPath, HOME: home, XDG_CACHE_HOME: join(home, "cache"), OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test", ANVIL_MODEL: "openai/gpt-test" },
        stdin: "ignore",
        stdout: "pipe",
        stderr: "pipe",
      })
      const [out, err, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited])
      expect(err).toBe("")
      expect(code).toBe(0)
      const all = out.trim().split("\n").map((l) => JSON.parse(l))
      // No bwrap on this PATH: the command sandbox says once that it cannot run (test/sandbox covers it).
      const notices = all.filter((e) => e.type === "system" && e.subtype !== "init")
      expect(notices.map((e) => e.source)).toEqual(["sandbox"])
      const events = all.filter((e) => !notices.includes(e))
      expect(events.map((e) => e.type)).toEqual(["system", "assistant", "user", "user", "assistant", "result"])
      const grep = toolResults(events).find((e) => e.id === "g1")
      expect(grep.envelope.status).toBe("success") // not the partial in-process fallback: the embedded rg ran
      expect(JSON.stringify(grep.envelope.data)).toContain("src/app.ts")
      const read = toolResults(events).find((e) => e.id === "r1")
      expect(read.envelope.data.content).toContain("needle = 42")
      expect(events.at(-1)).toMatchObject({ type: "result", subtype: "success", result: "needle is 42, in src/app.ts." })
      expect(server.requests.length).toBe(2)
    } finally {
      server.stop()
    }
  }, 60_000)
})
