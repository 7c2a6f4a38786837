/**
 * HTML → Markdown for the fetch tool: anvil's converter (src/net/html-to-markdown.ts)
 * against turndown and node-html-markdown, on pages generated here that look like
 * what fetch meets (a documentation page, a blog post, an API reference, a Q&A
 * thread, and a large page for speed). Quality is a list of checks a model
 * reading the result depends on (list-marker spacing and similar style choices are
 * accepted either way); speed is the time per conversion as a ratio to
 * anvil's, measured in the same run. The libraries get the same help anvil's
 * converter has (scripts, styles, navigation dropped; relative links made
 * absolute; the page title as the first heading), so the comparison is of the
 * conversion itself.
 *
 *   bun bench/html-to-markdown.ts
 */
import { NodeHtmlMarkdown } from "node-html-markdown"
import TurndownService from "turndown"
import { htmlToMarkdown } from "../src/net/html-to-markdown.ts"

const BASE = "https://docs.example.com/guide/start.html"

const shell = (title: string, main: string) => `<!doctype html><html><head><title>${title}</title>
<meta charset="utf-8"><style>body { color: #333 } .nav { display: flex }</style>
<script>window.dataLayer = []; function trackUser(id) { return id < 3 && id > 1 }</script></head>
<body><nav class="nav"><a href="/">Home</a> <a href="/pricing">Pricing</a> <a href="/login">Log in</a></nav>
<div class="layout"><aside><ul><li><a href="intro.html">Intro</a></li></ul></aside>
<main>${main}</main></div>
<footer><p>&copy; 2026 Example Corp</p></footer><script src="/app.js"></script></body></html>`

const docs = shell(
  "Getting started",
  `<article><h1>Getting started</h1>
<p>Install the <strong>CLI</strong> with <code>pip install example</code>, then read the <a href="../reference/api.html">API reference</a>.</p>
<h2 id="install">Installation</h2>
<ol><li>Download the package.</li><li>Run the installer:<ul><li>on Linux: <code>./install.sh</code></li><li>on macOS: use <em>Homebrew</em></li></ul></li><li>Check the version.</li></ol>
<pre><code class="language-python">def greet(name):
    if len(name) &lt; 3:
        return "short &amp; sweet"
    return f"Hello, {name}"
</code></pre>
<h3>Options</h3>
<table><thead><tr><th>Option</th><th>Default</th><th>Meaning</th></tr></thead>
<tbody><tr><td><code>--verbose</code></td><td>off</td><td>Print more</td></tr><tr><td><code>--jobs N</code></td><td>4</td><td>Parallel jobs</td></tr></tbody></table>
<blockquote><p>Note: the installer needs network access.</p></blockquote>
</article>`,
)

const blog = shell(
  "Why we rewrote the parser",
  `<article><header><h1>Why we rewrote the parser</h1><p class="byline">By Ana &middot; March&nbsp;3, 2026</p></header>
<p>It&#8217;s been a long road &mdash; here&rsquo;s what we learned.<br>Second line of the intro.</p>
<figure><img src="/img/graph.png" alt="Latency before and after"><figcaption>Latency dropped by 40%.</figcaption></figure>
<hr>
<h2>The problem</h2><p>Parsing <em>nested</em> input was <b>slow</b>: see <a href="https://example.org/bug/42">bug 42</a>.</p>
<ul><li>Deep recursion</li><li>Quadratic <code>concat</code></li></ul></article>`,
)

const api = shell(
  "Reference: Client",
  `<h1>Client</h1><p>The <code>Client</code> class.</p>
<dl><dt><code>timeout</code></dt><dd>Seconds before a request fails.</dd><dt><code>retries</code></dt><dd>How often to retry.</dd></dl>
<h2>Methods</h2>
<ul><li><code>get(url)</code><ul><li>Returns a <code>Response</code>.<ul><li>Raises <code>HTTPError</code> on 4xx.</li></ul></li></ul></li></ul>
<pre>plain preformatted
    keeps   its spacing</pre>`,
)

const qa = shell(
  "How do I read a file line by line?",
  `<div class="question"><h1>How do I read a file line by line?</h1><p>I tried <kbd>Ctrl</kbd>+<kbd>C</kbd> and this:</p>
<pre><code>with open("f") as f:
    data = f.read()</code></pre></div>
<div class="answer"><p>Use iteration:</p><pre><code class="language-python">for line in open("f"):
    print(line.rstrip())</code></pre><p>See <a href="#docs">the docs</a> and <a href="/q/123">a related question</a>.</p></div>`,
)

/** What a model reading the result depends on, per page. */
const CHECKS: ReadonlyArray<{ readonly page: string; readonly html: string; readonly checks: ReadonlyArray<[string, (md: string) => boolean]> }> = [
  {
    page: "docs",
    html: docs,
    checks: [
      ["title heading", (md) => /^# Getting started$/m.test(md)],
      ["no script text", (md) => !md.includes("trackUser") && !md.includes("dataLayer")],
      ["no style text", (md) => !md.includes("display: flex")],
      ["no navigation links", (md) => !md.includes("Pricing")],
      ["h2 as ##", (md) => /^## Installation$/m.test(md)],
      ["h3 as ###", (md) => /^### Options$/m.test(md)],
      ["bold", (md) => md.includes("**CLI**")],
      ["inline code", (md) => md.includes("`pip install example`")],
      ["relative link made absolute", (md) => md.includes("(https://docs.example.com/reference/api.html)")],
      ["code fence with language", (md) => md.includes("```python\ndef greet(name):")],
      ["code indentation kept", (md) => md.includes("\n    if len(name) < 3:\n        return")],
      ["entities in code decoded", (md) => md.includes('"short & sweet"')],
      ["ordered list numbered", (md) => /^1\.\s+Download the package\.$/m.test(md) && /^3\.\s+Check the version\.$/m.test(md)],
      ["nested list indented", (md) => /^\s{2,}[-*]\s+on Linux: `\.\/install\.sh`$/m.test(md)],
      ["table header row", (md) => /^\|\s*Option\s*\|\s*Default\s*\|\s*Meaning\s*\|$/m.test(md)],
      ["table separator", (md) => /^\|\s*-{3,}\s*\|/m.test(md)],
      ["table cell with code", (md) => /^\|\s*`--verbose`\s*\|\s*off\s*\|/m.test(md)],
      ["block quote", (md) => /^> Note: the installer needs network access\.$/m.test(md)],
      ["no run of blank lines", (md) => !/\n{3,}/.test(md)],
    ],
  },
  {
    page: "blog",
    html: blog,
    checks: [
      ["named and numeric entities", (md) => md.includes("It’s been a long road — here’s what we learned.")],
      ["nbsp and middot", (md) => md.includes("Ana · March")],
      ["line break kept", (md) => /learned\.\s*\\?\n\s*Second line/.test(md)],
      ["image with alt, absolute", (md) => md.includes("![Latency before and after](https://docs.example.com/img/graph.png)")],
      ["figure caption text", (md) => md.includes("Latency dropped by 40%.")],
      ["horizontal rule", (md) => /^(---|\* \* \*|\*\*\*|___)$/m.test(md)],
      ["emphasis", (md) => /[_*]nested[_*]/.test(md)],
      ["b as bold", (md) => md.includes("**slow**")],
      ["absolute link kept", (md) => md.includes("[bug 42](https://example.org/bug/42)")],
      ["bullet list", (md) => /^[-*]\s+Deep recursion$/m.test(md)],
    ],
  },
  {
    page: "api",
    html: api,
    checks: [
      ["definition term", (md) => md.includes("`timeout`")],
      ["definition text on its own line", (md) => /`timeout`\s*\n+\s*:?\s*Seconds before a request fails\./.test(md)],
      ["three-level list", (md) => /^\s{4,}[-*]\s+Raises `HTTPError` on 4xx\.$/m.test(md)],
      ["pre without code fenced", (md) => /```\s*\nplain preformatted\n {4}keeps {3}its spacing\n```/.test(md)],
      ["title heading once", (md) => (md.match(/^# Client$/gm) ?? []).length === 1 || (md.match(/^# Reference: Client$/gm) ?? []).length === 1],
    ],
  },
  {
    page: "qa",
    html: qa,
    checks: [
      ["kbd text kept", (md) => md.includes("Ctrl") && md.includes("+")],
      ["code block without class fenced", (md) => /```\w*\nwith open\("f"\) as f:\n {4}data = f\.read\(\)\n```/.test(md)],
      ["second code block with language", (md) => md.includes('```python\nfor line in open("f"):')],
      ["fragment link as text or kept", (md) => md.includes("the docs")],
      ["root-relative link absolute", (md) => md.includes("(https://docs.example.com/q/123)")],
    ],
  },
]

// The libraries get the preparation anvil's converter does itself.
const DROP = ["script", "style", "noscript", "template", "svg", "nav", "iframe", "head"] as const
const absolutize = (html: string) =>
  html.replace(/\s(href|src)\s*=\s*"([^"]*)"/gi, (m, attr: string, url: string) => {
    if (url.startsWith("#") || url.startsWith("javascript:")) return m
    try {
      return ` ${attr}="${new URL(url, BASE).href}"`
    } catch {
      return m
    }
  })
const titled = (html: string, body: string) => {
  const title = /<title>([^<]*)<\/title>/i.exec(html)?.[1]
  return title && !body.startsWith(`# ${title}`) ? `# ${title}\n\n${body}` : body
}

const turndown = new TurndownService({ headingStyle: "atx", codeBlockStyle: "fenced", bulletListMarker: "-" })
turndown.remove([...DROP])
const nhm = new NodeHtmlMarkdown({ ignore: [...DROP], bulletMarker: "-", codeFence: "```" })

const CONVERTERS: ReadonlyArray<readonly [string, (html: string) => string]> = [
  ["anvil", (html) => htmlToMarkdown(html, BASE).markdown],
  ["node-html-markdown", (html) => titled(html, nhm.translate(absolutize(html)).trim())],
  ["turndown", (html) => titled(html, turndown.turndown(absolutize(html)).trim())],
]

const big = shell("Big page", Array.from({ length: 400 }, (_, i) => docs.slice(docs.indexOf("<article>"), docs.indexOf("</article>") + 10).replace("Getting started", `Section ${i}`)).join("\n"))

const timeOf = (f: (html: string) => string): number => {
  for (let i = 0; i < 3; i++) f(big)
  const runs: Array<number> = []
  for (let i = 0; i < 10; i++) {
    const t = performance.now()
    f(big)
    runs.push(performance.now() - t)
  }
  return runs.sort((a, b) => a - b)[Math.floor(runs.length / 2)]!
}

const total = CHECKS.reduce((n, p) => n + p.checks.length, 0)
const anvilMs = timeOf(CONVERTERS[0]![1])
console.log(`HTML → Markdown: ${total} checks on 4 generated pages; speed on a ${(big.length / 1024).toFixed(0)} KiB page (median of 10)\n`)
console.log("converter            checks   ms/page   vs anvil")
for (const [name, convert] of CONVERTERS) {
  const failed: Array<string> = []
  for (const page of CHECKS) {
    const md = convert(page.html)
    for (const [what, ok] of page.checks) if (!ok(md)) failed.push(`${page.page}: ${what}`)
  }
  const ms = name === "anvil" ? anvilMs : timeOf(convert)
  console.log(`${name.padEnd(20)} ${`${total - failed.length}/${total}`.padStart(6)}  ${ms.toFixed(1).padStart(8)}  ${(ms / anvilMs).toFixed(2).padStart(8)}x`)
  if (failed.length > 0) console.log(`  failed: ${failed.join("; ")}`)
}
