import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { execFileSync } from "node:child_process"
import { join } from "node:path"
import { readWindow, type ReadRequest } from "../../src/files/read-window.ts"
import { FileLedger } from "../../src/workspace/file-ledger.ts"
import { project, session } from "../support/harness.ts"

const LIMITS = { defaultLimit: 50, maxLimit: 200, maxLineLength: 2000, countMaxBytes: 10_000_000, utf16MaxBytes: 1_000_000, maxBytes: 50_000 }
const ask = (path: string, more: Partial<ReadRequest> = {}): ReadRequest => ({ ...LIMITS, path, offset: 0, limit: undefined, ...more })
const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join("\n") + "\n"

describe("readWindow (files domain)", () => {
  const root = project({
    "many.txt": lines(120),
    "crlf.txt": "a\r\nb\r\n",
    "nonl.txt": "x\ny",
    "bin.dat": new Uint8Array([1, 2, 0, 3]),
    "u16.txt": new Uint8Array([0xff, 0xfe, 0x68, 0, 0x69, 0, 0x0a, 0]),
    "dir/a.txt": "a\n",
    "long.txt": `${"é".repeat(30)}\n`,
  })
  const s = session(root, { enforceReads: true })
  const read = (path: string, more: Partial<ReadRequest> = {}) => s.run(readWindow(ask(path, more)))
  const failure = (path: string, more: Partial<ReadRequest> = {}) => s.run(Effect.flip(readWindow(ask(path, more))))

  test("a window from the start: numbered lines, the total, the next offset; the ledger records what was read", async () => {
    const w = await read("many.txt", { offset: 10, limit: 3 })
    expect(w.content).toBe("    11\tline 11\n    12\tline 12\n    13\tline 13")
    expect(w).toMatchObject({ shown: "many.txt", first: 11, count: 3, total: 120, hasMore: true, hasBefore: true, nextOffset: 13, prevOffset: 7 })
    expect(w).toMatchObject({ encoding: "utf-8", bom: false, lineEnding: "lf", finalNewline: true, stoppedByBytes: false, cutLines: 0 })
    const known = await s.run(Effect.flatMap(FileLedger, (l) => l.lastSeen(join(root, "many.txt"))))
    expect(known?.size).toBe(lines(120).length)
    expect(known?.sha256).toBeUndefined()
  })

  test("a whole file is hashed for the edit tools; a negative offset reads from the end", async () => {
    await read("crlf.txt")
    const known = await s.run(Effect.flatMap(FileLedger, (l) => l.lastSeen(join(root, "crlf.txt"))))
    expect(known?.sha256).toMatch(/^[0-9a-f]{64}$/)
    const tail = await read("many.txt", { offset: -2 })
    expect(tail).toMatchObject({ first: 119, count: 2, total: 120, hasMore: false, content: "   119\tline 119\n   120\tline 120" })
  })

  test("format facts: CRLF endings, no final newline, UTF-16 decoded, long lines cut on a character", async () => {
    expect(await read("crlf.txt")).toMatchObject({ lineEnding: "crlf", content: "     1\ta\n     2\tb" })
    expect(await read("nonl.txt")).toMatchObject({ finalNewline: false, count: 2 })
    expect(await read("u16.txt")).toMatchObject({ encoding: "utf-16le", bom: true, content: "     1\thi" })
    const cut = await read("long.txt", { maxLineLength: 10 })
    expect(cut.cutLines).toBe(1)
    expect(cut.content).toBe(`     1\t${"é".repeat(10)}… [line cut: characters 1-10 of 30; the rest from column=10]`)
  })

  test("the byte budget ends a window early", async () => {
    const w = await read("many.txt", { limit: 100, maxBytes: 100 })
    expect(w.stoppedByBytes).toBe(true)
    expect(w.count).toBeLessThan(100)
  })

  test("tagged errors: not found (with similar paths), a folder, binary, past the end, UTF-16 too large, not a regular file", async () => {
    expect(await failure("many.tx")).toMatchObject({ _tag: "PathNotFound", kind: "file", shown: "many.tx", suggestions: ["many.txt"], why: "" })
    expect(await failure("dir")).toMatchObject({ _tag: "IsAFolder", shown: "dir" })
    expect(await failure("bin.dat")).toMatchObject({ _tag: "BinaryFile", shown: "bin.dat", size: 4 })
    expect(await failure("many.txt", { offset: 500 })).toMatchObject({ _tag: "LinesPastEnd", offset: 500, total: 120, lastWindow: -50 })
    expect(await failure("u16.txt", { utf16MaxBytes: 4 })).toMatchObject({ _tag: "Utf16TooLarge", size: 8, limit: 4 })
    execFileSync("mkfifo", [join(root, "fifo")])
    expect(await failure("fifo")).toMatchObject({ _tag: "NotARegularFile", shown: "fifo", type: "FIFO" })
  })
})
