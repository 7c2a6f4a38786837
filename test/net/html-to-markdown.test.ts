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
