import { describe, expect, test } from "bun:test"
import { anvilBinary, runBinary } from "../support/binary.ts"
import { binaryRepo } from "../support/binary-repo.ts"

/** The parsed envelope of a usage error: exit 2, INVALID_PARAM on the call as a whole, the text's last line. */
const usageEnvelope = (r: { code: number; stdout: string }) => {
  expect(r.code).toBe(2)
  const envelope = JSON.parse(r.stdout)
  expect(envelope.status).toBe("error")
  expect(envelope.error.code).toBe("INVALID_PARAM")
  return { envelope, step: (envelope.text as string).trimEnd().split("\n").at(-1) }
}

describe("anvil tool NAME -: standard input that brings no parameters is a usage error with an envelope (binary)", () => {
  test("an empty or blank pipe: the line on stderr, the INVALID_PARAM envelope on stdout, the call written whole next", async () => {
    const r = binaryRepo({ "a.txt": "a\n" })
    for (const [argv, stdin] of [[["tool", "read", "-"], ""], [["tool", "read", "-"], "  \n"], [["tool", "read", "-", "--limit", "3"], ""]] as const) {
      const out = await runBinary(argv, { cwd: r.root, env: r.env, stdin })
      expect(out.stderr).toContain("anvil tool read: standard input was empty; pipe the JSON parameters (echo '{…}' | anvil tool read -)")
      const { envelope, step } = usageEnvelope(out)
      expect(envelope.error.field_errors).toEqual([{ field: "(root)", message: "standard input was empty" }])
      expect(step).toBe('* Read(path="<correct_value>")')
    }
  })

  test("a pipe left open and silent past ANVIL_STDIN_WAIT: the same, and a tool without parameters is asked for as TodoRead()", async () => {
    const r = binaryRepo({})
    const proc = Bun.spawn([anvilBinary(), "tool", "todoread", "-"], {
      cwd: r.root,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", NO_COLOR: "1", ...r.env, ANVIL_STDIN_WAIT: "1" },
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
    })
    const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
    proc.stdin.end()
    expect(stderr).toContain("anvil tool todoread: nothing arrived on standard input within 1 s")
    const { envelope, step } = usageEnvelope({ code, stdout })
    expect(envelope.error.field_errors).toEqual([{ field: "(root)", message: "no parameters arrived on standard input" }])
    expect(step).toBe("* TodoRead()")
  })
})

describe("a tool that takes no parameters is never asked for one (binary)", () => {
  test("todoread given no JSON object: the next step is TodoRead(), not a made-up <name> parameter", async () => {
    const r = binaryRepo({})
    for (const given of ["[1]", "5", "null"]) {
      const out = await runBinary(["tool", "todoread", given], { cwd: r.root, env: r.env })
      const { step } = usageEnvelope(out)
      expect(step).toBe("* TodoRead()")
    }
  })
})
