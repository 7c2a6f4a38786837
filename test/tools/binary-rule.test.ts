import { describe, expect, test } from "bun:test"
import { callTool, project, type CallOptions } from "../support/harness.ts"

/**
 * One rule for what is binary (a NUL byte in the first 64 KiB, ripgrep's
 * read buffer), shared by read, edit, patch and grep with either engine; a
 * NUL further on ends grep's search of the file there, as it ends ripgrep's.
 * list and glob never look inside files.
 */

const BUILTIN: CallOptions = { configOverrides: { tools: { grep: { engine: "builtin" } } } }
const utf16 = (text: string) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, "utf16le")])
const filler = (bytes: number) => "x\n".repeat(bytes / 2)

const files = {
  "head-nul.txt": Buffer.concat([Buffer.from("needle one\n"), Buffer.from([0]), Buffer.from("needle two\n")]),
  // Past the 8 KiB an earlier sniff looked at, inside ripgrep's first 64 KiB.
  "nul-at-10k.txt": Buffer.concat([Buffer.from("needle one\n"), Buffer.from(filler(10_000)), Buffer.from([0]), Buffer.from("\nneedle two\n")]),
  // ripgrep drops what it read in the same 64 KiB buffer as the NUL: the second needle is well before it.
  "nul-at-200k.txt": Buffer.concat([
    Buffer.from("needle one\n"),
    Buffer.from(filler(100_000)),
    Buffer.from("needle two\n"),
    Buffer.from(filler(100_000)),
    Buffer.from("\0needle three\nneedle four\n"),
  ]),
  "controls.txt": Buffer.concat([Buffer.from("needle one\n"), Buffer.from(Array.from({ length: 300 }, (_, i) => (i % 7) + 1)), Buffer.from("\n")]),
  "utf16.txt": utf16("needle one\r\nplain\r\n"),
  "utf16-nul.txt": utf16("needle one\r\n\0\r\n"),
}

const BINARY = ["head-nul.txt", "nul-at-10k.txt", "utf16-nul.txt"]
const TEXT = ["nul-at-200k.txt", "controls.txt", "utf16.txt"]

type Hit = { file: string; line: number }

describe("binary files: one rule for read, edit, patch and grep", () => {
  test("read and edit refuse exactly the files grep skips; grep (both engines) stops at a later NUL", async () => {
    const root = project(files, { marker: false })
    for (const name of BINARY) {
      expect((await callTool(root, "read", { path: name })).envelope.error?.code).toBe("BINARY_FILE")
      const edit = (await callTool(root, "edit", { path: name, old_string: "needle one", new_string: "pin one" })).envelope
      expect(edit.status).toBe("error")
      expect(edit.error?.message).toContain("binary")
    }
    for (const name of TEXT) expect((await callTool(root, "read", { path: name })).envelope.error).toBeUndefined()

    for (const options of [{}, BUILTIN]) {
      const grep = (await callTool(root, "grep", { pattern: "needle", output_mode: "content" }, options)).envelope
      const hits = (grep.data.matches as Array<Hit>).map((m) => `${m.file}:${m.line}`).sort()
      // The late NUL: the lines before its own line were searched, nothing from it on.
      expect(hits).toEqual(["controls.txt:1", "nul-at-200k.txt:1", "nul-at-200k.txt:50002", "utf16.txt:1"])
      expect(grep.data.warnings).toEqual([expect.stringContaining("nul-at-200k.txt: searched up to a NUL byte at offset 200022")])
      // A binary file named alone is refused with its own code, the same files read refuses.
      for (const name of BINARY) {
        const one = (await callTool(root, "grep", { pattern: "needle", path: name }, options)).envelope
        expect(one.error?.code).toBe("BINARY_FILE")
      }
      const late = (await callTool(root, "grep", { pattern: "needle", path: "nul-at-200k.txt", output_mode: "content" }, options)).envelope
      expect((late.data.matches as Array<Hit>).map((m) => m.line)).toEqual([1, 50002])
    }

    // A file with control characters but no NUL is text to edit too.
    const edited = (await callTool(root, "edit", { path: "controls.txt", old_string: "needle one", new_string: "pin one" })).envelope
    expect(edited.status).toBe("success")
  })

  test("list and glob show every file, binary or not", async () => {
    const root = project(files, { marker: false })
    const glob = (await callTool(root, "glob", { pattern: "*.txt" })).envelope
    expect((glob.data.paths as Array<string>).sort()).toEqual(Object.keys(files).sort())
    const list = (await callTool(root, "list", {})).envelope
    expect((list.data.entries as Array<{ name: string }>).map((e) => e.name).sort()).toEqual(Object.keys(files).sort())
  })
})
