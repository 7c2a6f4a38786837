import { describe, expect, test } from "bun:test"
import { decodeEntities, htmlToMarkdown } from "../../src/net/html-to-markdown.ts"

const md = (html: string, base = "https://example.test/docs/page.html") => htmlToMarkdown(html, base).markdown

describe("htmlToMarkdown", () => {
  test("headings, paragraphs, emphasis, inline code and absolute links", () => {
    expect(md('<h2>Title  here</h2><p>Some <strong>bold</strong> and <em>soft</em> text with <code>x()</code> and a <a href="../api">link</a>.</p>')).toBe(
      "## Title here\n\nSome **bold** and *soft* text with `x()` and a [link](https://example.test/api).",
    )
  })

  test("scripts, styles, navigation and comments are dropped; the title heads the page", () => {
    const out = md("<html><head><title>T &amp; C</title><style>a{}</style></head><body><nav>Menu</nav><!-- hidden --><script>let a = '<b>x</b>'</script><p>Body</p></body></html>")
    expect(out).toBe("# T & C\n\nBody")
  })

  test("nested and numbered lists, unclosed <li> and <p>", () => {
    expect(md("<ul><li>a<li>b<ul><li>b1</ul><li>c</ul><ol start=5><li>five<li>six</ol><p>one<p>two")).toBe(
      "- a\n- b\n  - b1\n- c\n\n5. five\n6. six\n\none\n\ntwo",
    )
  })

  test("code blocks keep their text and language; block quotes; rules; images", () => {
    expect(md('<pre><code class="language-py">def f():\n    return 1 &lt; 2</code></pre><blockquote><p>q1</p><p>q2</p></blockquote><hr><img src="/i.png" alt="Pic">')).toBe(
      "```py\ndef f():\n    return 1 < 2\n```\n\n> q1\n>\n> q2\n\n---\n\n![Pic](https://example.test/i.png)",
    )
  })

  test("tables become pipe tables (pipes in cells escaped)", () => {
    expect(md("<table><thead><tr><th>k</th><th>v</th></tr></thead><tbody><tr><td>a</td><td>1|2</td></tr><tr><td>b</td></tr></tbody></table>")).toBe(
      "| k | v |\n| --- | --- |\n| a | 1\\|2 |\n| b |  |",
    )
  })

  test("entities, numeric references and <base href>", () => {
    expect(decodeEntities("&lt;a&gt; &#65;&#x42; &hellip; &unknown;")).toBe("<a> AB … &unknown;")
    expect(md('<base href="https://cdn.example.test/x/"><a href="y">y</a>')).toBe("[y](https://cdn.example.test/x/y)")
  })
})

/** A small seeded generator (mulberry32): the same documents every run. */
const random = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

const TAGS = ["div", "section", "article", "main", "p", "ul", "ol", "li", "h2", "pre", "code", "a", "em", "strong", "table", "tr", "td", "th", "blockquote", "dl", "dt", "dd", "span", "br", "hr", "img", "figure", "header", "nav", "details", "summary"]
const TEXTS = ["plain words", "  spaced   out  ", "a &amp; b", "x < y", "line\nbreak", "|pipe|", "`tick`", "", "é ü"]

/** Random, often misnested and unclosed HTML, as pages in the wild are. */
const randomHtml = (next: () => number, size: number): string => {
  const out: Array<string> = []
  const open: Array<string> = []
  for (let i = 0; i < size; i++) {
    const r = next()
    const tag = TAGS[Math.floor(next() * TAGS.length)]!
    if (r < 0.4) {
      const attrs = tag === "a" ? ` href="/p${i}"` : tag === "img" ? ` src="i${i}.png" alt="pic ${i}"` : tag === "ol" ? ` start="${i % 4}"` : tag === "code" ? ' class="language-ts"' : ""
      out.push(`<${tag}${attrs}>`)
      open.push(tag)
    } else if (r < 0.65 && open.length > 0) out.push(`</${open.pop()}>`)
    else if (r < 0.72) out.push(`</${tag}>`)
    else out.push(TEXTS[Math.floor(next() * TEXTS.length)]!)
  }
  if (next() < 0.5) while (open.length > 0) out.push(`</${open.pop()}>`)
  return out.join("")
}

describe("htmlToMarkdown: blocks converted as they close give the text of the whole tree", () => {
  test("2,000 random documents: the same Markdown either way", () => {
    const next = random(7)
    for (let n = 0; n < 2000; n++) {
      const html = `<html><head><title>T${n}</title></head><body>${randomHtml(next, 10 + Math.floor(next() * 120))}</body></html>`
      const early = htmlToMarkdown(html, "https://example.test/a/b.html")
      const late = htmlToMarkdown(html, "https://example.test/a/b.html", { convertEarly: false })
      if (early.markdown !== late.markdown) expect({ html, markdown: early.markdown }).toEqual({ html, markdown: late.markdown })
    }
  })

  test("a 2 MiB page: the same Markdown either way", () => {
    const section = (i: number) =>
      `<article><h2>Part ${i}</h2><p>Text <a href="x${i}">link</a>.</p><ul><li>one<li>two</ul><pre><code>code ${i}</code></pre><table><tr><td>a</td><td>${i}</td></tr></table></article>`
    const html = `<html><body><main>${Array.from({ length: 12_000 }, (_, i) => section(i)).join("\n")}</main></body></html>`
    expect(html.length).toBeGreaterThan(2 * 1024 * 1024)
    expect(htmlToMarkdown(html, "https://example.test/").markdown).toBe(htmlToMarkdown(html, "https://example.test/", { convertEarly: false }).markdown)
  })
})
