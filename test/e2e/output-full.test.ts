import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { runProcess } from "../support/anvil-cli.ts"
import { anvilBinary } from "../support/binary.ts"
import { project } from "../support/harness.ts"

// Standard output that cannot take the answer (a full disk: /dev/full answers every write with ENOSPC) is not
// a reader that left: the answer is lost, so the command says so on stderr and does not exit 0. Before, `anvil
// tool read … > /dev/full` exited 0 having written nothing, and `anvil --version > /dev/full` died with a stack trace.
setDefaultTimeout(60_000)
beforeAll(() => void anvilBinary(), 120_000)

const shell = async (root: string, script: string) => {
  const r = await runProcess(["bash", "-c", `${script} 2>anvil.err; echo "status=\${PIPESTATUS[0]}"`], { cwd: root, env: { ANVIL: anvilBinary(), HOME: root } })
  return { status: Number(/status=(\d+)/.exec(r.stdout)?.[1]), stdout: r.stdout, stderr: readFileSync(join(root, "anvil.err"), "utf8") }
}

describe("standard output that cannot be written", () => {
  test("anvil tool, anvil tools, --version and --help on a full disk: one line on stderr, exit 1, no stack trace", async () => {
    const root = project({ "a.txt": "hello\n" })
    const cases: ReadonlyArray<string> = [`tool read '{"path":"a.txt"}'`, `tool read --path a.txt --text`, "tools", "--version", "--help"]
    for (const args of cases) {
      const r = await shell(root, `"$ANVIL" ${args} >/dev/full`)
      expect({ args, status: r.status }).toEqual({ args, status: 1 })
      expect(r.stderr).toContain("anvil: standard output could not be written (ENOSPC")
      expect(r.stderr).not.toMatch(/^\s+at .+:\d+/m)
    }
    // A failing call keeps its own exit code.
    expect((await shell(root, `"$ANVIL" tool read '{"path":"missing.txt"}' >/dev/full`)).status).toBe(1)
  })

  test("a reader that left (| head -c 1) still ends quietly with the usual exit code", async () => {
    const root = project({ "a.txt": "hello\n" })
    writeFileSync(join(root, "big.txt"), "line\n".repeat(100_000))
    for (const args of [`tool read '{"path":"big.txt","limit":200}'`, "--help", "--version"]) {
      const r = await shell(root, `"$ANVIL" ${args} | head -c 1`)
      expect({ args, status: r.status, stderr: r.stderr }).toEqual({ args, status: 0, stderr: "" })
    }
  })
})
