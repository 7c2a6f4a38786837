import { Context, Data, Effect, Layer } from "effect"

/** One HTTP request as the fetch tool sends it: no redirect following, the caller walks the chain itself. */
export interface HttpRequest {
  readonly url: string
  readonly method: string
  readonly headers: Readonly<Record<string, string>>
  readonly body?: string | undefined
  /** False skips TLS certificate verification (self-signed intranet hosts). */
  readonly verifyTls: boolean
}

/** A response whose body has not been read yet. */
export interface HttpResponse {
  readonly status: number
  readonly statusText: string
  readonly headers: Headers
  /**
   * Reads the body up to `limit` bytes, then stops and cancels the rest.
   * `complete` is false when more bytes were there.
   */
  readonly read: (limit: number) => Effect.Effect<{ readonly bytes: Uint8Array; readonly complete: boolean }, HttpClientError>
  /** Drops the body unread (redirects, retries). */
  readonly discard: Effect.Effect<void>
}

/** The request never produced a response: refused connection, DNS failure, TLS failure, reset. */
export class HttpClientError extends Data.TaggedError("HttpClientError")<{
  readonly message: string
  /** The platform's error code when there is one (ECONNREFUSED, DEPTH_ZERO_SELF_SIGNED_CERT, …). */
  readonly code?: string
}> {}

export interface HttpClientShape {
  /** Sends one request with redirects left to the caller (`redirect: "manual"`). Interruption aborts it. */
  readonly send: (request: HttpRequest) => Effect.Effect<HttpResponse, HttpClientError>
}

type FetchFn = (url: string, init: RequestInit & { tls?: { rejectUnauthorized?: boolean } }) => Promise<Response>

/**
 * A failed fetch's message for a person: Bun appends advice meant for the program's author ("For more
 * information, pass `verbose: true` in the second argument to fetch()"), which is cut.
 */
export const fetchErrorText = (e: unknown): string => {
  const message = e instanceof Error || typeof (e as { message?: unknown })?.message === "string" ? String((e as { message: unknown }).message) : String(e)
  return message.replace(/\s*For more information, pass `verbose: true` in the second argument to fetch\(\)\.?/, "")
}

const describe = (e: unknown): HttpClientError => {
  const err = e as { code?: unknown }
  return new HttpClientError({ message: fetchErrorText(e), ...(typeof err?.code === "string" ? { code: err.code } : {}) })
}

const readLimited = (response: Response, limit: number) =>
  Effect.gen(function* () {
    const body = response.body
    if (!body) return { bytes: new Uint8Array(0), complete: true }
    const reader = body.getReader()
    const chunks: Array<Uint8Array> = []
    let size = 0
    let complete = true
    const step = Effect.tryPromise({ try: () => reader.read(), catch: describe })
    for (;;) {
      const next = yield* step
      if (next.done) break
      const chunk = next.value
      if (size + chunk.byteLength > limit) {
        chunks.push(chunk.subarray(0, limit - size))
        size = limit
        complete = false
        break
      }
      chunks.push(chunk)
      size += chunk.byteLength
    }
    if (!complete) yield* Effect.promise(() => reader.cancel().catch(() => undefined))
    const bytes = new Uint8Array(size)
    let at = 0
    for (const c of chunks) {
      bytes.set(c, at)
      at += c.byteLength
    }
    return { bytes, complete }
  }).pipe(Effect.onInterrupt(() => Effect.promise(() => response.body?.cancel().catch(() => undefined) ?? Promise.resolve())))

/** Builds the client over a fetch function (Bun's own fetch in the product). */
export const makeHttpClient = (fetchFn: FetchFn): HttpClientShape => ({
  send: (request) =>
    Effect.tryPromise({
      try: (signal) =>
        fetchFn(request.url, {
          method: request.method,
          headers: request.headers,
          ...(request.body !== undefined ? { body: request.body } : {}),
          redirect: "manual",
          signal,
          ...(request.verifyTls ? {} : { tls: { rejectUnauthorized: false } }),
        }),
      catch: describe,
    }).pipe(
      Effect.map(
        (response): HttpResponse => ({
          status: response.status,
          statusText: response.statusText,
          headers: response.headers,
          read: (limit) => readLimited(response, limit),
          discard: Effect.promise(() => response.body?.cancel().catch(() => undefined) ?? Promise.resolve()),
        }),
      ),
    ),
})

/** HTTP for tools (fetch): injected, so tools never call a global fetch. */
export class HttpClient extends Context.Service<HttpClient, HttpClientShape>()("anvil/HttpClient") {
  /** Bun's fetch (not undici). */
  static make = Effect.sync(() => makeHttpClient((url, init) => globalThis.fetch(url, init)))
  static layer = Layer.effect(HttpClient, HttpClient.make)
}
