import { describe, expect, test } from "bun:test"
import { eachIndexEntry } from "../../src/workspace/index-entries.ts"

// A cut or corrupt index (a command may write .git/index) ends the walk where it breaks: before, a path with no NUL
// after it sent the walk back to the file's start, and a count of 2^32-1 then kept anvil busy until memory ran out.
const header = (version: number, count: number) => {
  const b = new Uint8Array(12)
  b.set(new TextEncoder().encode("DIRC"))
  new DataView(b.buffer).setUint32(4, version)
  new DataView(b.buffer).setUint32(8, count)
  return b
}
const corrupt = (version: number, body: Uint8Array) => {
  const b = new Uint8Array(12 + body.length)
  b.set(header(version, 0xffffffff))
  b.set(body, 12)
  return b
}

describe("eachIndexEntry on a corrupt index", () => {
  for (const version of [2, 3, 4]) {
    test(`version ${version}: a path with no NUL after it ends the walk`, () => {
      const seen: Array<string> = []
      const count = eachIndexEntry(corrupt(version, new Uint8Array(200).fill(1)), (e) => void seen.push(new TextDecoder().decode(e.path)))
      expect(count).toBe(0xffffffff)
      expect(seen).toEqual([])
    })
  }

  test("version 4: a prefix that strips more than the previous path ends the walk", () => {
    const body = new Uint8Array(200)
    // The entry's strip count (0x7f) comes right after its 62 fixed bytes; the previous path is empty.
    body[62] = 0x7f
    body.fill(0x61, 63, 70)
    const seen: Array<string> = []
    eachIndexEntry(corrupt(4, body), (e) => void seen.push(new TextDecoder().decode(e.path)))
    expect(seen).toEqual([])
  })

  test("a whole entry before the break is still visited", () => {
    const entry = new Uint8Array(72)
    new DataView(entry.buffer).setUint16(60, 5)
    entry.set(new TextEncoder().encode("a.txt"), 62)
    const tail = new Uint8Array(100).fill(1)
    const bytes = new Uint8Array(12 + entry.length + tail.length)
    bytes.set(header(2, 0xffffffff))
    bytes.set(entry, 12)
    bytes.set(tail, 12 + entry.length)
    const seen: Array<string> = []
    eachIndexEntry(bytes, (e) => void seen.push(new TextDecoder().decode(e.path)))
    expect(seen).toEqual(["a.txt"])
  })
})
