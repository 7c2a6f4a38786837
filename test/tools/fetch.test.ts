import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { Effect } from "effect"
import { execFileSync } from "node:child_process"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { callTool, project, tempDir } from "../support/harness.ts"

setDefaultTimeout(30_000)

const TOKEN = "s3cret-token-value"
const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 1, 2, 3, 4])
/** An error answer longer than the excerpt an error quotes. */
const LONG_ERROR = Array.from({ length: 200 }, (_, i) => `trace frame ${i}`).join("\n")
/** Past the 10 MiB a fetch keeps of a body. */
const HUGE_TEXT = "0123456789abcdef\n".repeat(700_000)
const BIG_TEXT = Array.from({ length: 6000 }, (_, i) => `line ${String(i).padStart(5, "0")} of a long plain text body`).join("\n")
const PAGE = `<!doctype html><html><head><title>Docs Home</title><script>var x = "<p>not content</p>"</script><style>p{}</style></head>
<body><nav><a href="/">Home</a><a href="/about">About</a></nav><main><h1>Getting started</h1>
<p>Install with <code>npm i thing</code>, then read the <a href="/guide/intro">guide</a>.</p>
<ul><li>fast</li><li>small</li></ul><pre><code class="language-sh">thing --help</code></pre></main></body></html>`

type Server = ReturnType<typeof Bun.serve>
let server: Server
let other: Server
let base: string
let otherBase: string
let deadPort: number

beforeAll(async () => {
  // A second origin: it reports which credentials reached it.
  other = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (req) => Response.json({ authorization: req.headers.get("authorization"), cookie: req.headers.get("cookie") }),
  })
  otherBase = `http://127.0.0.1:${other.port}`
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: async (req) => {
      const url = new URL(req.url)
      const auth = req.headers.get("authorization")
      switch (url.pathname) {
        case "/page.html":
          return new Response(PAGE, { headers: { "content-type": "text/html; charset=utf-8" } })
        case "/json":
          return new Response('{"name":"anvil","tags":["a","b"],"nested":{"ok":true}}', { headers: { "content-type": "application/json" } })
        case "/text":
          return new Response("just text\n", { headers: { "content-type": "text/plain" } })
        case "/redirect/1":
          return new Response(null, { status: 302, headers: { location: "/redirect/2" } })
        case "/redirect/2":
          return new Response(null, { status: 301, headers: { location: `${base}/page.html` } })
        case "/nowhere":
          return new Response("moved, but where?", { status: 302 })
        case "/bad-location":
          return new Response(null, { status: 307, headers: { location: "http://[not-a-host" } })
        case "/loop":
          return new Response(null, { status: 302, headers: { location: "/loop" } })
        case "/cross":
          return new Response(null, { status: 302, headers: { location: `${otherBase}/landing` } })
        case "/echo":
          return Response.json({ authorization: auth, cookie: req.headers.get("cookie"), query: url.search })
        case "/method":
          return Response.json({ method: req.method, body: await req.text() })
        case "/see-other":
          return new Response(null, { status: 303, headers: { location: "/method" } })
        case "/protected":
          return auth === `Bearer ${TOKEN}` ? new Response("welcome, token holder") : new Response("login required", { status: 401 })
        case "/basic":
          return auth === `Basic ${Buffer.from(`me:${TOKEN}`).toString("base64")}` ? new Response("basic ok") : new Response("no", { status: 401 })
        case "/cookie":
          return req.headers.get("cookie")?.includes(`session=${TOKEN}`) ? new Response("cookie ok") : new Response("no", { status: 401 })
        case "/ratelimited":
          return new Response("slow down please", { status: 429, headers: { "retry-after": "7" } })
        case "/broken":
          return new Response("<html><body><h1>Oops</h1><p>database exploded at row 42</p></body></html>", { status: 500, headers: { "content-type": "text/html" } })
        case "/broken-long":
          return new Response(LONG_ERROR, { status: 500, headers: { "content-type": "text/plain" } })
        case "/missing":
          return new Response("no such page", { status: 404 })
        case "/slow":
          await Bun.sleep(5000)
          return new Response("too late")
        case "/big":
          return new Response(BIG_TEXT, { headers: { "content-type": "text/plain" } })
        case "/gzip":
          return new Response(Bun.gzipSync(Buffer.from(GZIP_TEXT)), { headers: { "content-type": "text/plain", "content-encoding": "gzip" } })
        case "/big.html":
          return new Response(`<html><body>${Array.from({ length: 2000 }, (_, i) => `<p>paragraph ${String(i).padStart(4, "0")} of many</p>`).join("")}</body></html>`, { headers: { "content-type": "text/html" } })
        case "/gzip-huge":
          return new Response(Bun.gzipSync(Buffer.from(HUGE_TEXT)), { headers: { "content-type": "text/plain", "content-encoding": "gzip" } })
        case "/huge-text":
        case "/huge-text's":
          return new Response(HUGE_TEXT, { headers: { "content-type": "text/plain" } })
        case "/gzip-big":
          return new Response(Bun.gzipSync(Buffer.from(BIG_TEXT)), { headers: { "content-type": "text/plain", "content-encoding": "gzip" } })
        case "/big-echo":
          return new Response(`${auth}\n${BIG_TEXT}`, { headers: { "content-type": "text/plain" } })
        case "/image.png":
          return new Response(PNG, { headers: { "content-type": "image/png" } })
        case "/huge.png":
          return new Response(new Uint8Array(1536 * 1024).fill(7), { headers: { "content-type": "image/png" } })
        case "/binary":
          return new Response(new Uint8Array([1, 0, 2, 0, 3]), { headers: { "content-type": "application/octet-stream" } })
        default:
          return new Response("?", { status: 404 })
      }
    },
  })
  base = `http://127.0.0.1:${server.port}`
  // A port nothing listens on: take one, then close it.
  const probe = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") })
  deadPort = probe.port!
  probe.stop(true)
})

afterAll(() => {
  server.stop(true)
  other.stop(true)
})

const root = project()
const GZIP_TEXT = "compressible line\n".repeat(1000)

const fetchUrl = (params: Record<string, unknown>, options: Parameters<typeof callTool>[3] = {}) => callTool(root, "fetch", params, options)
const data = (o: Awaited<ReturnType<typeof fetchUrl>>) => o.envelope.data as Record<string, unknown>

describe("fetch: a compressed body", () => {
  test("size_bytes is the decoded size; the bytes on the wire and the encoding are said beside it", async () => {
    const out = await fetchUrl({ url: `${base}/gzip` })
    const wire = Bun.gzipSync(Buffer.from(GZIP_TEXT)).length
    expect(data(out)).toMatchObject({ size_bytes: GZIP_TEXT.length, content_encoding: "gzip", transfer_bytes: wire, truncated: false })
    expect(out.envelope.text).toContain(`Content: TEXT, ${GZIP_TEXT.length} bytes (gzip, ${wire} bytes transferred)`)
    // Text cut, body downloaded whole: its decoded size is known.
    const cut = await fetchUrl({ url: `${base}/gzip-big`, max_size_kb: 10 })
    expect(data(cut).truncated).toBe(true)
    expect(data(cut)).toMatchObject({ size_bytes: BIG_TEXT.length, content_encoding: "gzip", transfer_bytes: Bun.gzipSync(Buffer.from(BIG_TEXT)).length })
    // Download stopped before its end: the decoded size is not known, and the compressed one is not given as if it were.
    const stopped = await fetchUrl({ url: `${base}/gzip-huge`, max_size_kb: 10 })
    expect(data(stopped)).toMatchObject({ truncated: true, size_bytes: null, download_complete: false, content_encoding: "gzip" })
    expect(stopped.envelope.text).toContain(`the download stopped at ${10 * 1024 * 1024} bytes (anvil keeps at most 10 MB of a body); the rest was not fetched`)
    // A plain body has no encoding fields.
    const plain = await fetchUrl({ url: `${base}/text` })
    expect(data(plain).size_bytes).toBe(10)
    expect(data(plain).content_encoding).toBeUndefined()
  })
})

describe("fetch", () => {
  test("an HTML page comes back as Markdown without scripts, styles or navigation; links made absolute", async () => {
    const out = await fetchUrl({ url: `${base}/page.html` })
    expect(out.envelope.status).toBe("success")
    const content = String(data(out).content)
    expect(content).toContain("# Getting started")
    expect(content).toContain("Install with `npm i thing`, then read the [guide](" + base + "/guide/intro).")
    expect(content).toContain("- fast\n- small")
    expect(content).toContain("```sh\nthing --help\n```")
    expect(content).not.toContain("not content")
    expect(content).not.toContain("About")
    expect(data(out)).toEqual(expect.objectContaining({ status_code: 200, content_type: "text/html", is_image: false, title: "Docs Home", truncated: false }))
    expect(out.envelope.text.startsWith(`# WebFetch: ${base}/page.html\n\nStatus: 200`)).toBe(true)
  })

  test("JSON is pretty-printed; plain text is returned as is", async () => {
    const json = await fetchUrl({ url: `${base}/json` })
    expect(data(json).content).toBe(JSON.stringify({ name: "anvil", tags: ["a", "b"], nested: { ok: true } }, null, 2))
    const text = await fetchUrl({ url: `${base}/text` })
    expect(data(text).content).toBe("just text\n")
  })

  test("redirects are followed and the chain and final URL reported; a loop stops", async () => {
    const out = await fetchUrl({ url: `${base}/redirect/1` })
    expect(data(out).final_url).toBe(`${base}/page.html`)
    expect(data(out).redirects).toEqual([
      { url: `${base}/redirect/1`, status: 302 },
      { url: `${base}/redirect/2`, status: 301 },
    ])
    expect(out.envelope.text).toContain(`Redirects: ${base}/redirect/1 (302) -> ${base}/redirect/2 (301) -> ${base}/page.html`)
    const loop = await fetchUrl({ url: `${base}/loop` })
    expect(loop.envelope.error?.message).toContain("Too many redirects")
  })

  test("a redirect without a Location (or with one that is no URL) is EXECUTION_ERROR naming the status, not a page", async () => {
    const none = await fetchUrl({ url: `${base}/nowhere` })
    expect(none.envelope.status).toBe("error")
    expect(none.envelope.error?.code).toBe("EXECUTION_ERROR")
    expect(none.envelope.error?.message).toBe(`HTTP 302 from ${base}/nowhere is a redirect with no Location header: there is nowhere to follow it to.`)
    expect(none.envelope.context.status_code).toBe(302)
    expect(none.envelope.text).toContain(`curl -sS -i '${base}/nowhere'`)
    const bad = await fetchUrl({ url: `${base}/bad-location` })
    expect(bad.envelope.error?.code).toBe("EXECUTION_ERROR")
    expect(bad.envelope.error?.message).toContain("a Location that is not a URL ('http://[not-a-host')")
  })

  test("the method is taken in any case: get and Post are GET and POST; an unknown one is INVALID_PARAM", async () => {
    const get = await fetchUrl({ url: `${base}/method`, method: "get" })
    expect(JSON.parse(String(data(get).content))).toEqual({ method: "GET", body: "" })
    const post = await fetchUrl({ url: `${base}/method`, method: "Post", body: "x=1" })
    expect(JSON.parse(String(data(post).content))).toEqual({ method: "POST", body: "x=1" })
    const head = await fetchUrl({ url: `${base}/method`, method: "head", body: "x" })
    expect(head.envelope.error?.field_errors?.[0]?.field).toBe("body")
    const bogus = await fetchUrl({ url: `${base}/method`, method: "fetch" })
    expect(bogus.envelope.error?.code).toBe("INVALID_PARAM")
    expect(bogus.envelope.error?.field_errors?.[0]?.field).toBe("method")
    expect(bogus.envelope.error?.message).toContain('"OPTIONS"')
  })

  test("a request body's credential fields (JSON, form) and header secrets repeated in it are masked in params_input and scrubbed from the echo", async () => {
    const json = await fetchUrl({ url: `${base}/method`, method: "POST", body: JSON.stringify({ user: "me", password: TOKEN, nested: { client_secret: TOKEN, page: 2 } }) })
    expect(json.envelope.context.params_input).toMatchObject({ body: '{"user":"me","password":"[REDACTED]","nested":{"client_secret":"[REDACTED]","page":2}}' })
    const form = await fetchUrl({ url: `${base}/method`, method: "post", body: `grant_type=password&username=me&password=${TOKEN}&access_token=${TOKEN}` })
    expect(form.envelope.context.params_input).toMatchObject({ body: "grant_type=password&username=me&password=[REDACTED]&access_token=[REDACTED]" })
    const repeated = await fetchUrl({ url: `${base}/method`, method: "POST", headers: { Authorization: `Bearer ${TOKEN}` }, body: `token is ${TOKEN}` })
    expect(repeated.envelope.context.params_input).toMatchObject({ body: "token is [REDACTED]" })
    for (const out of [json, form, repeated]) expect(JSON.stringify(out.envelope) + JSON.stringify(out.meta)).not.toContain(TOKEN)
    // A body with nothing secret is recorded as sent.
    const plain = await fetchUrl({ url: `${base}/method`, method: "POST", body: '{"q":"search words","key":"k1"}' })
    expect(plain.envelope.context.params_input).toMatchObject({ body: '{"q":"search words","key":"k1"}' })
    // auth and session as words of their own are credentials; author and session_name are content, echoed whole.
    const words = await fetchUrl({ url: `${base}/method`, method: "POST", body: JSON.stringify({ author: "Ada Lovelace", session_name: "evening talks", auth_code: TOKEN, sessionId: TOKEN }) })
    expect(words.envelope.context.params_input).toMatchObject({ body: '{"author":"Ada Lovelace","session_name":"evening talks","auth_code":"[REDACTED]","sessionId":"[REDACTED]"}' })
    expect(String(data(words).content)).toContain("Ada Lovelace")
    expect(String(data(words).content)).toContain("evening talks")
    expect(JSON.stringify(words.envelope)).not.toContain(TOKEN)
  })

  test("credentials do not follow a redirect to another origin", async () => {
    const out = await fetchUrl({ url: `${base}/cross`, auth: { type: "bearer", token: TOKEN }, headers: { Cookie: "a=b" } })
    expect(data(out).final_url).toBe(`${otherBase}/landing`)
    expect(JSON.parse(String(data(out).content))).toEqual({ authorization: null, cookie: null })
  })

  test("POST sends the body; a 303 answer is followed with GET", async () => {
    const post = await fetchUrl({ url: `${base}/method`, method: "POST", body: "x=1", headers: { "Content-Type": "application/x-www-form-urlencoded" } })
    expect(JSON.parse(String(data(post).content))).toEqual({ method: "POST", body: "x=1" })
    const seeOther = await fetchUrl({ url: `${base}/see-other`, method: "POST", body: "x=1" })
    expect(JSON.parse(String(data(seeOther).content))).toEqual({ method: "GET", body: "" })
  })

  test("auth parameters: bearer, basic and cookie are sent", async () => {
    expect(data(await fetchUrl({ url: `${base}/protected`, auth: { type: "bearer", token: TOKEN } })).content).toBe("welcome, token holder")
    expect(data(await fetchUrl({ url: `${base}/basic`, auth: { type: "basic", username: "me", password: TOKEN } })).content).toBe("basic ok")
    expect(data(await fetchUrl({ url: `${base}/cookie`, auth: { type: "cookie", cookie: `session=${TOKEN}` } })).content).toBe("cookie ok")
  })

  test("a 401 without auth is retried once with the credentials configured for the host (secret from the environment)", async () => {
    const host = `127.0.0.1:${server.port}`
    const configOverrides = { tools: { fetch: { credentials: { [host]: { bearer_env: "TEST_FETCH_TOKEN" } } } } }
    const out = await fetchUrl({ url: `${base}/protected` }, { configOverrides, env: { TEST_FETCH_TOKEN: TOKEN } })
    expect(out.envelope.status).toBe("success")
    expect(data(out).content).toBe("welcome, token holder")
    expect(out.envelope.text).toContain("retried with the credentials configured for this host")
    expect(JSON.stringify(out)).not.toContain(TOKEN)
    // Without the variable there is nothing to retry with: the 401 stands.
    const refused = await fetchUrl({ url: `${base}/protected` }, { configOverrides, env: {} })
    expect(refused.envelope.error?.code).toBe("PERMISSION_DENIED")
    expect(refused.envelope.error?.message).toContain("HTTP 401")
    expect(refused.envelope.error?.message).toContain("login required")
    // Basic credentials from the configuration.
    const basic = await fetchUrl(
      { url: `${base}/basic` },
      { configOverrides: { tools: { fetch: { credentials: { [host]: { basic_user: "me", basic_password_env: "PW" } } } } }, env: { PW: TOKEN } },
    )
    expect(data(basic).content).toBe("basic ok")
  })

  test("secrets never reach params_input, the text, the data or a spill file", async () => {
    const out = await fetchUrl({
      url: `${base}/echo?api_key=${TOKEN}&page=2`,
      headers: { Authorization: `Bearer ${TOKEN}`, "X-Trace": "visible" },
      auth: { type: "cookie", cookie: `session=${TOKEN}` },
    })
    const recorded = JSON.stringify(out.envelope) + JSON.stringify(out.meta)
    expect(recorded).not.toContain(TOKEN)
    const input = out.envelope.context.params_input as { url: string; headers: Record<string, string>; auth: Record<string, string> }
    expect(input.url).toBe(`${base}/echo?api_key=REDACTED&page=2`)
    expect(input.headers).toEqual({ Authorization: "[REDACTED]", "X-Trace": "visible" })
    expect(input.auth).toEqual({ type: "cookie", cookie: "[REDACTED]" })
    // The server echoed the credentials back; they are scrubbed from the content too.
    expect(String(data(out).content)).toContain("[REDACTED]")

    // A page over the limit: the whole text fetch saves beside the answer has them scrubbed too.
    const spilled = await fetchUrl({ url: `${base}/big-echo`, headers: { Authorization: `Bearer ${TOKEN}` } })
    const path = data(spilled).full_output_path as string | undefined
    expect(path).toBeString()
    const file = readFileSync(join(root, path!), "utf8")
    expect(file).toContain("line 00001")
    expect(file).not.toContain(TOKEN)
    expect(JSON.stringify(spilled.envelope)).not.toContain(TOKEN)
  })

  test("text over the limit is cut at 45 KB (or max_size_kb) and marked partial", async () => {
    const out = await fetchUrl({ url: `${base}/big`, max_size_kb: 10 })
    expect(out.envelope.status).toBe("partial")
    expect(data(out).truncated).toBe(true)
    expect(Buffer.byteLength(String(data(out).content))).toBeLessThanOrEqual(10 * 1024)
    expect(String(data(out).content)).toStartWith("line 00000 of a long plain text body")
    expect(out.envelope.text).toContain(`TRUNCATED: first 10 KB of ${BIG_TEXT.length} bytes shown`)
    // The default limit is 45 KB, within what the output layer keeps (50 KB): the page is cut once, by fetch.
    const whole = await fetchUrl({ url: `${base}/big` })
    expect(whole.envelope.data.truncation).toBeUndefined()
    expect(data(whole).truncated).toBe(true)
    expect(Buffer.byteLength(String(data(whole).content))).toBeGreaterThan(45 * 1024 - 100)
    expect(Buffer.byteLength(String(data(whole).content))).toBeLessThanOrEqual(45 * 1024)
  })

  test("images come back base64-encoded; over 1 MB they are refused (partial, no content)", async () => {
    const out = await fetchUrl({ url: `${base}/image.png` })
    expect(out.envelope.status).toBe("success")
    expect(data(out)).toEqual(expect.objectContaining({ is_image: true, encoding: "base64", size_bytes: PNG.length, content_type: "image/png" }))
    expect(Buffer.from(String(data(out).content), "base64")).toEqual(Buffer.from(PNG))
    const huge = await fetchUrl({ url: `${base}/huge.png` })
    expect(huge.envelope.status).toBe("partial")
    expect(data(huge).content).toBe("")
    expect(data(huge).truncated).toBe(true)
    expect(huge.envelope.text).toContain("Image too large")
    // Not lost: saved whole, its path in the text and data.
    const saved = data(huge).full_output_path as string
    expect(saved).toEndWith(".png")
    expect(huge.envelope.text).toContain(`saved to ${saved}`)
    expect(readFileSync(join(root, saved))).toEqual(Buffer.from(new Uint8Array(1536 * 1024).fill(7)))
  })

  test("nothing past max_size_kb is lost: the whole text is saved, named first, and Read hints return exactly the rest", async () => {
    const out = await fetchUrl({ url: `${base}/big`, max_size_kb: 10 })
    const saved = data(out).full_output_path as string
    expect(out.envelope.text).toStartWith(`# WebFetch: ${base}/big\n\nAll the text (${BIG_TEXT.length} bytes): ${saved}\n`)
    expect(readFileSync(join(root, saved), "utf8")).toBe(BIG_TEXT)
    const shown = String(data(out).content)
    const hint = out.envelope.text.match(/\* Read\(path="([^"]+)", offset=(\d+), limit=(\d+)\)/)
    expect(hint?.[1]).toBe(saved)
    // The shown text ends inside a line: the hint starts at that line, so the pages put together give the text.
    const complete = shown.split("\n").length - 1
    expect(Number(hint?.[2])).toBe(complete)
    const rest = (await callTool(root, "read", { path: saved, offset: complete, limit: 200 })).envelope
    expect(String(rest.data.content).split("\n")[0]).toBe(`${String(complete + 1).padStart(6)}\t${BIG_TEXT.split("\n")[complete]}`)
    // An HTML page: the saved file is the whole page as Markdown.
    const page = await fetchUrl({ url: `${base}/big.html`, max_size_kb: 1 })
    const md = readFileSync(join(root, data(page).full_output_path as string), "utf8")
    expect(page.envelope.text).toContain(`All the page as Markdown (${Buffer.byteLength(md)} bytes): `)
    expect(md).toContain("paragraph 0000 of many")
    expect(md).toContain("paragraph 1999 of many")
    expect(md).not.toContain("<p>")
  })

  test("an HTTP error's answer longer than its excerpt is saved whole, and the error names it", async () => {
    const out = await fetchUrl({ url: `${base}/broken-long` })
    expect(out.envelope.error?.code).toBe("EXECUTION_ERROR")
    expect(out.envelope.error?.message).toContain("trace frame 0")
    const saved = out.envelope.context.full_output_path as string
    expect(out.envelope.text).toContain(`The whole answer (${LONG_ERROR.length} bytes): ${saved}`)
    expect(out.envelope.text).toContain(`* Read(path="${saved}")`)
    expect(readFileSync(join(root, saved), "utf8")).toBe(LONG_ERROR)
    // A short one is quoted whole and saves nothing.
    const short = await fetchUrl({ url: `${base}/missing` })
    expect(short.envelope.context.full_output_path).toBeUndefined()
  })

  test("a body past what a fetch keeps: the download stops, the text says where, how much and how to get all of it", async () => {
    const out = await fetchUrl({ url: `${base}/huge-text`, max_size_kb: 10 })
    expect(data(out)).toMatchObject({ truncated: true, download_complete: false, size_bytes: HUGE_TEXT.length })
    const saved = data(out).full_output_path as string
    expect(out.envelope.text).toContain(`of ${HUGE_TEXT.length} bytes; the rest was not fetched: curl -o <file> gets all of it`)
    expect(out.envelope.text).toContain(`from the first ${10 * 1024 * 1024} bytes downloaded): ${saved}`)
    expect(out.envelope.text).toContain("* Bash(command=\"curl -sSL -o <file>")
    expect(readFileSync(join(root, saved), "utf8")).toBe(HUGE_TEXT.slice(0, 10 * 1024 * 1024))
    // A quote in the URL stays inside the hint's quoted word: the command runs as written.
    const quoted = await fetchUrl({ url: `${base}/huge-text's`, max_size_kb: 10 })
    expect(quoted.envelope.text).toContain(`* Bash(command="curl -sSL -o <file> '${base}/huge-text'\\\\''s'")`)
  })

  test("binary bodies are BINARY_FILE errors", async () => {
    const out = await fetchUrl({ url: `${base}/binary` })
    expect(out.envelope.error?.code).toBe("BINARY_FILE")
  })

  test("HTTP errors carry their status and a short excerpt; 429 is RATE_LIMIT and retryable", async () => {
    const limited = await fetchUrl({ url: `${base}/ratelimited` })
    expect(limited.envelope.error).toEqual(expect.objectContaining({ code: "RATE_LIMIT", retryable: true }))
    expect(limited.envelope.error?.message).toContain("HTTP 429")
    expect(limited.envelope.error?.message).toContain("slow down please")
    expect(limited.envelope.text).toContain("Retry-After: 7")
    const broken = await fetchUrl({ url: `${base}/broken` })
    expect(broken.envelope.error?.code).toBe("EXECUTION_ERROR")
    expect(broken.envelope.error?.message).toContain("HTTP 500")
    expect(broken.envelope.error?.message).toContain("database exploded at row 42")
    expect(broken.envelope.context.status_code).toBe(500)
    const missing = await fetchUrl({ url: `${base}/missing` })
    expect(missing.envelope.error?.code).toBe("NOT_FOUND")
    expect(missing.envelope.error?.message).toContain("HTTP 404")
  })

  test("a slow server is a TIMEOUT; a closed port is a NETWORK_ERROR (both retryable)", async () => {
    const slow = await fetchUrl({ url: `${base}/slow`, timeout_sec: 0.3 })
    expect(slow.envelope.error).toEqual(expect.objectContaining({ code: "TIMEOUT", retryable: true }))
    const refused = await fetchUrl({ url: `http://127.0.0.1:${deadPort}/` })
    expect(refused.envelope.error).toEqual(expect.objectContaining({ code: "NETWORK_ERROR", retryable: true }))
  })

  test("invalid URLs and schemes are INVALID_PARAM", async () => {
    expect((await fetchUrl({ url: "not a url" })).envelope.error?.code).toBe("INVALID_PARAM")
    const file = await fetchUrl({ url: "file:///etc/passwd" })
    expect(file.envelope.error?.code).toBe("INVALID_PARAM")
    expect(file.envelope.error?.field_errors?.[0]?.field).toBe("url")
  })

  test("a header that cannot be sent is INVALID_PARAM on headers, not a network error", async () => {
    for (const headers of [{ "X-A": "a\nb" }, { "Bad Name": "v" }, { "X-B": "c\r\nInjected: 1" }, { "X-C": "名前" }]) {
      const out = await fetchUrl({ url: `${base}/json`, headers })
      expect(out.envelope.error?.code).toBe("INVALID_PARAM")
      expect(out.envelope.error?.field_errors?.[0]?.field).toBe("headers")
    }
    expect((await fetchUrl({ url: `${base}/json`, headers: { "X-Ok": "fine value; q=1", "X-Latin": "café" } })).envelope.status).toBe("success")
  })

  test("a body on a GET or HEAD is INVALID_PARAM on body (it was a network error), and goes out with POST", async () => {
    for (const method of [undefined, "GET", "HEAD"]) {
      const out = await fetchUrl({ url: `${base}/json`, ...(method ? { method } : {}), body: "x=1" })
      expect(out.envelope.error?.code).toBe("INVALID_PARAM")
      expect(out.envelope.error?.field_errors?.[0]?.field).toBe("body")
      expect(out.envelope.error?.message).toContain("use method POST")
    }
    expect((await fetchUrl({ url: `${base}/json`, method: "POST", body: "x=1" })).envelope.error?.code).not.toBe("INVALID_PARAM")
    // An empty body is no body: the GET goes out.
    expect((await fetchUrl({ url: `${base}/json`, body: "" })).envelope.status).toBe("success")
  })

  test("asks for permission by default; the webfetch alias reaches it", async () => {
    const asked: Array<string> = []
    const out = await callTool(root, "WebFetch", { url: `${base}/text` }, { onAsk: (r) => Effect.sync(() => void asked.push(r.tool.name)).pipe(Effect.as(false)) })
    expect(asked).toEqual(["fetch"])
    expect(out.envelope.error?.code).toBe("PERMISSION_DENIED")
    expect((await callTool(root, "webfetch", { url: `${base}/text` })).envelope.status).toBe("success")
  })

  test("https:// to a server speaking plain HTTP: a TLS error whose next step is the http:// URL, not verify_tls=false", async () => {
    const url = base.replace("http:", "https:") + "/json"
    const out = await fetchUrl({ url })
    expect(out.envelope.error?.code).toBe("NETWORK_ERROR")
    expect(out.envelope.error?.message).toContain("TLS error")
    expect(out.envelope.text).toContain(`WebFetch(url="${base}/json")`)
    expect(out.envelope.text).not.toContain("verify_tls=false)")
  })

  test("TLS: a self-signed certificate fails verification unless verify_tls is false", async () => {
    const dir = tempDir("anvil-tls-")
    try {
      execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", join(dir, "key.pem"), "-out", join(dir, "cert.pem"), "-days", "2", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"], { stdio: "ignore" })
    } catch {
      console.warn("openssl is not available: TLS test skipped")
      return
    }
    expect(existsSync(join(dir, "cert.pem"))).toBe(true)
    const secure = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      tls: { cert: readFileSync(join(dir, "cert.pem"), "utf8"), key: readFileSync(join(dir, "key.pem"), "utf8") },
      fetch: () => new Response("secure hello"),
    })
    try {
      const url = `https://127.0.0.1:${secure.port}/`
      const verified = await fetchUrl({ url })
      expect(verified.envelope.error?.code).toBe("NETWORK_ERROR")
      expect(verified.envelope.error?.message).toContain("TLS error")
      expect(verified.envelope.text).toContain("verify_tls=false")
      const skipped = await fetchUrl({ url, verify_tls: false })
      expect(data(skipped).content).toBe("secure hello")
    } finally {
      secure.stop(true)
    }
  })
})
