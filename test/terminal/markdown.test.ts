import { describe, expect, test } from "bun:test"
import { markdownStream, renderMarkdown } from "../../src/terminal/markdown.ts"
import { makeStyle } from "../../src/terminal/style.ts"

const color = makeStyle(true)
const plain = makeStyle(false)
const strip = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, "")

describe("Markdown in the terminal", () => {
  const text = "# Title\nSome **bold**, *italic* and `a*b*c` code.\n- item [docs](https://x.dev)\n```ts\nconst a = **b**\n```\n> quoted"

  test("rendered with colour: markers gone, code left alone inside fences and spans", () => {
    const out = renderMarkdown(text, color)
    expect(out).not.toBe(strip(out))
    expect(strip(out).split("\n")).toEqual([
      "Title",
      "Some bold, italic and a*b*c code.",
      "• item docs (https://x.dev)",
      "```ts",
      "const a = **b**",
      "```",
      "│ quoted",
    ])
  })

  test("plain (piped, NO_COLOR): the text exactly as written", () => {
    expect(renderMarkdown(text, plain)).toBe(text)
  })

  test("streamed in pieces, lines render as they complete", () => {
    const out: Array<string> = []
    const stream = markdownStream(color, (t) => out.push(t))
    for (const piece of ["# Ti", "tle\n- a", "\nend"]) stream.push(piece)
    expect(out.map(strip)).toEqual(["Title\n", "• a\n"])
    stream.end()
    expect(strip(out.join(""))).toBe("Title\n• a\nend")
  })
})
