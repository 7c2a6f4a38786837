import { Duration, Effect } from "effect"
import { readRefusal } from "./refusal.ts"
import { VERSION } from "../version.ts"
import { secretBodyValues } from "./body-secrets.ts"
import { configuredCredentials, secretValues, withCredentials, type Credentials } from "./credentials.ts"
import { FetchHops } from "./fetch-hops.ts"
import { HttpClient, type HttpClientError, type HttpResponse } from "./http-client.ts"
import { bodyKind, mediaType, renderText } from "./response-body.ts"
import { isSecretHeader, redactUrl, scrubSecrets, secretHeaderValues, secretQueryValues } from "./secrets.ts"
import {
  FetchBinaryBody,
  FetchHttpStatus,
  FetchNetworkFailed,
  FetchRedirectFailed,
  FetchRedirectHeld,
  FetchTimedOut,
  FetchUrlInvalid,
  type WebFetchError,
} from "./web-fetch-error.ts"

/** Longest timeout and largest text a fetch accepts. */
export const MAX_FETCH_TIMEOUT_SEC = 300
export const MAX_FETCH_SIZE_KB = 1024
/** Images come back whole up to 1 MB. */
const IMAGE_LIMIT = 1024 * 1024
/**
 * Bytes of a body downloaded at most: what the text or image limit leaves out is kept on disk
 * for the model to read on, up to this; past it the download stops (and the answer says so).
 */
export const FETCH_SAVE_LIMIT = 10 * 1024 * 1024
const MAX_REDIRECTS = 10
const EXCERPT_CHARS = 300
/** Bytes of an HTTP error's answer downloaded (it is saved when longer than the excerpt). */
const ERROR_BODY_LIMIT = 1024 * 1024

const STATUS_TEXT: Record<number, string> = { 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 405: "Method Not Allowed", 408: "Request Timeout", 409: "Conflict", 410: "Gone", 413: "Payload Too Large", 422: "Unprocessable Entity", 429: "Too Many Requests", 500: "Internal Server Error", 501: "Not Implemented", 502: "Bad Gateway", 503: "Service Unavailable", 504: "Gateway Timeout" }

const isRedirect = (status: number) => status === 301 || status === 302 || status === 303 || status === 307 || status === 308

/** One request to make. */
export interface WebFetchRequest {
  readonly url: string
  readonly method: string
  readonly headers?: Readonly<Record<string, string>> | undefined
  readonly body?: string | undefined
  /** Credentials the caller gave (they win over the URL's and the configured ones). */
  readonly auth?: Credentials | undefined
  readonly verifyTls: boolean
  readonly timeoutSec: number
  /** Bytes of text kept at most. */
  readonly textLimit: number
  /** Lines of text kept at most (none when absent). */
  readonly textLines?: number
  /** The configured credentials per host (`tools.fetch.credentials`), tried once on a 401. */
  readonly credentialTable: Readonly<Record<string, unknown>>
  readonly env: Readonly<Record<string, string | undefined>>
}

/** What came back, every URL and text with the call's secrets scrubbed. */
export interface FetchedPage {
  /** The URL asked for. */
  readonly url: string
  readonly finalUrl: string
  readonly status: number
  /** `200 OK`. */
  readonly statusLine: string
  readonly contentType: string | null
  /** The media type without parameters ("" when none). */
  readonly mediaType: string
  readonly redirects: ReadonlyArray<{ readonly url: string; readonly status: number }>
  /** A 401 was retried with the credentials configured for the host. */
  readonly retried: boolean
  /** The Content-Length header, when there was a valid one (with a content encoding: the size on the wire). */
  readonly declaredLength: number | undefined
  /** The Content-Encoding the body came in ("gzip", "br", …; undefined for none or identity): it is decoded on the way in. */
  readonly contentEncoding: string | undefined
  readonly body:
    | { readonly kind: "none" }
    | {
        readonly kind: "image"
        /** The image, or (over the inline limit) the part downloaded, to be saved rather than returned. */
        readonly bytes: Uint8Array
        readonly complete: boolean
        /** Small enough to return inline. */
        readonly inline: boolean
      }
    | {
        readonly kind: "text"
        readonly format: "html" | "json" | "text"
        readonly content: string
        readonly title?: string
        /** Cut at the text limit (or the download stopped early). */
        readonly truncated: boolean
        /** The whole text rendered from what was downloaded, when `content` is only its start. */
        readonly whole?: string
        /** Cut by the line limit, the byte limit not reached. */
        readonly cutByLines?: boolean
        /** The whole body was downloaded (else it stopped at {@link FETCH_SAVE_LIMIT}). */
        readonly complete: boolean
        readonly downloaded: number
        /** The encoding the text was read from, when not UTF-8 or not as declared; `guessed` says why. */
        readonly charset?: string
        readonly guessed?: string
      }
}

/** A Content-Encoding header as one lowercase name list ("gzip", "deflate, br"), undefined for none or identity. */
const encodingOf = (header: string | null): string | undefined => {
  const names = (header ?? "").split(",").map((n) => n.trim().toLowerCase()).filter((n) => n !== "" && n !== "identity")
  return names.length > 0 ? names.join(", ") : undefined
}

const networkError = (e: HttpClientError, url: string, secrets: ReadonlyArray<string>) => {
  const text = `${e.code ?? ""} ${e.message}`
  const certificate = /cert|self.signed|issuer|expired|altname/i.test(text)
  // A handshake that failed before any certificate was judged: skipping verification cannot help.
  const handshake = !certificate && /EPROTO|handshake|wrong version|ssl|tls/i.test(text)
  // Bun's names for a body that does not decode as its Content-Encoding says (ZlibError, BrotliDecompressionError, …).
  if (/Zlib|Decompression|Zstd/i.test(text)) {
    const message = scrubSecrets(`The body from ${url} does not decode as its Content-Encoding says (${e.code ?? e.message}): the server's answer is broken.`, secrets)
    return new FetchNetworkFailed({ message, url, tls: false, undecodable: true })
  }
  const message = scrubSecrets(`${certificate || handshake ? "TLS" : "Network"} error fetching ${url}: ${e.message}${e.code ? ` (${e.code})` : ""}`, secrets)
  return new FetchNetworkFailed({ message, url, tls: certificate, ...(handshake ? { handshake } : {}) })
}

/**
 * One HTTP(S) exchange as the model should see it: redirects followed by hand
 * (credentials dropped across origins), one retry of a 401 with the host's
 * configured credentials, and the body read up to its limit and made readable.
 */
export const webFetch = (request: WebFetchRequest): Effect.Effect<FetchedPage, WebFetchError, HttpClient | FetchHops> =>
  Effect.gen(function* () {
    const http = yield* HttpClient
    const hops = yield* FetchHops
    let url: URL
    try {
      url = new URL(request.url)
    } catch {
      return yield* new FetchUrlInvalid({ message: `'${redactUrl(request.url)}' is not a valid URL` })
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      return yield* new FetchUrlInvalid({ message: `only http:// and https:// URLs can be fetched, not ${url.protocol}` })
    }
    url.hash = ""
    const given = request.auth
    const callerHeaders = request.headers ?? {}
    // Every secret this call may carry, scrubbed from anything recorded.
    const secrets = [
      ...secretValues(given),
      ...Object.entries(callerHeaders).flatMap(([k, v]) => (isSecretHeader(k) ? secretHeaderValues(v) : [])),
      ...(url.password ? [decodeURIComponent(url.password)] : []),
      ...secretQueryValues(url),
      ...secretBodyValues(request.body),
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
      let currentMethod = request.method
      let body = request.body
      let headers = given ? withCredentials(baseHeaders, given) : urlAuth ? withCredentials(baseHeaders, urlAuth) : baseHeaders
      const redirects: Array<{ url: string; status: number }> = []
      const reached = new Set([url.hostname])
      let retried = false
      for (;;) {
        const response: HttpResponse = yield* http
          .send({ url: current.toString(), method: currentMethod, headers, body, verifyTls: request.verifyTls })
          .pipe(Effect.mapError((e) => networkError(e, shown(current), secrets)))
        if (isRedirect(response.status)) {
          yield* response.discard
          const location = response.headers.get("location")
          const next = location ? URL.parse(location, current.toString()) : null
          // A redirect that names no place (or none that parses) leads nowhere: an error, not its empty body as the page.
          if (next === null) {
            const what = location ? `a Location that is not a URL ('${scrubSecrets(location, secrets).slice(0, 200)}')` : "no Location header"
            return yield* new FetchRedirectFailed({ message: `HTTP ${response.status} from ${shown(current)} is a redirect with ${what}: there is nowhere to follow it to.`, status: response.status, url: shown(current) })
          }
          if (redirects.length >= MAX_REDIRECTS) {
            return yield* new FetchRedirectFailed({ message: `Too many redirects (more than ${MAX_REDIRECTS}) starting at ${shown(url)}.`, url: shown(url) })
          }
          redirects.push({ url: shown(current), status: response.status })
          if (next.protocol !== "http:" && next.protocol !== "https:") {
            return yield* new FetchRedirectFailed({ message: `Redirected to an unsupported URL scheme (${next.protocol}) from ${shown(current)}.`, url: shown(current) })
          }
          // The call was judged for its own host: any other one the chain leads to is judged before a request goes there.
          if (!reached.has(next.hostname)) {
            const verdict = hops.judge(next.toString())
            if (!verdict.follow) {
              const [from, to] = [shown(current), shown(next)]
              const why =
                "denied" in verdict
                  ? verdict.denied
                  : `This call was approved for ${url.hostname}, not for ${next.hostname}, which the permission rules ask about.`
              return yield* new FetchRedirectHeld({ message: `HTTP ${response.status} from ${from} redirects to ${to}: not followed. ${why}`, status: response.status, from, to, denied: "denied" in verdict })
            }
            reached.add(next.hostname)
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
          const configured = configuredCredentials(request.credentialTable, current, request.env)
          if (configured) {
            // One retry with the credentials configured for this host.
            yield* response.discard
            secrets.push(...secretValues(configured))
            headers = withCredentials(headers, configured)
            retried = true
            continue
          }
        }
        const credentialsSent = Object.keys(headers).some((k) => /^(authorization|cookie)$/i.test(k))
        return { response, final: current, redirects, retried, method: currentMethod, credentialsSent }
      }
    })

    const fetched = Effect.gen(function* () {
      const { response, final, redirects, retried, method: finalMethod, credentialsSent } = yield* exchange
      const contentType = response.headers.get("content-type")
      const type = mediaType(contentType)
      const lengthHeader = Number(response.headers.get("content-length") ?? Number.NaN)
      const status = response.status
      const statusLine = `${status}${response.statusText || STATUS_TEXT[status] ? ` ${response.statusText || STATUS_TEXT[status]}` : ""}`
      const finalUrl = shown(final)

      if (status >= 400) {
        const { bytes, complete } = yield* response.read(ERROR_BODY_LIMIT).pipe(Effect.orElseSucceed(() => ({ bytes: new Uint8Array(0), complete: true })))
        const kind = bodyKind(contentType, bytes)
        const whole =
          kind === "binary" || kind === "image" ? "" : scrubSecrets(renderText(bytes, kind === "html" ? "html" : "text", contentType, final.toString(), ERROR_BODY_LIMIT, complete).content, secrets)
        const flat = whole.replace(/\s+/g, " ").trim()
        const excerpt = flat.slice(0, EXCERPT_CHARS)
        const retryAfter = response.headers.get("retry-after")
        // A refusal is read for what it says (a challenge, bot protection); the challenge may echo a secret.
        const refusal = status === 401 || status === 403 ? readRefusal(response.headers, whole, credentialsSent) : undefined
        return yield* new FetchHttpStatus({
          message: `HTTP ${statusLine} from ${finalUrl}${excerpt ? `: ${excerpt}` : ""}`,
          status,
          finalUrl,
          ...(retryAfter ? { retryAfter } : {}),
          retriedWithCredentials: retried,
          ...(refusal
            ? { refusal: refusal.challenge !== undefined ? { ...refusal, challenge: scrubSecrets(refusal.challenge, secrets) } : refusal }
            : {}),
          // More than the excerpt: the whole answer goes with the error, for the tool to keep.
          ...(flat.length > EXCERPT_CHARS || (!complete && whole !== "") ? { body: whole, bodyCut: !complete } : {}),
        })
      }

      const page = {
        url: shown(url),
        finalUrl,
        status,
        statusLine,
        contentType,
        mediaType: type,
        redirects,
        retried,
        declaredLength: Number.isFinite(lengthHeader) ? lengthHeader : undefined,
        contentEncoding: encodingOf(response.headers.get("content-encoding")),
      }
      if (finalMethod === "HEAD" || status === 204 || status === 304) {
        yield* response.discard
        return { ...page, body: { kind: "none" } } satisfies FetchedPage
      }
      if (type.startsWith("image/") && type !== "image/svg+xml") {
        const { bytes, complete } = yield* response.read(FETCH_SAVE_LIMIT).pipe(Effect.mapError((e) => networkError(e, finalUrl, secrets)))
        return { ...page, body: { kind: "image", bytes, complete, inline: complete && bytes.length <= IMAGE_LIMIT } } satisfies FetchedPage
      }
      const { bytes, complete } = yield* response.read(Math.max(request.textLimit, FETCH_SAVE_LIMIT)).pipe(Effect.mapError((e) => networkError(e, finalUrl, secrets)))
      const kind = bodyKind(contentType, bytes)
      if (kind === "binary" || kind === "image") return yield* new FetchBinaryBody({ finalUrl, contentType, status })
      const rendered = renderText(bytes, kind, contentType, final.toString(), request.textLimit, complete, request.textLines)
      return {
        ...page,
        body: {
          kind: "text",
          format: kind,
          content: scrubSecrets(rendered.content, secrets),
          ...(rendered.whole !== undefined ? { whole: scrubSecrets(rendered.whole, secrets) } : {}),
          ...(rendered.title ? { title: rendered.title } : {}),
          truncated: rendered.truncated,
          ...(rendered.cutByLines ? { cutByLines: true } : {}),
          ...(rendered.charset ? { charset: rendered.charset } : {}),
          ...(rendered.guessed ? { guessed: rendered.guessed } : {}),
          complete,
          downloaded: bytes.length,
        },
      } satisfies FetchedPage
    })

    return yield* fetched.pipe(
      Effect.timeoutOrElse({
        duration: Duration.millis(Math.round(request.timeoutSec * 1000)),
        orElse: () => Effect.fail(new FetchTimedOut({ url: shown(url), timeoutSec: request.timeoutSec })),
      }),
    )
  })
