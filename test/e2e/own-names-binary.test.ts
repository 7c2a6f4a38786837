import { describe, expect, test } from "bun:test"
import { writeFileSync } from "node:fs"
import { Buffer } from "node:buffer"
import { runBinary } from "../support/binary.ts"
import { binaryRepo, binaryTool } from "../support/binary-repo.ts"

// Words that are properties of every JavaScript object: a table of names looked up by what the user typed must
// answer them as the unknown names they are.
const OBJECT_WORDS = ["constructor", "__proto__", "toString", "hasOwnProperty", "valueOf"]

describe("a name the user typed is looked up among the table's own names only (binary)", () => {
  test("calculator: constructor, __proto__, toString… are unknown names and functions, not -inf", async () => {
    const r = binaryRepo({})
    for (const word of OBJECT_WORDS) {
      const name = await binaryTool(r, "calculator", { expression: word })
      expect(name.envelope.error?.message).toContain(`unknown name '${word}'`)
      const call = await binaryTool(r, "calculator", { expression: `${word}(1)` })
      expect(call.envelope.error?.message).toContain(`unknown function '${word}'`)
    }
    expect((await binaryTool(r, "calculator", { expression: "pi" })).envelope.data.result).toBe("3.141592653589793")
  })

  test("glob, list's ignore and grep's built-in search: [[:constructor:]] is an unknown class, not a crash", async () => {
    const r = binaryRepo({ "abc.txt": "hello\n" })
    // A file whose own name is not UTF-8 is searched in-process (Rust regex semantics), not by ripgrep.
    writeFileSync(Buffer.concat([Buffer.from(`${r.root}/`), Buffer.from([0x63, 0x61, 0x66, 0xe9]), Buffer.from(".bin.txt")]), "hello\n")
    const glob = await binaryTool(r, "glob", { pattern: "[[:constructor:]]*" })
    expect(glob.envelope.status).toBe("success")
    expect(glob.envelope.data.matches ?? glob.envelope.data.files ?? []).toEqual([])
    const list = await binaryTool(r, "list", { ignore: ["[[:constructor:]]"] })
    expect(list.envelope.status).not.toBe("error")
    const quoted = '"caf\\351.bin.txt"'
    // Rust reads an unknown [:name:] as a nested class of its characters: 'o' of hello matches.
    const cls = await binaryTool(r, "grep", { pattern: "[[:constructor:]]", path: quoted })
    expect(cls.envelope.error).toBeUndefined()
    expect(cls.envelope.text).toContain("1 match in 1 file")
    for (const pattern of ["\\p{constructor}", "\\p{gc=__proto__}"]) {
      const prop = await binaryTool(r, "grep", { pattern, path: quoted })
      expect(prop.envelope.error.code).toBe("INVALID_PARAM")
      expect(prop.envelope.error.message).toContain("is not supported by the built-in search")
    }
  })

  test("anvil run -m constructor/x is an unknown provider; anvil config constructor an unknown argument", async () => {
    const r = binaryRepo({})
    const run = await runBinary(["run", "-m", "constructor/x", "hi"], { cwd: r.root, env: { ...r.env, OPENAI_API_KEY: "x" } })
    expect(run.code).toBe(3)
    expect(run.stderr).toContain("Unknown provider 'constructor'")
    const config = await runBinary(["config", "constructor"], { cwd: r.root, env: r.env })
    expect(config.code).toBe(2)
    expect(config.stderr).toContain("anvil config: unknown argument 'constructor'")
  })
})
