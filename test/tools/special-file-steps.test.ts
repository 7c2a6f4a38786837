import { describe, expect, test } from "bun:test"
import { execFileSync } from "node:child_process"
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import { join } from "node:path"
import { runBinary } from "../support/binary.ts"
import { project, tempDir } from "../support/harness.ts"

/**
 * What a file tool cannot read or change (a socket, a FIFO, a folder, a file over a limit) is named for what it
 * is, as INVALID_PARAM (or IS_DIRECTORY) on the parameter that named it, with a next step, through the binary;
 * never an EXECUTION_ERROR quoting the system's words and the machine's absolute path.
 */

const call = async (root: string, name: string, params: unknown) => {
  const r = await runBinary(["tool", name, JSON.stringify(params)], { cwd: root, env: { HOME: tempDir("anvil-home-") } })
  const envelope = JSON.parse(r.stdout)
  const step = (envelope.text as string).match(/Recommended next step \(token-efficient\):\n\* (.*)/)?.[1] ?? (envelope.text as string).match(/\nNext step: (.*)$/)?.[1]
  return { code: r.code, envelope, step }
}

const withSocket = async (root: string, run: () => Promise<void>) => {
  const server = createServer()
  await new Promise<void>((done) => server.listen(join(root, "sock"), done))
  try {
    await run()
  } finally {
    await new Promise<void>((done) => server.close(() => done()))
  }
}

describe("special files", () => {
  test("a socket: INVALID_PARAM on the parameter that named it, for every file tool", async () => {
    const root = project({ "a.txt": "a\n" })
    await withSocket(root, async () => {
      const cases: Array<[string, unknown, string]> = [
        ["read", { path: "sock" }, 'Read(path="<correct_value>")'],
        ["write", { path: "sock", content: "x" }, 'Write(path="<correct_value>")'],
        ["edit", { path: "sock", old_string: "x", new_string: "y" }, 'Edit(path="<correct_value>")'],
        ["multiedit", { path: "sock", edits: [{ old_string: "x", new_string: "y" }] }, 'MultiEdit(path="<correct_value>")'],
        ["patch", { patch: "--- a/sock\n+++ b/sock\n@@ -1 +1 @@\n-x\n+y\n" }, 'Patch(patch="<correct_value>")'],
      ]
      for (const [name, params, step] of cases) {
        const r = await call(root, name, params)
        expect({ name, code: r.code, error: r.envelope.error.code, message: r.envelope.error.message, step: r.step }).toEqual({
          name,
          code: 1,
          error: "INVALID_PARAM",
          message: "sock is not a regular file (a socket, or a device with nothing behind it).",
          step,
        })
        expect(r.envelope.error.field_errors).toEqual([{ field: name === "patch" ? "patch" : "path", message: "not a regular file" }])
      }
    })
  })

  test("patch: a FIFO, a folder and a file over the limit each end with a next step; nothing is changed", async () => {
    const root = project({ "a.txt": "a\n", "anvil.json": JSON.stringify({ tools: { patch: { max_file_bytes: 10 } } }) })
    execFileSync("mkfifo", [join(root, "ff")])
    mkdirSync(join(root, "dd"))
    writeFileSync(join(root, "big.txt"), "x\n".repeat(20))
    const diff = (f: string) => ({ patch: `--- a/${f}\n+++ b/${f}\n@@ -1 +1 @@\n-x\n+y\n` })
    expect(await call(root, "patch", diff("ff"))).toMatchObject({ code: 1, envelope: { error: { code: "INVALID_PARAM" } }, step: `Bash(command="ls -ld 'ff'")` })
    expect(await call(root, "patch", diff("dd"))).toMatchObject({ code: 1, envelope: { error: { code: "IS_DIRECTORY" } }, step: 'LS(path="dd")' })
    expect(await call(root, "patch", diff("big.txt"))).toMatchObject({
      code: 1,
      envelope: { error: { code: "INVALID_PARAM" } },
      step: "raise tools.patch.max_file_bytes in anvil.json, or apply the patch with git apply through Bash.",
    })
    expect(readFileSync(join(root, "big.txt"), "utf8")).toBe("x\n".repeat(20))
  })
})
