import { describe, expect, test } from "bun:test"
import { chmodSync, chownSync, copyFileSync, existsSync, mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { anvilBinary } from "../support/binary.ts"
import { runProcess } from "../support/anvil-cli.ts"
import { tempDir } from "../support/temp-dirs.ts"

/**
 * Files and folders the operating system will not let anvil read are a
 * partial failure of a search (status partial, data.failed_items, the
 * text says so), never a silent success. Through the binary, as a user that
 * cannot read them: as root (which reads everything) the binary runs as
 * nobody.
 */

const NOBODY = 65534
const asRoot = process.getuid?.() === 0
const canDrop = !asRoot || existsSync("/usr/bin/setpriv")

const fixture = () => {
  const top = tempDir("anvil-unreadable-")
  chmodSync(top, 0o755)
  // The binary is built into a private folder: a copy the other user may run.
  const bin = join(top, "anvil")
  copyFileSync(anvilBinary(), bin)
  chmodSync(bin, 0o755)
  const root = join(top, "p")
  mkdirSync(join(root, "locked"), { recursive: true })
  mkdirSync(join(top, "home"))
  writeFileSync(join(root, "anvil.json"), "{}\n")
  writeFileSync(join(root, "ok.txt"), "foo ok\n")
  writeFileSync(join(root, "unread.txt"), "foo hidden\n")
  writeFileSync(join(root, "locked", "x.txt"), "foo locked\n")
  if (asRoot) for (const p of [root, join(root, "locked"), join(top, "home"), ...["anvil.json", "ok.txt", "unread.txt", "locked/x.txt"].map((f) => join(root, f))]) chownSync(p, NOBODY, NOBODY)
  chmodSync(join(root, "unread.txt"), 0)
  chmodSync(join(root, "locked"), 0)
  const tool = async (name: string, params: Record<string, unknown>, engine: "auto" | "builtin" = "auto") => {
    writeFileSync(join(root, "anvil.json"), JSON.stringify({ tools: { grep: { engine } } }))
    const drop = asRoot ? ["/usr/bin/setpriv", `--reuid=${NOBODY}`, `--regid=${NOBODY}`, "--clear-groups"] : []
    const r = await runProcess([...drop, bin, "tool", name, JSON.stringify(params)], { cwd: root, env: { HOME: join(top, "home") } })
    return JSON.parse(r.stdout)
  }
  return { tool }
}

describe.skipIf(!canDrop)("unreadable files and folders are a partial failure, never a silent success", () => {
  test("grep (both engines): status partial, data.failed_items names them, the text says so; the rest is answered", async () => {
    const { tool } = fixture()
    for (const engine of ["auto", "builtin"] as const) {
      const e = await tool("grep", { pattern: "foo" }, engine)
      expect({ engine, status: e.status }).toEqual({ engine, status: "partial" })
      expect(e.data.matches).toEqual([{ file: "ok.txt", line: 1, text: "foo ok" }])
      expect([...e.data.failed_items].sort()).toEqual(["locked", "unread.txt"])
      expect(e.text).toContain("(2 files or folders could not be read and are left out: ")
      // The next step looks at why: the owner and mode of what could not be read.
      expect(e.text).toMatch(/\* Bash\(command="ls -ld '(locked|unread\.txt)' '(locked|unread\.txt)'"\)/)
      const files = await tool("grep", { pattern: "foo", output_mode: "files_with_matches" }, engine)
      expect(files.status).toBe("partial")
      expect(files.data.files).toEqual(["ok.txt"])
    }
    // Naming the unreadable file itself is an error, as read's.
    expect((await tool("grep", { pattern: "foo", path: "unread.txt" })).error.code).toBe("PERMISSION_DENIED")
  })

  test("a file or folder the system refuses is PERMISSION_DENIED with a look at its owner and mode as the next step", async () => {
    const { tool } = fixture()
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ["read", { path: "unread.txt" }, "ls -ld 'unread.txt'"],
      ["grep", { pattern: "foo", path: "unread.txt" }, "ls -ld 'unread.txt'"],
      ["edit", { path: "unread.txt", old_string: "foo", new_string: "bar" }, "ls -ld 'unread.txt'"],
      ["list", { path: "locked" }, "ls -ld 'locked'"],
      // A file that cannot be made does not exist: its folder is named too.
      ["write", { path: "locked/new.txt", content: "x" }, "ls -ld 'locked/new.txt' 'locked'"],
    ]
    for (const [name, params, command] of cases) {
      const e = await tool(name, params)
      expect({ name, code: e.error?.code }).toEqual({ name, code: "PERMISSION_DENIED" })
      expect(e.text).toContain(`Recommended next step (token-efficient):\n* Bash(command=${JSON.stringify(command)})`)
    }
  })

  test("glob: a folder it could not read makes the answer partial and is named", async () => {
    const { tool } = fixture()
    const e = await tool("glob", { pattern: "**/*.txt" })
    expect(e.status).toBe("partial")
    expect(e.data.paths).toEqual(["ok.txt", "unread.txt"])
    expect(e.data.unreadable).toEqual(["locked"])
    expect(e.text).toContain("Could not read 1 folder(s): locked")
    expect(e.text).toContain(`* Bash(command="ls -ld 'locked'")`)
  })
})
