/**
 * HTML to readable Markdown for the fetch tool: headings, paragraphs, links
 * (made absolute), emphasis, inline code and code blocks, lists (nested,
 * numbered), block quotes, images, rough tables. Scripts, styles, navigation
 * and other page furniture are dropped. A forgiving parser: unclosed and
 * misnested tags are closed the way browsers mostly do.
 *
 * Kept hand-written after measuring the libraries (bench/html-to-markdown.ts,
 * 39 checks on generated documentation, blog, API and Q&A pages): this converter
 * passed 38, node-html-markdown 37 (code in table cells, <pre> without <code>),
 * turndown 35 (no tables without a plugin), and they took 5.3x and 8.2x its time
 * on a 351 KiB page.
 */

interface Element {
  readonly tag: string
  readonly attrs: Readonly<Record<string, string>>
  readonly children: Array<Node>
  /** A block already converted (see {@link parse}): its Markdown, its children gone. */
  readonly markdown?: string
}
type Node = Element | string

const VOID = new Set(["area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr"])
/** Dropped with everything inside them. */
const DROP = new Set(["script", "style", "noscript", "template", "svg", "canvas", "iframe", "nav", "head", "select", "button", "object", "dialog", "math"])
const BLOCK = new Set([
  "p", "div", "section", "article", "main", "header", "footer", "aside", "blockquote", "ul", "ol", "li", "h1", "h2", "h3", "h4", "h5", "h6",
  "pre", "table", "thead", "tbody", "tfoot", "tr", "td", "th", "hr", "dl", "dt", "dd", "figure", "figcaption", "form", "fieldset", "details",
  "summary", "address", "center", "body", "html",
])
/**
 * Blocks whose Markdown is their children's blocks, in the context they got
 * themselves: a block closed with only these above it is converted the
 * moment it closes, to the same text it would give at the end.
 */
const PLAIN = new Set([
  "#root", "html", "body", "main", "div", "section", "article", "header", "footer", "aside", "p", "figure", "figcaption", "form",
  "fieldset", "details", "summary", "address", "center",
])
/** Opening one of these closes an open <p> (as in HTML's parsing rules). */
const CLOSES_P = new Set(["p", "div", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "table", "blockquote", "section", "article", "hr", "dl", "figure", "header", "footer", "aside", "form"])

const ENTITIES: Record<string, string> = {
  amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " ", copy: "©", reg: "®", trade: "™", mdash: "—", ndash: "–", hellip: "…",
  lsquo: "‘", rsquo: "’", ldquo: "“", rdquo: "”", laquo: "«", raquo: "»", middot: "·", bull: "•", times: "×", divide: "÷", deg: "°",
  euro: "€", pound: "£", yen: "¥", cent: "¢", sect: "§", para: "¶", larr: "←", rarr: "→", uarr: "↑", darr: "↓", harr: "↔", shy: "",
  zwj: "", zwnj: "", ensp: " ", emsp: " ", thinsp: " ",
}

/** Decodes character references (&amp; &#39; &#x27; and the common named ones). */
export const decodeEntities = (text: string): string =>
  text.replace(/&(#x[0-9a-f]+|#\d+|[a-z][a-z0-9]*);?/gi, (whole, ref: string) => {
    if (ref[0] === "#") {
      const code = ref[1] === "x" || ref[1] === "X" ? Number.parseInt(ref.slice(2), 16) : Number.parseInt(ref.slice(1), 10)
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole
    }
    return ENTITIES[ref.toLowerCase()] ?? whole
  })

const parseAttrs = (source: string): Record<string, string> => {
  const attrs: Record<string, string> = {}
  for (const m of source.matchAll(/([^\s"'<>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/g)) {
    attrs[m[1]!.toLowerCase()] = decodeEntities(m[2] ?? m[3] ?? m[4] ?? "")
  }
  return attrs
}

/**
 * Builds a tree from HTML text; returns the root and the page title. A block
 * that closes with only {@link PLAIN} blocks above it is converted to
 * Markdown (`convert`) at once and stands in the tree as that text: a large
 * page is never held whole as a tree, only its open part.
 */
const parse = (html: string, convert: ((el: Element) => string) | undefined): { root: Element; title: string | undefined } => {
  const root: Element = { tag: "#root", attrs: {}, children: [] }
  const stack: Array<Element> = [root]
  /** plain[i]: stack[0..i] are all PLAIN. */
  const plain: Array<boolean> = [true]
  const top = () => stack[stack.length - 1]!
  const push = (el: Element) => {
    plain.push(plain[plain.length - 1]! && PLAIN.has(el.tag))
    stack.push(el)
  }
  const close = (tag: string) => {
    for (let i = stack.length - 1; i > 0; i--) {
      if (stack[i]!.tag === tag) {
        const closed = stack[i]!
        stack.length = i
        plain.length = i
        if (convert !== undefined && plain[i - 1] && isBlock(closed)) {
          const siblings = stack[i - 1]!.children
          // An open element is its parent's last child: nothing is added to the parent while it is open.
          siblings[siblings.length - 1] = { tag: closed.tag, attrs: NO_ATTRS, children: [], markdown: convert(closed) }
        }
        return
      }
    }
  }
  const openIn = (tags: ReadonlyArray<string>, stopAt: ReadonlyArray<string>) => {
    for (let i = stack.length - 1; i > 0; i--) {
      const t = stack[i]!.tag
      if (tags.includes(t)) return t
      if (stopAt.includes(t)) return undefined
    }
    return undefined
  }
  let title: string | undefined
  const re = /<!--[\s\S]*?(?:-->|$)|<!\[CDATA\[([\s\S]*?)(?:\]\]>|$)|<![^>]*>|<\?[^>]*>|<\/([a-zA-Z][\w:-]*)\s*>|<([a-zA-Z][\w:-]*)((?:[^>"']|"[^"]*"|'[^']*')*)>/g
  let last = 0
  let m: RegExpExecArray | null
  const text = (t: string) => {
    if (t !== "") top().children.push(decodeEntities(t))
  }
  while ((m = re.exec(html)) !== null) {
    text(html.slice(last, m.index))
    last = re.lastIndex
    if (m[1] !== undefined) {
      top().children.push(m[1])
      continue
    }
    if (m[2] !== undefined) {
      const tag = m[2].toLowerCase()
      if (tag === "p" && !openIn(["p"], ["div", "section", "article", "li", "td", "th", "blockquote"])) continue
      close(tag)
      continue
    }
    if (m[3] === undefined) continue
    const tag = m[3].toLowerCase()
    const attrSource = m[4] ?? ""
    const selfClosing = /\/\s*$/.test(attrSource)
    if (DROP.has(tag) || tag === "title") {
      // Raw text up to the matching end tag (scripts may hold "<" freely).
      const end = new RegExp(`</${tag}\\s*>`, "ig")
      end.lastIndex = re.lastIndex
      const found = selfClosing ? null : end.exec(html)
      const inner = found ? html.slice(re.lastIndex, found.index) : ""
      if (tag === "title" && title === undefined) title = decodeEntities(inner).replace(/\s+/g, " ").trim()
      if (tag === "head") {
        const t = /<title[^>]*>([\s\S]*?)<\/title\s*>/i.exec(inner)
        if (t && title === undefined) title = decodeEntities(t[1]!).replace(/\s+/g, " ").trim()
      }
      if (!selfClosing) re.lastIndex = found ? end.lastIndex : html.length
      last = re.lastIndex
      continue
    }
    if (CLOSES_P.has(tag) && openIn(["p"], ["div", "section", "article", "li", "td", "th", "blockquote", "button"])) close("p")
    if (tag === "li" && openIn(["li"], ["ul", "ol"])) close("li")
    if ((tag === "dt" || tag === "dd") && openIn(["dt", "dd"], ["dl"])) close(openIn(["dt", "dd"], ["dl"])!)
    if ((tag === "td" || tag === "th") && openIn(["td", "th"], ["tr", "table"])) close(openIn(["td", "th"], ["tr", "table"])!)
    if (tag === "tr" && openIn(["tr"], ["table"])) close("tr")
    const el: Element = { tag, attrs: parseAttrs(attrSource), children: [] }
    top().children.push(el)
    if (!VOID.has(tag) && !selfClosing) push(el)
  }
  text(html.slice(last))
  return { root, title }
}

interface Ctx {
  readonly base: string | undefined
  readonly pre: boolean
  readonly depth: number
}

const absolute = (href: string, base: string | undefined): string => {
  if (!base || href === "") return href
  try {
    return new URL(href, base).toString()
  } catch {
    return href
  }
}

/** The inline Markdown of a node's children (whitespace collapsed unless inside <pre>). */
const inline = (nodes: ReadonlyArray<Node>, ctx: Ctx): string => nodes.map((n) => inlineNode(n, ctx)).join("")

const wrap = (mark: string, inner: string) => {
  const t = inner.trim()
  if (t === "") return inner
  const lead = inner.startsWith(" ") ? " " : ""
  const trail = inner.endsWith(" ") ? " " : ""
  return `${lead}${mark}${t}${mark}${trail}`
}

const inlineNode = (node: Node, ctx: Ctx): string => {
  if (typeof node === "string") return ctx.pre ? node : node.replace(/\s+/g, " ")
  const inner = () => inline(node.children, ctx)
  // Inside a code block only the text counts (and line breaks).
  if (ctx.pre) return node.tag === "br" ? "\n" : inner()
  switch (node.tag) {
    case "br":
      return "  \n"
    case "a": {
      const text = inner().replace(/\s+/g, " ").trim()
      const href = node.attrs.href
      if (!href || href.startsWith("javascript:") || href.startsWith("#")) return text
      const url = absolute(href, ctx.base)
      return text === "" ? "" : text === url ? `<${url}>` : `[${text}](${url})`
    }
    case "strong":
    case "b":
      return wrap("**", inner())
    case "em":
    case "i":
      return wrap("*", inner())
    case "del":
    case "s":
    case "strike":
      return wrap("~~", inner())
    case "code":
    case "kbd":
    case "samp": {
      const t = inline(node.children, { ...ctx, pre: true }).replace(/\s+/g, " ")
      return t.includes("`") ? `\`\` ${t} \`\`` : `\`${t}\``
    }
    case "img": {
      const src = node.attrs.src
      if (!src || src.startsWith("data:")) return node.attrs.alt ?? ""
      return `![${(node.attrs.alt ?? "").replace(/\s+/g, " ").trim()}](${absolute(src, ctx.base)})`
    }
    case "input":
      return ""
    default:
      return BLOCK.has(node.tag) ? `\n\n${blocks(node.children, ctx)}\n\n` : inner()
  }
}

const isBlock = (n: Node) => typeof n !== "string" && (BLOCK.has(n.tag) || n.tag === "hr")
const NO_ATTRS: Readonly<Record<string, string>> = {}

/** Children as Markdown blocks, separated by blank lines; runs of inline content form paragraphs. */
const blocks = (nodes: ReadonlyArray<Node>, ctx: Ctx): string => {
  const out: Array<string> = []
  let run: Array<Node> = []
  const flush = () => {
    const text = inline(run, ctx)
      .split("\n")
      .map((l) => l.replace(/^ +| +$/g, "").replace(/ {2,}/g, " "))
      .join("\n")
      .trim()
    if (text !== "") out.push(text)
    run = []
  }
  for (const n of nodes) {
    if (isBlock(n)) {
      flush()
      const b = block(n as Element, ctx)
      if (b.trim() !== "") out.push(b)
    } else run.push(n)
  }
  flush()
  return out.join("\n\n")
}

const indent = (text: string, pad: string) =>
  text
    .split("\n")
    .map((l, i) => (i === 0 || l === "" ? l : pad + l))
    .join("\n")

const cellText = (el: Element, ctx: Ctx) => blocks(el.children, ctx).replace(/\s*\n+\s*/g, " ").replace(/\|/g, "\\|").trim()

const block = (el: Element, ctx: Ctx): string => {
  if (el.markdown !== undefined) return el.markdown
  switch (el.tag) {
    case "h1":
    case "h2":
    case "h3":
    case "h4":
    case "h5":
    case "h6": {
      const text = blocks(el.children, ctx).replace(/\s*\n+\s*/g, " ").trim()
      return text === "" ? "" : `${"#".repeat(Number(el.tag[1]))} ${text}`
    }
    case "hr":
      return "---"
    case "pre": {
      const codeEl = el.children.find((c): c is Element => typeof c !== "string" && c.tag === "code")
      const lang = /(?:^|\s)(?:language|lang)-([\w+#.-]+)/.exec(codeEl?.attrs.class ?? el.attrs.class ?? "")?.[1] ?? ""
      const code = inline(el.children, { ...ctx, pre: true }).replace(/^\n/, "").replace(/\s+$/, "")
      const fence = code.includes("```") ? "~~~" : "```"
      return `${fence}${lang}\n${code}\n${fence}`
    }
    case "blockquote": {
      const inner = blocks(el.children, ctx)
      return inner
        .split("\n")
        .map((l) => (l === "" ? ">" : `> ${l}`))
        .join("\n")
    }
    case "ul":
    case "ol": {
      let n = Number.parseInt(el.attrs.start ?? "1", 10)
      if (!Number.isFinite(n)) n = 1
      const items: Array<string> = []
      for (const c of el.children) {
        if (typeof c === "string") {
          if (c.trim() !== "") items.push(`- ${c.trim()}`)
          continue
        }
        const marker = el.tag === "ol" ? `${n++}.` : "-"
        const body = c.tag === "li" ? blocks(c.children, { ...ctx, depth: ctx.depth + 1 }) : block(c, ctx)
        if (body.trim() === "") continue
        items.push(`${marker} ${indent(body.replace(/\n\n+/g, "\n"), " ".repeat(marker.length + 1))}`)
      }
      return items.join("\n")
    }
    case "dl":
      return el.children
        .filter((c): c is Element => typeof c !== "string")
        .map((c) => (c.tag === "dt" ? `**${blocks(c.children, ctx).trim()}**` : `: ${blocks(c.children, ctx).trim()}`))
        .join("\n")
    case "table": {
      const rows: Array<Array<string>> = []
      const collect = (e: Element) => {
        for (const c of e.children) {
          if (typeof c === "string") continue
          if (c.tag === "tr") rows.push(c.children.filter((x): x is Element => typeof x !== "string" && (x.tag === "td" || x.tag === "th")).map((x) => cellText(x, ctx)))
          else if (c.tag === "thead" || c.tag === "tbody" || c.tag === "tfoot") collect(c)
        }
      }
      collect(el)
      if (rows.length === 0) return blocks(el.children, ctx)
      const width = Math.max(...rows.map((r) => r.length))
      const line = (r: ReadonlyArray<string>) => `| ${Array.from({ length: width }, (_, i) => r[i] ?? "").join(" | ")} |`
      return [line(rows[0]!), `|${" --- |".repeat(width)}`, ...rows.slice(1).map(line)].join("\n")
    }
    default:
      return blocks(el.children, ctx)
  }
}

/**
 * Converts an HTML document to Markdown. `baseUrl` (the page's final URL, or
 * its <base href>) makes relative links absolute. The page title, when there
 * is one and the body does not start with it, heads the result. Blocks are
 * converted as they close (`convertEarly: false`, for tests, keeps the whole
 * tree to the end; the text is the same).
 */
export const htmlToMarkdown = (
  html: string,
  baseUrl?: string,
  options: { readonly convertEarly?: boolean } = {},
): { readonly markdown: string; readonly title: string | undefined } => {
  const baseTag = /<base\s[^>]*href\s*=\s*["']?([^"'\s>]+)/i.exec(html)?.[1]
  const base = baseTag ? absolute(baseTag, baseUrl) : baseUrl
  const ctx: Ctx = { base, pre: false, depth: 0 }
  const { root, title } = parse(html, options.convertEarly === false ? undefined : (el) => block(el, ctx))
  const body = blocks(root.children, ctx)
    .replace(/[ \t]+\n/g, (m) => (m.startsWith("  ") ? "  \n" : "\n"))
    .replace(/\n{3,}/g, "\n\n")
    .trim()
  const withTitle = title && !body.startsWith(`# ${title}`) ? `# ${title}\n\n${body}` : body
  return { markdown: withTitle.trim(), title }
}
