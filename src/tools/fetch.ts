import { Duration, Effect, Schema } from "effect"
import { Config } from "../config/config.ts"
import { configuredCredentials, secretValues, withCredentials, type Credentials } from "../net/credentials.ts"
import { HttpClient, type HttpClientError, type HttpResponse } from "../net/http-client.ts"
import { bodyKind, mediaType, renderText } from "../net/response-body.ts"
import { isSecretHeader, redactFetchParams, redactUrl, scrubSecrets } from "../net/secrets.ts"
import { hint } from "../protocol/hint.ts"
import { defineTool, type ToolResult } from "../tool-framework/definition.ts"
import { invalidParam, toolError, type ToolError } from "../protocol/tool-error.ts"
import { VERSION } from "../version.ts"
import description from "./fetch.md" with { type: "text" }
import { FETCH_DEFAULTS } from "../config/sections/tools.ts"

const MAX_TIMEOUT_SEC = 300
const MAX_SIZE_KB = 1024
/** Images come back base64-encoded up to 1 MB. */
const IMAGE_LIMIT = 1024 * 1024
/** An HTML page shrinks when converted; this much is downloaded per byte of text kept. */
const HTML_DOWNLOAD_FACTOR = 5
const MAX_REDIRECTS = 10
const EXCERPT_CHARS = 300

const Method = Schema.Literals(["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"])

const Auth = Schema.Union([
  Schema.Struct({ type: Schema.Literal("basic"), username: Schema.String, password: Schema.String }),
  Schema.Struct({ type: Schema.Literal("bearer"), token: Schema.String }),
  Schema.Struct({ type: Schema.Literal("cookie"), cookie: Schema.String }),
]).annotate({ description: 'Credentials to send: {"type":"basic","username","password"}, {"type":"bearer","token"} or {"type":"cookie","cookie":"a=1; b=2"}.' })

const STATUS_TEXT: Record<number, string> = { 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 405: "Method Not Allowed", 408: "Request Timeout", 409: "Conflict", 410: "Gone", 413: "Payload Too Large", 422: "Unprocessable Entity", 429: "Too Many Requests", 500: "Internal Server Error", 501: "Not Implemented", 502: "Bad Gateway", 503: "Service Unavailable", 504: "Gateway Timeout" }

/** Types a result where a branch's object literal would otherwise not widen to ToolResult. */
const result = (r: ToolResult): ToolResult => r

const isRedirect = (status: number) => status === 301 || status === 302 || status === 303 || status === 307 || status === 308

/** The envelope code for an HTTP error status. */
const codeFor = (status: number): ToolError["code"] =>
  status === 429 ? "RATE_LIMIT" : status === 404 || status === 410 ? "NOT_FOUND" : status === 401 || status === 403 ? "PERMISSION_DENIED" : status === 408 || status === 504 ? "TIMEOUT" : "EXECUTION_ERROR"

const networkError = (e: HttpClientError, url: string, secrets: ReadonlyArray<string>): ToolError => {
  const tls = /cert|ssl|tls|self.signed/i.test(`${e.code ?? ""} ${e.message}`)
  const message = scrubSecrets(`${tls ? "TLS" : "Network"} error fetching ${url}: ${e.message}${e.code ? ` (${e.code})` : ""}`, secrets)
  return toolError("NETWORK_ERROR", message, {
    retryable: !tls,
    ...(tls ? { hints: [hint("WebFetch", "low", { url, verify_tls: false })], details: "Only skip TLS verification for a host you trust (an intranet server with a self-signed certificate)." } : {}),
  })
}

/** fetch: one HTTP(S) request, the answer as readable text or a base64 image. */
export const fetchTool = defineTool({
  name: "fetch",
  title: "WebFetch",
  description,
  aliases: ["webfetch", "web_fetch"],
  permission: "ask",
  parameterAliases: { timeout: "timeout_sec", insecure_skip_verify: "verify_tls" },
  redact: redactFetchParams,
  parameters: Schema.Struct({
    url: Schema.String.annotate({ description: "The http:// or https:// URL." }),
    method: Schema.optionalKey(Method.annotate({ description: "HTTP method (default GET)." })),
    headers: Schema.optionalKey(Schema.Record(Schema.String, Schema.String).annotate({ description: "Request headers." })),
    body: Schema.optionalKey(Schema.String.annotate({ description: "Request body (for POST, PUT, PATCH)." })),
    timeout_sec: Schema.optionalKey(
      Schema.Finite.check(Schema.isGreaterThan(0), Schema.isLessThanOrEqualTo(MAX_TIMEOUT_SEC)).annotate({
        description: `Give up after this many seconds (default ${FETCH_DEFAULTS.timeout_sec}, max ${MAX_TIMEOUT_SEC}).`,
      }),
    ),
    max_size_kb: Schema.optionalKey(
      Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: MAX_SIZE_KB })).annotate({
        description: `Most text to return, in KB (default ${FETCH_DEFAULTS.max_size_kb}, max ${MAX_SIZE_KB}); longer text is cut and the result marked partial.`,
      }),
    ),
    auth: Schema.optionalKey(Auth),
    verify_tls: Schema.optionalKey(Schema.Boolean.annotate({ description: "false skips TLS certificate checks (self-signed intranet hosts only). Default true." })),
  }),
  run: (params) =>
    Effect.gen(function* () {
      const http = yield* HttpClient
      const config = yield* Config
      let url: URL
      try {
        url = new URL(params.url)
      } catch {
        return yield* Effect.fail(invalidParam("url", `'${redactUrl(params.url)}' is not a valid URL`))
      }
      if (url.protocol !== "http:" && url.protocol !== "https:") {
        return yield* Effect.fail(invalidParam("url", `only http:// and https:// URLs can be fetched, not ${url.protocol}`))
      }
      url.hash = ""
      const method = params.method ?? "GET"
      const verifyTls = params.verify_tls ?? config.get("tools.fetch.verify_tls", FETCH_DEFAULTS.verify_tls)
      const timeoutSec = params.timeout_sec ?? config.get("tools.fetch.timeout_sec", FETCH_DEFAULTS.timeout_sec)
      const textLimit = (params.max_size_kb ?? config.get("tools.fetch.max_size_kb", FETCH_DEFAULTS.max_size_kb)) * 1024
      const credentialTable = config.get("tools.fetch.credentials", {} as Record<string, unknown>)
      const given = params.auth as Credentials | undefined
      const callerHeaders = params.headers ?? {}
      // Every secret this call may carry, scrubbed from anything recorded.
      const secrets = [
        ...secretValues(given),
        ...Object.entries(callerHeaders).flatMap(([k, v]) => (isSecretHeader(k) ? [v, v.replace(/^(Bearer|Basic|Token)\s+/i, "")] : [])),
        ...(url.password ? [decodeURIComponent(url.password)] : []),
      ]
      const shown = (u: URL | string) => scrubSecrets(redactUrl(u.toString()), secrets)

      const baseHeaders: Record<string, string> = {
        "User-Agent": `anvil/${VERSION}`,
        Accept: "text/markdown, text/html;q=0.9, application/json;q=0.9, text/plain;q=0.8, */*;q=0.5",
        ...callerHeaders,
      }
      // Credentials in the URL become a Basic header, as browsers do.
      const urlAuth: Credentials | undefined =
        url.username !== "" ? { type: "basic", username: decodeURIComponent(url.username), password: decodeURIComponent(url.password) } : undefined
      url.username = ""
      url.password = ""

      const exchange = Effect.gen(function* () {
        let current = url
        let currentMethod = method
        let body = params.body
        let headers = given ? withCredentials(baseHeaders, given) : urlAuth ? withCredentials(baseHeaders, urlAuth) : baseHeaders
        const redirects: Array<{ url: string; status: number }> = []
        let retried = false
        for (;;) {
          const response: HttpResponse = yield* http
            .send({ url: current.toString(), method: currentMethod, headers, body, verifyTls })
            .pipe(Effect.mapError((e) => networkError(e, shown(current), secrets)))
          if (isRedirect(response.status) && response.headers.get("location")) {
            yield* response.discard
            if (redirects.length >= MAX_REDIRECTS) {
              return yield* Effect.fail(toolError("EXECUTION_ERROR", `Too many redirects (more than ${MAX_REDIRECTS}) starting at ${shown(url)}.`))
            }
            const next = new URL(response.headers.get("location")!, current)
            redirects.push({ url: shown(current), status: response.status })
            if (next.protocol !== "http:" && next.protocol !== "https:") {
              return yield* Effect.fail(toolError("EXECUTION_ERROR", `Redirected to an unsupported URL scheme (${next.protocol}) from ${shown(current)}.`))
            }
            // Credentials never follow a redirect to another origin.
            if (next.origin !== current.origin) {
              headers = Object.fromEntries(Object.entries(headers).filter(([k]) => !/^(authorization|proxy-authorization|cookie)$/i.test(k)))
            }
            if (response.status === 303 || ((response.status === 301 || response.status === 302) && currentMethod === "POST")) {
              currentMethod = currentMethod === "HEAD" ? "HEAD" : "GET"
              body = undefined
            }
            next.hash = ""
            current = next
            continue
          }
          if (response.status === 401 && !retried && !given && !urlAuth && !Object.keys(callerHeaders).some((k) => /^(authorization|cookie)$/i.test(k))) {
            const configured = configuredCredentials(credentialTable, current, config.env)
            if (configured) {
              // One retry with the credentials configured for this host.
              yield* response.discard
              secrets.push(...secretValues(configured))
              headers = withCredentials(headers, configured)
              retried = true
              continue
            }
          }
          return { response, final: current, redirects, retried, method: currentMethod }
        }
      })

      const fetched = Effect.gen(function* () {
        const { response, final, redirects, retried, method: finalMethod } = yield* exchange
        const contentType = response.headers.get("content-type")
        const type = mediaType(contentType)
        const lengthHeader = Number(response.headers.get("content-length") ?? Number.NaN)
        const status = response.status
        const statusLine = `${status}${response.statusText || STATUS_TEXT[status] ? ` ${response.statusText || STATUS_TEXT[status]}` : ""}`
        const finalUrl = shown(final)

        if (status >= 400) {
          const { bytes } = yield* response.read(4096).pipe(Effect.orElseSucceed(() => ({ bytes: new Uint8Array(0), complete: true })))
          const kind = bodyKind(contentType, bytes)
          const excerptSource = kind === "binary" || kind === "image" ? "" : renderText(bytes, kind === "html" ? "html" : "text", contentType, final.toString(), 4096, true).content
          const excerpt = scrubSecrets(excerptSource.replace(/\s+/g, " ").trim().slice(0, EXCERPT_CHARS), secrets)
          const retryAfter = response.headers.get("retry-after")
          const code = codeFor(status)
          return yield* Effect.fail(
            toolError(code, `HTTP ${statusLine} from ${finalUrl}${excerpt ? `: ${excerpt}` : ""}`, {
              retryable: status === 429 || status === 502 || status === 503 || status === 504 || status === 408,
              context: { status_code: status, final_url: finalUrl },
              ...(retryAfter ? { details: `Retry-After: ${retryAfter}` } : {}),
              ...(status === 401 && retried ? { details: "The credentials configured for this host were sent on a retry and were refused too." } : {}),
              ...(status === 429 ? { hints: [hint("WebFetch", "medium", { url: finalUrl })] } : {}),
            }),
          )
        }

        const summary = [
          `Status: ${statusLine}`,
          `Final URL: ${finalUrl}`,
          ...(redirects.length > 0 ? [`Redirects: ${[...redirects.map((r) => `${r.url} (${r.status})`), finalUrl].join(" -> ")}`] : []),
          ...(retried ? ["Authentication: retried with the credentials configured for this host"] : []),
          `Content-Type: ${contentType ?? "(none)"}`,
        ]
        const base = { url: shown(url), final_url: finalUrl, status_code: status, content_type: type || null, redirects }

        if (finalMethod === "HEAD" || status === 204 || status === 304) {
          yield* response.discard
          return result({
            header: `WebFetch: ${finalUrl}`,
            data: { ...base, is_image: false, content: "", size_bytes: Number.isFinite(lengthHeader) ? lengthHeader : 0, truncated: false },
            text: `${summary.join("\n")}\n\n(no body)`,
            stats: { size_bytes: 0 },
          })
        }

        if (type.startsWith("image/") && type !== "image/svg+xml") {
          const { bytes, complete } = yield* response.read(IMAGE_LIMIT).pipe(Effect.mapError((e) => networkError(e, finalUrl, secrets)))
          if (!complete) {
            const size = Number.isFinite(lengthHeader) ? `${lengthHeader} bytes` : "more than 1 MB"
            return result({
              status: "partial" as const,
              header: `WebFetch: ${finalUrl}`,
              data: { ...base, is_image: true, content: "", encoding: null, size_bytes: Number.isFinite(lengthHeader) ? lengthHeader : bytes.length, truncated: true },
              text: `${summary.join("\n")}\n\nImage too large: ${size} (the limit for images is 1 MB); its content was not returned.`,
              stats: { size_bytes: bytes.length },
              hints: [hint("Bash", "medium", { command: `curl -sSL -o <file> '${finalUrl}'` })],
              truncation: { reason: "image_size_limit" },
            })
          }
          return result({
            header: `WebFetch: ${finalUrl}`,
            data: { ...base, is_image: true, content: Buffer.from(bytes).toString("base64"), encoding: "base64", size_bytes: bytes.length, truncated: false },
            text: `${summary.join("\n")}\n\nImage (${type}, ${bytes.length} bytes) returned base64-encoded in data.content.`,
            stats: { size_bytes: bytes.length },
          })
        }

        const download = type === "text/html" || type === "application/xhtml+xml" || type === "" ? textLimit * HTML_DOWNLOAD_FACTOR : textLimit
        const { bytes, complete } = yield* response.read(download).pipe(Effect.mapError((e) => networkError(e, finalUrl, secrets)))
        const kind = bodyKind(contentType, bytes)
        if (kind === "binary" || kind === "image") {
          return yield* Effect.fail(
            toolError("BINARY_FILE", `${finalUrl} returned binary content (${contentType ?? "no content type"}); only text and images can be shown.`, {
              context: { status_code: status, final_url: finalUrl },
              hints: [hint("Bash", "medium", { command: `curl -sSL -o <file> '${finalUrl}'` })],
            }),
          )
        }
        const rendered = renderText(bytes, kind, contentType, final.toString(), textLimit, complete)
        const content = scrubSecrets(rendered.content, secrets)
        const size = Number.isFinite(lengthHeader) ? lengthHeader : bytes.length
        const kb = Math.round(textLimit / 1024)
        const lines = [...summary, ...(rendered.title ? [`Title: ${rendered.title}`] : [])]
        if (rendered.truncated) {
          lines.push(`Content: ${kind === "html" ? "HTML as Markdown" : kind.toUpperCase()} (TRUNCATED: cut at ${kb} KB${complete ? "" : ` of ${Number.isFinite(lengthHeader) ? `${lengthHeader} bytes` : "a longer body"}`})`)
        } else lines.push(`Content: ${kind === "html" ? "HTML as Markdown" : kind.toUpperCase()}, ${size} bytes`)
        const more = Math.min(kb * 4, MAX_SIZE_KB)
        return result({
          ...(rendered.truncated ? { status: "partial" as const } : {}),
          header: `WebFetch: ${finalUrl}`,
          data: { ...base, is_image: false, content, size_bytes: size, truncated: rendered.truncated, ...(rendered.title ? { title: rendered.title } : {}) },
          text: `${lines.join("\n")}\n\n${content}`,
          stats: { size_bytes: bytes.length, content_bytes: Buffer.byteLength(content) },
          ...(rendered.truncated
            ? {
                hints: [
                  ...(kb < MAX_SIZE_KB ? [hint("WebFetch", "high", { url: finalUrl, max_size_kb: more })] : []),
                  hint("Bash", "medium", { command: `curl -sSL -o <file> '${finalUrl}'` }),
                ],
                truncation: { reason: "size_limit" },
              }
            : {}),
        })
      })

      return yield* fetched.pipe(
        Effect.timeoutOrElse({
          duration: Duration.millis(Math.round(timeoutSec * 1000)),
          orElse: () =>
            Effect.fail(
              toolError("TIMEOUT", `No complete answer from ${shown(url)} within ${timeoutSec} s.`, {
                hints: [hint("WebFetch", "medium", { url: shown(url), timeout_sec: Math.min(timeoutSec * 2, MAX_TIMEOUT_SEC) })],
              }),
            ),
        }),
      )
    }),
})
