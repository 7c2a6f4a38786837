import { describe, expect, test } from "bun:test"
import { Effect, Layer } from "effect"
import { closeSync, openSync, readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { OutputSettings } from "../../src/output/output-settings.ts"
import { asLines, SpillStore } from "../../src/output/spill-store.ts"
import { cutBytes, truncateText, utf8Length, type TruncateDirection } from "../../src/output/truncate.ts"
import { Utf8Writer, writeJson } from "../../src/output/utf8-writer.ts"
import { renderErrorText, renderResultText } from "../../src/protocol/render.ts"
import { PlatformLive } from "../../src/runtime.ts"
import { tempDir } from "../support/harness.ts"

// The spill and truncation layer writes and measures big outputs without building them whole again;
// these pin that every answer stays byte for byte what the plain forms give: JSON.stringify(value, null, 2),
// TextEncoder, split("\n"), /\s+$/.

/** A seeded generator, so a failure can be replayed. */
const random = (seed: number) => () => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff
  return seed / 0x80000000
}

/** Text mixing ASCII, Latin-1, CJK, emoji pairs, lone surrogates, quotes, backslashes, control characters and newlines. */
const mixedText = (rand: () => number, length: number): string => {
  const atoms = ["a", "line", " ", "\n", "\n\n", "é", "✓", "😀", "\ud800", "\udc00", '"', "\\", "\t", "\u0001", "\u2028", "\r\n", "字"]
  let s = ""
  while (s.length < length) s += atoms[Math.floor(rand() * atoms.length)]!
  return s
}

const written = (fill: (out: Utf8Writer) => void): Buffer => {
  const file = join(tempDir(), "out")
  const fd = openSync(file, "w")
  try {
    const out = new Utf8Writer(fd)
    fill(out)
    out.flush()
  } finally {
    closeSync(fd)
  }
  return readFileSync(file)
}

const utf8 = (s: string) => Buffer.from(new TextEncoder().encode(s))

describe("Utf8Writer: the bytes of TextEncoder, written in pieces", () => {
  test("surrogate pairs on every piece boundary, lone surrogates, Latin-1 and long strings", () => {
    const rand = random(7)
    const piece = 1 << 16
    const pairAcross = "x".repeat(piece - 1) + "😀" + "é".repeat(piece) + "\ud83d" // a pair straddles the boundary, a lone half ends it
    for (const s of ["", "a", "\ud800", pairAcross, mixedText(rand, 300_000), "ÿ".repeat(3 * piece + 5)]) {
      expect(written((out) => out.write(s)).equals(utf8(s))).toBe(true)
      expect(written((out) => out.writeJsonString(s)).equals(utf8(JSON.stringify(s)))).toBe(true)
    }
    expect(utf8Length(pairAcross)).toBe(utf8(pairAcross).length)
  })
})

describe("writeJson: JSON.stringify(value, null, 2), byte for byte", () => {
  const same = (value: unknown) => expect(written((out) => writeJson(out, value)).toString("utf8")).toBe(JSON.stringify(value, null, 2))

  test("an envelope whose text ends with its data.content (escaped once, written twice)", () => {
    const rand = random(11)
    const content = mixedText(rand, 200_000)
    same({ status: "success", data: { content, files: [{ path: "a", n: 1 }] }, text: `# GitDiff\n\n3 files\n\n${content}`, stats: { time_ms: 3 } })
    // The text is the content itself; or ends with it after a high surrogate that pairs with the content's first half.
    same({ data: { content }, text: content })
    const low = "\udc00" + content
    same({ data: { content: low }, text: `head\ud83d${low}` })
    // Ends with it only almost: the last character differs.
    same({ data: { content }, text: `x${content.slice(0, -1)}!` })
  })

  test("long strings at every depth, in arrays, beside keys that need care", () => {
    const rand = random(13)
    const long = mixedText(rand, 70_000)
    const proto = JSON.parse(`{"__proto__": ${JSON.stringify(long)}, "b": 1}`)
    same(long)
    same({ a: { b: { c: { d: long } } }, list: [long, long], proto, missing: undefined, n: null })
    same({ toJSON: () => ({ replaced: long }) })
    same({ withToJSON: { toJSON: () => long }, date: new Date(0), nested: Object.assign(Object.create(null), { long }) })
    // A string of the document's own that looks like a placeholder.
    same({ text: long, fake: `"\u0000${"0".repeat(36)}:0"`, other: "\u0000x:0" })
  })
})

/** The truncation as it was first written (whole-text split and encode): the reference the streamed one must match. */
const referenceTruncate = (text: string, limits: { maxLines: number; maxBytes: number; direction: TruncateDirection }) => {
  const enc = new TextEncoder()
  const bytesOf = (s: string) => enc.encode(s).length
  // Whole characters from the kept end while they fit (a lone surrogate becomes U+FFFD, as the encoding makes it).
  const refCut = (s: string, maxBytes: number, fromEnd: boolean) => {
    if (bytesOf(s) <= maxBytes) return s
    const chars = Array.from(s, (c) => new TextDecoder().decode(enc.encode(c)))
    const kept: Array<string> = []
    let used = 0
    for (const c of fromEnd ? chars.reverse() : chars) {
      if ((used += bytesOf(c)) > maxBytes) break
      kept.push(c)
    }
    return (fromEnd ? kept.reverse() : kept).join("")
  }
  const countLines = (s: string) => (s === "" ? 0 : s.split("\n").length - (s.endsWith("\n") ? 1 : 0))
  // Lines from one end while the joined lines fit; the first line cut when even it does not, and a
  // later line longer than the whole budget cut to the room left.
  const take = (lines: ReadonlyArray<string>, maxLines: number, maxBytes: number, fromEnd: boolean) => {
    const out: Array<string> = []
    for (const line of (fromEnd ? [...lines].reverse() : lines).slice(0, maxLines)) {
      if (bytesOf([...out, line].join("\n")) <= maxBytes) out.push(line)
      else {
        const room = maxBytes - bytesOf(out.join("\n")) - (out.length > 0 ? 1 : 0)
        if (out.length === 0 || (room > 0 && bytesOf(line) > maxBytes)) out.push(refCut(line, room, fromEnd))
        break
      }
    }
    return fromEnd ? out.reverse() : out
  }
  // Whole lines kept from the start: a last line that had to be cut is not whole.
  const wholeFromStart = (head: ReadonlyArray<string>) => (head.length > 0 && head.at(-1) !== lines[head.length - 1] ? head.length - 1 : head.length)
  const originalBytes = bytesOf(text)
  const originalLines = countLines(text)
  if (originalLines <= limits.maxLines && originalBytes <= limits.maxBytes) {
    return { truncated: false, text, originalLines, originalBytes, keptLines: originalLines, keptBytes: originalBytes, resumeAt: originalLines }
  }
  const lines = text.split("\n")
  if (text.endsWith("\n")) lines.pop()
  if (limits.direction === "head_tail") {
    const head = take(lines, Math.ceil(limits.maxLines / 2), Math.floor(limits.maxBytes / 2), false)
    const tail = take(lines.slice(head.length), Math.floor(limits.maxLines / 2), Math.floor(limits.maxBytes / 2), true)
    const omitted = lines.length - head.length - tail.length
    const kept = [...head, `… [${omitted} line${omitted === 1 ? "" : "s"} omitted] …`, ...tail].join("\n")
    return { truncated: true, text: kept, originalLines, originalBytes, keptLines: head.length + tail.length, keptBytes: bytesOf(kept), resumeAt: wholeFromStart(head) }
  }
  const fromEnd = limits.direction === "tail"
  const head = take(lines, limits.maxLines, limits.maxBytes, fromEnd)
  const kept = head.join("\n")
  return { truncated: true, text: kept, originalLines, originalBytes, keptLines: countLines(kept), keptBytes: bytesOf(kept), resumeAt: fromEnd ? 0 : wholeFromStart(head) }
}

describe("truncateText reads only the kept lines, with the counts of a whole split", () => {
  test("random texts, budgets and directions", () => {
    const rand = random(17)
    const texts = ["", "\n", "\n\n", "a", "a\n", "\nabc", "x".repeat(5000), "😀".repeat(3000) + "\n", "é\ud800".repeat(2000)]
    for (let i = 0; i < 60; i++) texts.push(mixedText(rand, Math.floor(rand() * 20_000)))
    for (const text of texts) {
      for (const direction of ["head", "tail", "head_tail"] as const) {
        const limits = { maxLines: 1 + Math.floor(rand() * 40), maxBytes: 1 + Math.floor(rand() * 3000), direction }
        expect(truncateText(text, limits)).toEqual(referenceTruncate(text, limits))
      }
    }
  })

  test("a single huge line is cut from the kept end only, at a character boundary", () => {
    const line = "😀é".repeat(30_000)
    for (const max of [1, 2, 3, 4, 5, 6, 7, 51_200]) {
      for (const fromEnd of [false, true]) {
        const ref = referenceTruncate(line, { maxLines: 10, maxBytes: max, direction: fromEnd ? "tail" : "head" })
        expect(cutBytes(line, max, fromEnd)).toBe(ref.text)
      }
    }
  })
})

describe("rendering trims the body as /\\s+$/ did", () => {
  test("every whitespace character, and none", () => {
    for (let c = 0; c <= 0xffff; c++) {
      const ch = String.fromCharCode(c)
      const body = `body${ch}${ch}`
      expect(renderResultText("T", body, "success", [])).toBe(`# T\n\n${body.replace(/\s+$/, "")}`)
    }
    const details = `${"x".repeat(100_000)}\n \t`
    expect(renderErrorText("T", { code: "INTERNAL_ERROR", message: "m" }, [], details)).toContain(`${"x".repeat(10)}`)
    expect(renderErrorText("T", { code: "INTERNAL_ERROR", message: "m" }, [], details).endsWith("x")).toBe(true)
  })
})

describe("SpillStore.spill", () => {
  const withStore = <A, E>(dir: string, body: (store: SpillStore["Service"]) => Effect.Effect<A, E>) => {
    const settings = Layer.succeed(OutputSettings, { maxLines: 2000, maxBytes: 51200, direction: "head", dir, retentionDays: 7 })
    return Effect.runPromise(
      Effect.gen(function* () {
        return yield* body(yield* SpillStore)
      }).pipe(Effect.provide(SpillStore.layer.pipe(Layer.provide(settings))), Effect.provide(PlatformLive)),
    )
  }

  test("writes the value's JSON and its text beside it", async () => {
    const dir = tempDir()
    const text = mixedText(random(19), 150_000)
    const envelope = { status: "partial", data: { content: text.slice(9) }, text }
    const files = await withStore(dir, (store) => store.spill("Git Diff", envelope, text))
    expect(readFileSync(files.json, "utf8")).toBe(JSON.stringify(envelope, null, 2))
    expect(readFileSync(files.text!).equals(utf8(text))).toBe(true)
    expect(files.json.endsWith("_Git_Diff.json") && files.text!.endsWith("_Git_Diff.output.txt")).toBe(true)
  })

  test("asLines: a text of lines ends with exactly one line break", () => {
    expect([asLines("a\nb"), asLines("c\n"), asLines("")]).toEqual(["a\nb\n", "c\n", ""])
  })

  test("a value that cannot be written leaves no file behind", async () => {
    const dir = tempDir()
    const value = {
      get broken(): string {
        throw new Error("no JSON for this")
      },
    }
    const outcome = await withStore(dir, (store) => Effect.result(store.spill("Read", value, "text")))
    expect(outcome._tag).toBe("Failure")
    expect(readdirSync(dir).filter((n) => n.startsWith("tool_"))).toEqual([])
  })
})
