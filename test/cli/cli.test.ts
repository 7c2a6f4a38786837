import { describe, expect, test } from "bun:test"
import { readFileSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { COMMAND_NAMES, main } from "../../src/cli/index.ts"
import type { CliIO } from "../../src/cli/output.ts"
import { VERSION } from "../../src/version.ts"
import { assertEnvelope, project } from "../support/harness.ts"
import { tempDir } from "../support/temp-dirs.ts"

const run = async (argv: Array<string>, options: { cwd?: string; stdin?: string; env?: Record<string, string> } = {}) => {
  let out = ""
  let err = ""
  const io: CliIO = {
    out: (t) => void (out += t),
    err: (t) => void (err += t),
    readStdin: async () => options.stdin ?? "",
    cwd: options.cwd ?? project(),
    env: options.env ?? {},
  }
  const code = await main(argv, io)
  return { code, out, err }
}

const SRC = resolve(import.meta.dir, "../../src")

describe("anvil CLI", () => {
  test("one 'anvil' prefix on a usage error, also from a command of two words", async () => {
    for (const argv of [["plugins", "init", "bad name"], ["config", "schema", "extra"], ["mcp", "list", "extra"]]) {
      const r = await run(argv)
      expect(r.code).toBe(2)
      expect(r.err).toStartWith(`anvil ${argv[0]} ${argv[1]}: `)
    }
  })

  test("commands without subcommands refuse what they do not take; tool --help without a known name says how a call is written", async () => {
    for (const argv of [["tools", "--bogus"], ["tools", "extra"], ["self-check", "--bogus"]]) {
      const r = await run(argv)
      expect(r.code).toBe(2)
      expect(r.err).toStartWith(`anvil ${argv[0]}: unexpected argument '${argv[1]}'`)
    }
    const usage = await run(["tool", "--help"])
    expect(usage.code).toBe(0)
    expect(usage.out).toStartWith("Usage: anvil tool NAME [JSON | - | --key value ...]")
    const unknown = await run(["tool", "nosuch", "--help"])
    expect(unknown.code).toBe(2)
    expect(unknown.err).toStartWith("anvil tool: unknown tool 'nosuch' (see `anvil tools`)")
    expect((await run(["tool", "read", "--help"])).out).toStartWith("read (Read)")
  })

  test("anvil tool NAME - with nothing on standard input is a usage error naming the fix, with its envelope", async () => {
    for (const stdin of ["", "  \n"]) {
      const r = await run(["tool", "read", "-"], { stdin })
      expect(r.code).toBe(2)
      expect(r.err).toContain("anvil tool read: standard input was empty; pipe the JSON parameters (echo '{…}' | anvil tool read -)")
      expect(JSON.parse(r.out).error).toMatchObject({ code: "INVALID_PARAM", field_errors: [{ field: "(root)" }] })
    }
  })

  test("the chat's help shows the backslash that continues a line", async () => {
    expect((await run(["chat", "--help"])).out).toContain("or end a line with \\ to go on")
  })

  test("--version prints the package version", async () => {
    expect((await run(["--version"])).out).toBe(`anvil ${VERSION}\n`)
    // After a command word too: it is not swallowed while the command runs without it.
    for (const argv of [["run", "--version"], ["mcp", "--version"], ["tool", "read", "-V"]]) {
      expect(await run(argv)).toMatchObject({ code: 0, out: `anvil ${VERSION}\n` })
    }
    const pkg = JSON.parse(readFileSync(resolve(SRC, "../package.json"), "utf8"))
    expect(VERSION).toBe(pkg.version)
  })

  test("the entry point answers --version/--help without importing the runtime", () => {
    // Follow main.ts's static imports: none may reach effect or the CLI.
    const seen = new Set<string>()
    const visit = (file: string) => {
      if (seen.has(file)) return
      seen.add(file)
      const text = readFileSync(file, "utf8")
      for (const m of text.matchAll(/^import\s+(?!type\b)[^"']*["']([^"']+)["']/gm)) {
        const spec = m[1]!
        expect(spec.startsWith(".")).toBe(true) // no package import at all
        visit(join(dirname(file), spec))
      }
    }
    visit(join(SRC, "main.ts"))
    expect([...seen].map((f) => f.slice(SRC.length + 1)).sort()).toEqual(["cli/help-text.ts", "main.ts", "version.ts"])
  })

  test("the real entry point: exit codes 0, 1 and 2", async () => {
    const root = project()
    const bun = process.execPath
    const exec = (...args: Array<string>) => {
      const p = Bun.spawnSync([bun, join(SRC, "main.ts"), ...args], { cwd: root, stdin: "ignore" })
      return { code: p.exitCode, out: p.stdout.toString(), err: p.stderr.toString() }
    }
    const v = exec("--version")
    expect(v.code).toBe(0)
    expect(v.out).toBe(`anvil ${VERSION}\n`)
    expect(exec("tool", "calculator", '{"expression":"6*7"}').code).toBe(0)
    expect(exec("tool", "calculator", '{"expression":"1/0"}').code).toBe(1)
    expect(exec("tool").code).toBe(2)
    expect(exec("frobnicate").code).toBe(2)
  })

  test("the real entry point writes its whole output to a slow reader before exiting", async () => {
    // 200 long names: the envelope lists them in data and in text, well over a pipe's 64 KiB buffer.
    const tree: Record<string, string> = {}
    for (let i = 0; i < 200; i++) tree[`${String(i).padStart(3, "0")}-${"n".repeat(200)}.txt`] = ""
    const args = [process.execPath, join(SRC, "main.ts"), "tool", "glob", '{"pattern": "*.txt", "limit": 200}']
    const child = Bun.spawn(args, { cwd: project(tree), stdin: "ignore", stdout: "pipe" })
    await Bun.sleep(300) // the pipe fills while nobody reads
    const text = await new Response(child.stdout).text()
    expect(await child.exited).toBe(0)
    expect(text.length).toBeGreaterThan(65536)
    expect((JSON.parse(text).data.paths as Array<unknown>).length).toBe(200)
  })

  test("tool: JSON argument, --key value flags, stdin, --text and --meta", async () => {
    const a = await run(["tool", "calculator", '{"expression":"2+3*4"}'])
    expect(a.code).toBe(0)
    const env = JSON.parse(a.out)
    assertEnvelope(env)
    expect(env.data.result).toBe("14")
    const b = await run(["tool", "calculator", "--expression", "2**10", "--text"])
    expect(b.out).toBe("# Calculator: 2**10\n\nResult: 1024\n")
    const c = await run(["tool", "calculator", "-"], { stdin: '{"expression":"sqrt(16)"}' })
    expect(JSON.parse(c.out).data.result).toBe("4.0")
    const d = await run(["tool", "calculator", '{"expression":"1"}', "--meta"])
    const both = JSON.parse(d.out)
    expect(Object.keys(both).sort()).toEqual(["envelope", "execution_meta"])
    expect(both.execution_meta.tool_name).toBe("Calculator")
  })

  test("tool: an error envelope exits 1, a malformed command line exits 2", async () => {
    const e = await run(["tool", "calculator", '{"expression":"nope(1)"}'])
    expect(e.code).toBe(1)
    expect(JSON.parse(e.out).error.code).toBe("INVALID_PARAM")
    // Not JSON: still an INVALID_PARAM envelope on stdout, and exit 2; a one-string tool takes plain text.
    for (const [tool, input] of [["calculator", "{not json"], ["read", "not json at all"], ["read", '{"path":']]) {
      const bad = await run(["tool", tool!, input!])
      expect(bad.code).toBe(2)
      expect(JSON.parse(bad.out).error.code).toBe("INVALID_PARAM")
    }
    const plain = await run(["tool", "calculator", "6*7"])
    expect(plain.code).toBe(0)
    expect(JSON.parse(plain.out).status).toBe("success")
    const fromStdin = await run(["tool", "read", "-"], { stdin: "\u0000\u0001" })
    expect(fromStdin.code).toBe(2)
    expect(JSON.parse(fromStdin.out).error.code).toBe("INVALID_PARAM")
    const unknown = await run(["tool", "nosuch", "{}"])
    expect(unknown.code).toBe(2)
    expect(unknown.err).toContain("unknown tool 'nosuch'")
    expect((await run(["tool", "calculator", "{}", "extra"])).code).toBe(2)
  })

  test("--root is accepted anywhere and names the project root", async () => {
    const root = project({ "sub/x.txt": "x" })
    const cwd = join(root, "sub")
    const r = await run(["tool", "calculator", "--root", root, '{"expression":"1"}'], { cwd })
    expect(JSON.parse(r.out).context.cwd).toBe("sub")
    const r2 = await run(["--root", cwd, "tool", "calculator", '{"expression":"1"}'], { cwd })
    expect(JSON.parse(r2.out).context.cwd).toBe(".")
    expect((await run(["tool", "calculator", "--root"])).code).toBe(2)
  })

  test("tools lists every tool; --json gives names, descriptions and JSON Schemas", async () => {
    const text = await run(["tools"])
    expect(text.out).toContain("calculator")
    const list = JSON.parse((await run(["tools", "--json"])).out) as Array<Record<string, any>>
    const calc = list.find((t) => t.name === "calculator")!
    expect(calc.parameters.type).toBe("object")
    expect(calc.parameters.required).toEqual(["expression"])
    expect(calc.parameters.additionalProperties).toBe(false)
    for (const t of list) expect(typeof t.description).toBe("string")
    // load_tools, which the agent offers to bring in the rarely used tools, is listed as well, and its help is found.
    expect(text.out).toMatch(/^load_tools +builtin +Adds on-demand tools/m)
    const loader = list.find((t) => t.name === "load_tools")!
    expect(loader.parameters.properties.names.type).toBe("array")
    expect(list.map((t) => t.name)).toEqual(expect.arrayContaining(["read", "git_status", "fetch", "lsp_hover", "task", "skill"]))
    expect((await run(["tool", "load_tools", "--help"])).out).toStartWith("load_tools (LoadTools)")
    expect((await run(["tool", "tool_search", "--help"])).out).toStartWith("load_tools (LoadTools)")
  })

  test("--help works for anvil, tools and a single tool", async () => {
    expect((await run(["--help"])).out).toContain("Usage:")
    expect((await run(["tool", "calculator", "--help"])).out).toContain("Parameters (JSON Schema)")
  })

  test("--trust-plugins on anvil tool loads an untrusted project plugin for that call, as its notice says", async () => {
    const plugin = `import { defineTool } from "anvil/plugin"
import { Schema } from "effect"
export default defineTool({ name: "sum_tool", description: "Adds.", parameters: Schema.Struct({ a: Schema.Number, b: Schema.Number }), readOnly: true, run: ({ a, b }) => ({ sum: a + b }) })
`
    const root = project({ ".anvil/plugins/sum.ts": plugin })
    const home = tempDir("anvil-cli-home-")
    const env = { HOME: home, XDG_CONFIG_HOME: join(home, ".config"), XDG_CACHE_HOME: join(home, ".cache") }
    const untrusted = await run(["tool", "sum_tool", '{"a":1,"b":2}'], { cwd: root, env })
    expect(untrusted.err).toContain("or pass --trust-plugins for one run")
    expect(JSON.parse(untrusted.out).error.message).toContain("Unknown tool 'sum_tool'")
    const trusted = await run(["tool", "sum_tool", '{"a":1,"b":2}', "--trust-plugins"], { cwd: root, env })
    expect(JSON.parse(trusted.out)).toMatchObject({ status: "success", data: { sum: 3 } })
    expect(trusted.code).toBe(0)
  }, 30_000)

  test("anvil tool --sandbox takes a mode or bash's true/false; anything else is a usage error naming both", async () => {
    const bad = await run(["tool", "bash", '{"command":"true"}', "--sandbox", "bogus"])
    expect(bad.code).toBe(2)
    expect(bad.err).toContain("anvil tool: --sandbox is workspace-write, read-only, off, require (or true/false, bash's own sandbox parameter), not 'bogus'")
    expect((await run(["tool", "bash", '{"command":"true"}', "--sandbox="])).code).toBe(2)
  })

  test("one table: every command word it lists runs (its --help answers) and options before it are refused", async () => {
    expect([...COMMAND_NAMES].sort()).toEqual(["chat", "config", "help", "mcp", "plugins", "run", "sandbox", "self-check", "sessions", "skills", "tool", "tools"])
    for (const word of COMMAND_NAMES) {
      const helped = await run([word, "--help"])
      expect([word, helped.code, helped.err]).toEqual([word, 0, ""])
      expect(helped.out).toContain("Usage")
      expect(helped.out).not.toContain("unknown command")
      const early = await run(["--text", word])
      expect([word, early.code]).toEqual([word, 2])
      expect(early.err).toContain(`anvil: options go after the command: anvil ${word} … --text`)
    }
    expect((await run(["nosuch"])).err).toContain("unknown command 'nosuch'")
  })

  test("options before the command word are a usage error naming where they go, not a chat that drops the words", async () => {
    const misplaced = await run(["--trust-plugins", "tool", "read", '{"path":"a"}'])
    expect(misplaced.code).toBe(2)
    expect(misplaced.err).toContain("anvil: options go after the command: anvil tool … --trust-plugins")
    // An option chat does not take either: still the command's, not chat's.
    const text = await run(["--text", "tool", "read", '{"path":"a"}'])
    expect(text.code).toBe(2)
    expect(text.err).toContain("anvil: options go after the command: anvil tool … --text")
    // run's and chat's options before `tool`: a direct call takes none of them, so moving them would not help.
    const yes = await run(["--yes", "tool", "write", '{"path":"a","content":"x"}'])
    expect(yes.code).toBe(2)
    expect(yes.err).toContain("anvil tool takes no --yes: a direct tool call runs as the user who typed it")
    const mixed = await run(["--allow=bash", "--text", "tool", "read", '{"path":"a"}'])
    expect(mixed.err).toContain("anvil tool takes no --allow=bash:")
    const words = await run(["--yes", "fix the bug"])
    expect(words.code).toBe(2)
    expect(words.err).toContain("anvil chat: unexpected argument 'fix the bug'")
  })
})
