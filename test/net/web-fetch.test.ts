import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { HttpClient } from "../../src/net/http-client.ts"
import { FetchHops, followEveryHop, type HopVerdict } from "../../src/net/fetch-hops.ts"
import { webFetch, type WebFetchRequest } from "../../src/net/web-fetch.ts"

let server: ReturnType<typeof Bun.serve>
let base: string

beforeAll(() => {
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: async (req) => {
      const url = new URL(req.url)
      switch (url.pathname) {
        case "/page":
          return new Response("<html><head><title>T</title></head><body><h1>Hi</h1><p>x</p></body></html>", { headers: { "content-type": "text/html" } })
        case "/hop":
          return Response.redirect(`${base}/page`, 302)
        case "/elsewhere":
          // The same server under another host name: a redirect to a host the call was not judged for.
          return Response.redirect(`http://localhost:${server.port}/page`, 302)
        case "/json":
          return Response.json({ a: [1, 2] })
        case "/missing":
          return new Response("no such thing here", { status: 404, headers: { "content-type": "text/plain" } })
        case "/bin":
          return new Response(new Uint8Array([0, 1, 2, 3]), { headers: { "content-type": "application/octet-stream" } })
        case "/private":
          return req.headers.get("authorization") === "Bearer tok" ? new Response("secret ok") : new Response("who?", { status: 401 })
        case "/echo":
          // A server that echoes its request, as debugging endpoints do.
          return new Response(`${url.search}\nsession: ${/sid=([^;]*)/.exec(req.headers.get("cookie") ?? "")?.[1] ?? ""}`)
        case "/slow":
          await Bun.sleep(2000)
          return new Response("late")
        default:
          return new Response("?", { status: 500 })
      }
    },
  })
  base = `http://127.0.0.1:${server.port}`
})
afterAll(() => server.stop(true))

const ask = (url: string, more: Partial<WebFetchRequest> = {}): WebFetchRequest => ({
  url,
  method: "GET",
  verifyTls: true,
  timeoutSec: 10,
  textLimit: 100_000,
  credentialTable: {},
  env: {},
  ...more,
})
const fetchPage = (url: string, more: Partial<WebFetchRequest> = {}, hops = followEveryHop) =>
  Effect.runPromise(webFetch(ask(url, more)).pipe(Effect.provide(HttpClient.layer), Effect.provideService(FetchHops, hops)))
const failure = (url: string, more: Partial<WebFetchRequest> = {}, hops = followEveryHop) =>
  Effect.runPromise(Effect.flip(webFetch(ask(url, more))).pipe(Effect.provide(HttpClient.layer), Effect.provideService(FetchHops, hops)))
/** A judge that records the URLs it is asked about and answers `verdict`. */
const judging = (verdict: HopVerdict) => {
  const asked: Array<string> = []
  return { asked, hops: FetchHops.of({ judge: (url) => (asked.push(url), verdict) }) }
}

describe("webFetch (net domain)", () => {
  test("a redirect on the same host is followed without a word to the judge; one to another host is judged before any request goes there", async () => {
    const same = judging({ follow: false, asks: true })
    expect((await fetchPage(`${base}/hop`, {}, same.hops)).finalUrl).toBe(`${base}/page`)
    expect(same.asked).toEqual([])

    const held = judging({ follow: false, asks: true })
    const error = await failure(`${base}/elsewhere`, {}, held.hops)
    expect(held.asked).toEqual([`http://localhost:${server.port}/page`])
    expect(error).toMatchObject({ _tag: "FetchRedirectHeld", status: 302, from: `${base}/elsewhere`, to: `http://localhost:${server.port}/page`, denied: false })
    expect(error.message).toContain("approved for 127.0.0.1, not for localhost")

    const denied = await failure(`${base}/elsewhere`, {}, judging({ follow: false, denied: "A rule says no." }).hops)
    expect(denied).toMatchObject({ _tag: "FetchRedirectHeld", denied: true })
    expect(denied.message).toEndWith("not followed. A rule says no.")

    const allowed = judging({ follow: true })
    expect((await fetchPage(`${base}/elsewhere`, {}, allowed.hops)).finalUrl).toBe(`http://localhost:${server.port}/page`)
    expect(allowed.asked).toHaveLength(1)
  })

  test("a redirect is followed by hand and HTML comes back as Markdown with its title", async () => {
    const page = await fetchPage(`${base}/hop`)
    expect(page).toMatchObject({ url: `${base}/hop`, finalUrl: `${base}/page`, status: 200, statusLine: "200 OK", mediaType: "text/html" })
    expect(page.redirects).toEqual([{ url: `${base}/hop`, status: 302 }])
    expect(page.body).toMatchObject({ kind: "text", format: "html", title: "T", truncated: false, complete: true })
    expect(page.body.kind === "text" && page.body.content).toContain("# Hi")
  })

  test("JSON is pretty-printed; a 401 is retried once with the credentials configured for the host", async () => {
    const json = await fetchPage(`${base}/json`)
    expect(json.body).toMatchObject({ kind: "text", format: "json", content: '{\n  "a": [\n    1,\n    2\n  ]\n}' })
    const host = new URL(base).host
    const retried = await fetchPage(`${base}/private`, { credentialTable: { [host]: { bearer_env: "TOKEN_VAR" } }, env: { TOKEN_VAR: "tok" } })
    expect(retried).toMatchObject({ retried: true, status: 200 })
  })

  test("a credential query value or a cookie's value echoed back by the server is scrubbed; everyday values are kept", async () => {
    const page = await fetchPage(`${base}/echo?access_token=qs3cr3t-value&state=open&author=somebody1&page=2&mode=dark`, { headers: { Cookie: "sid=c00kie-value; theme=dark" } })
    const content = page.body.kind === "text" ? page.body.content : ""
    expect(content).not.toContain("qs3cr3t-value")
    expect(content).not.toContain("c00kie-value")
    expect(content).toContain("state=open")
    expect(content).toContain("author=somebody1")
    expect(content).toContain("page=2")
    // A short everyday cookie value (theme=dark) is no secret to cut out of the page.
    expect(content).toContain("mode=dark")
  })

  test("tagged errors: a bad URL, a scheme, an HTTP error with its excerpt, a binary body, a refused connection, the timeout", async () => {
    expect(await failure("not a url")).toMatchObject({ _tag: "FetchUrlInvalid", message: "'not a url' is not a valid URL" })
    expect(await failure("ftp://x/y")).toMatchObject({ _tag: "FetchUrlInvalid", message: "only http:// and https:// URLs can be fetched, not ftp:" })
    expect(await failure(`${base}/missing`)).toMatchObject({
      _tag: "FetchHttpStatus",
      status: 404,
      message: `HTTP 404 Not Found from ${base}/missing: no such thing here`,
      retriedWithCredentials: false,
    })
    expect(await failure(`${base}/bin`)).toMatchObject({ _tag: "FetchBinaryBody", contentType: "application/octet-stream", status: 200 })
    const dead = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") })
    const deadUrl = `http://127.0.0.1:${dead.port}/`
    dead.stop(true)
    expect(await failure(deadUrl)).toMatchObject({ _tag: "FetchNetworkFailed", tls: false, url: deadUrl })
    expect(await failure(`${base}/slow`, { timeoutSec: 0.2 })).toMatchObject({ _tag: "FetchTimedOut", url: `${base}/slow`, timeoutSec: 0.2 })
  })
})
