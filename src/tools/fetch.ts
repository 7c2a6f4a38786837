import { Effect, Schema, SchemaGetter } from "effect"
import { Config } from "../config/config.ts"
import type { Credentials } from "../net/credentials.ts"
import { redactFetchParams } from "../net/secrets.ts"
import { saveErrorBody, saveImage } from "../net/saved-body.ts"
import { FETCH_SAVE_LIMIT, MAX_FETCH_SIZE_KB, MAX_FETCH_TIMEOUT_SEC, webFetch, type FetchedPage } from "../net/web-fetch.ts"
import { hint, shellQuote } from "../protocol/hint.ts"
import { FetchHops } from "../net/fetch-hops.ts"
import { HttpClient } from "../net/http-client.ts"
import { defineTool, type ToolResult } from "../tool-framework/definition.ts"
import description from "./fetch.md" with { type: "text" }
import { shownPrompt, withPrompt } from "./fetch-prompt.ts"
import { FETCH_DEFAULTS } from "../config/sections/tools.ts"
import { fetchToolError } from "./net-errors.ts"
import { invalidParam } from "../protocol/tool-error.ts"
import { counted } from "../protocol/plural.ts"
import { OutputSettings } from "../output/output-settings.ts"

/** Why a request header cannot be sent (HTTP's token rule for names; no line breaks or NUL in values), if it cannot. */
const badHeader = (headers: Readonly<Record<string, string>>): string | undefined => {
  for (const [name, value] of Object.entries(headers)) {
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) return `header name '${name.slice(0, 80)}' is not a valid HTTP header name`
    if (/[\r\n\0]/.test(value)) return `header '${name}' has a line break or NUL byte in its value`
    // HTTP header values are bytes: a character past U+00FF cannot be sent (encode it, e.g. percent-encoding or RFC 8187).
    if (/[^\u0000-\u00ff]/.test(value)) return `header '${name}' has a character that HTTP headers cannot carry (only Latin-1; encode it, e.g. percent-encoding)`
  }
  return undefined
}

/** What the summary above a page (status, URLs, redirects, the saved text's name) may take of the output budget. */
const SUMMARY_ROOM = { bytes: 5 * 1024, lines: 50 } as const

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"] as const
type Method = (typeof METHODS)[number]

/** The method in any case ("get" is GET, as curl and HTTP libraries take it); an unknown one is refused naming the seven. */
const Method = Schema.String.annotate({ description: `${METHODS.join(", ")} (any case); default GET.` }).pipe(
  Schema.decodeTo(Schema.Literals(METHODS), {
    decode: SchemaGetter.transform((s: string) => s.trim().toUpperCase() as Method),
    encode: SchemaGetter.transform((s: Method): string => s),
  }),
)

const Auth = Schema.Union([
  Schema.Struct({ type: Schema.Literal("basic"), username: Schema.String, password: Schema.String }),
  Schema.Struct({ type: Schema.Literal("bearer"), token: Schema.String }),
  Schema.Struct({ type: Schema.Literal("cookie"), cookie: Schema.String }),
]).annotate({ description: 'Credentials to send.' })

/** fetch: one HTTP(S) request, the answer as readable text or a base64 image. */
export const fetchTool = defineTool({
  name: "fetch",
  requires: [HttpClient, FetchHops],
  title: "WebFetch",
  description,
  aliases: ["webfetch", "web_fetch"],
  permission: "ask",
  parameterAliases: { timeout: "timeout_sec", insecure_skip_verify: "verify_tls" },
  redact: redactFetchParams,
  parameters: Schema.Struct({
    url: Schema.String.annotate({ description: "http(s) URL." }),
    method: Schema.optionalKey(Method),
    headers: Schema.optionalKey(Schema.Record(Schema.String, Schema.String).annotate({ description: "Headers." })),
    body: Schema.optionalKey(Schema.String.annotate({ description: "Body." })),
    timeout_sec: Schema.optionalKey(
      Schema.Finite.check(Schema.isGreaterThan(0), Schema.isLessThanOrEqualTo(MAX_FETCH_TIMEOUT_SEC)).annotate({
        description: `Default ${FETCH_DEFAULTS.timeout_sec}, max ${MAX_FETCH_TIMEOUT_SEC}.`,
      }),
    ),
    max_size_kb: Schema.optionalKey(
      Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: MAX_FETCH_SIZE_KB })).annotate({
        description: `Text returned (default ${FETCH_DEFAULTS.max_size_kb}; at most what the output limit keeps); the rest is saved to a file (partial).`,
      }),
    ),
    auth: Schema.optionalKey(Auth),
    verify_tls: Schema.optionalKey(Schema.Boolean.annotate({ description: "false: skip certificate checks (self-signed intranet hosts only)." })),
    prompt: Schema.optionalKey(Schema.String.annotate({ description: "What you want from it (shown above the text)." })),
  }),
  run: (params) =>
    Effect.gen(function* () {
      const config = yield* Config
      const refused = params.headers ? badHeader(params.headers) : undefined
      if (refused !== undefined) return yield* Effect.fail(invalidParam("headers", refused))
      const method = params.method ?? "GET"
      const bodiless = method === "GET" || method === "HEAD"
      // An empty body is no body: a GET with body "" is sent as a plain GET, not refused.
      const body = bodiless && params.body === "" ? undefined : params.body
      if (body !== undefined && bodiless) {
        return yield* Effect.fail(invalidParam("body", `a ${method} request cannot carry a body; use method POST (or PUT, PATCH) to send one`))
      }
      // At most what the output layer keeps of a result, less room for the summary above the page: a longer text would
      // be cut again there, and the Read offered of the saved whole would skip lines never shown.
      const output = yield* OutputSettings
      const asked = (params.max_size_kb ?? config.get("tools.fetch.max_size_kb", FETCH_DEFAULTS.max_size_kb)) * 1024
      // The prompt shown above the page takes its room from the page's, so the whole text stays within the limit.
      const prompt = shownPrompt(params.prompt)
      const textLimit = Math.max(1024, Math.min(asked, output.maxBytes - SUMMARY_ROOM.bytes - (prompt?.bytes ?? 0)))
      const textLines = Math.max(10, output.maxLines - SUMMARY_ROOM.lines - (prompt?.lines ?? 0))
      const page = yield* webFetch({
        url: params.url,
        method,
        headers: params.headers,
        body,
        auth: params.auth as Credentials | undefined,
        verifyTls: params.verify_tls ?? config.get("tools.fetch.verify_tls", FETCH_DEFAULTS.verify_tls),
        timeoutSec: params.timeout_sec ?? config.get("tools.fetch.timeout_sec", FETCH_DEFAULTS.timeout_sec),
        textLimit,
        textLines,
        credentialTable: config.get("tools.fetch.credentials", {} as Record<string, unknown>),
        env: config.env,
      }).pipe(Effect.catch((e) => Effect.flatMap(saveErrorBody(e), (saved) => Effect.fail(fetchToolError(e, saved)))))
      if (page.body.kind === "image" && !page.body.inline) return yield* savedImage(page, page.body.bytes, page.body.complete)
      return withPrompt(pageResult(page, textLimit), prompt)
    }),
})

/**
 * The body's size as decoded (what `content` was made from): known when it was read whole; else the
 * Content-Length, unless the body came compressed (then that is only the size on the wire: null).
 * With a content encoding, `transfer_bytes` and `content_encoding` say what came over the wire.
 */
const bodySize = (page: FetchedPage, read: { readonly bytes: number; readonly complete: boolean } | undefined) => ({
  size_bytes: read?.complete ? read.bytes : page.contentEncoding === undefined ? (page.declaredLength ?? read?.bytes ?? 0) : null,
  ...(page.contentEncoding !== undefined ? { content_encoding: page.contentEncoding, transfer_bytes: page.declaredLength ?? null } : {}),
})

/** "gzip, 12,000 bytes transferred" for a compressed body, else "". */
const transferNote = (page: FetchedPage): string =>
  page.contentEncoding === undefined
    ? ""
    : ` (${page.contentEncoding}${page.declaredLength !== undefined ? `, ${counted(page.declaredLength, "byte")} transferred` : ""})`

/** The page as the model reads it: a summary of the exchange, then the text (or where the image is). */
const pageResult = (page: FetchedPage, textLimit: number): ToolResult => {
  const { finalUrl, body } = page
  const summary = [
    `Status: ${page.statusLine}`,
    `Final URL: ${finalUrl}`,
    ...(page.redirects.length > 0 ? [`Redirects: ${[...page.redirects.map((r) => `${r.url} (${r.status})`), finalUrl].join(" -> ")}`] : []),
    ...(page.retried ? ["Authentication: retried with the credentials configured for this host"] : []),
    `Content-Type: ${page.contentType ?? "(none)"}`,
  ]
  const base = { url: page.url, final_url: finalUrl, status_code: page.status, content_type: page.mediaType || null, redirects: page.redirects }
  const header = `WebFetch: ${finalUrl}`
  const curl = hint("Bash", "medium", { command: `curl -sSL -o <file> ${shellQuote(finalUrl)}` })

  if (body.kind === "none") {
    return {
      header,
      data: { ...base, is_image: false, content: "", ...bodySize(page, undefined), truncated: false },
      text: `${summary.join("\n")}\n\n(no body)`,
      stats: { size_bytes: 0 },
    }
  }
  if (body.kind === "image") {
    const { bytes } = body
    return {
      header,
      data: { ...base, is_image: true, content: Buffer.from(bytes).toString("base64"), encoding: "base64", ...bodySize(page, { bytes: bytes.length, complete: true }), truncated: false },
      text: `${summary.join("\n")}\n\nImage (${page.mediaType}, ${counted(bytes.length, "byte")}) returned base64-encoded in data.content.`,
      stats: { size_bytes: bytes.length },
    }
  }

  const { content, format } = body
  const sizes = bodySize(page, { bytes: body.downloaded, complete: body.complete })
  const kb = Math.round(textLimit / 1024)
  const lines = [...summary, ...(body.title ? [`Title: ${body.title}`] : [])]
  const what = format === "html" ? "HTML as Markdown" : format.toUpperCase()
  const stopped = body.complete ? "" : `; ${stoppedNote(page, body.downloaded)}`
  // The encoding, when the text was not read as the server said: the model should know é may have been meant otherwise.
  const read = body.guessed ? `; read as ${body.charset} (${body.guessed})` : ""
  if (body.truncated) {
    const first = body.cutByLines ? counted(content.split("\n").length - 1, "line") : `${kb} KB`
    const cutAt = body.whole !== undefined ? `first ${first} of ${counted(Buffer.byteLength(body.whole), "byte")} shown` : "all of it shown"
    lines.push(`Content: ${what} (TRUNCATED: ${cutAt}${stopped})${transferNote(page)}${read}`)
  } else lines.push(`Content: ${what}, ${counted(body.downloaded, "byte")}${transferNote(page)}${read}`)
  return {
    ...(body.truncated ? { status: "partial" as const } : {}),
    header,
    data: {
      ...base,
      is_image: false,
      content,
      ...sizes,
      truncated: body.truncated,
      download_complete: body.complete,
      ...(body.title ? { title: body.title } : {}),
      ...(body.charset ? { charset: body.charset } : {}),
      ...(body.guessed ? { charset_guessed: body.guessed } : {}),
    },
    text: `${lines.join("\n")}\n\n${content}`,
    stats: { size_bytes: body.downloaded, content_bytes: Buffer.byteLength(content) },
    ...(body.whole !== undefined
      ? {
          full: {
            text: body.whole,
            what: `the ${what === "HTML as Markdown" ? "page as Markdown" : "text"} (${counted(Buffer.byteLength(body.whole), "byte")}${body.complete ? "" : `, from the first ${counted(body.downloaded, "byte")} downloaded`})`,
            shownLines: content.split("\n").length - 1,
            data: { content: body.whole },
            lead: true,
            document: true,
          },
        }
      : {}),
    ...(body.truncated ? { hints: body.complete ? [] : [curl], truncation: { reason: body.complete ? "size_limit" : "size_limit,download_limit" } } : {}),
  }
}

/** Says where and why the download stopped, with the whole body's size when the server gave it. */
const stoppedNote = (page: FetchedPage, downloaded: number): string =>
  `the download stopped at ${counted(downloaded, "byte")} (anvil keeps at most ${FETCH_SAVE_LIMIT / 1024 / 1024} MB of a body)` +
  `${page.declaredLength !== undefined && page.contentEncoding === undefined ? ` of ${counted(page.declaredLength, "byte")}` : ""}; the rest was not fetched: curl -o <file> gets all of it`

/** An image too large to return inline: saved to a spill file, whose path the answer gives. */
const savedImage = (page: FetchedPage, bytes: Uint8Array, complete: boolean) =>
  Effect.gen(function* () {
    const saved = yield* saveImage(page.mediaType, bytes)
    const where = saved !== undefined ? `saved to ${saved}` : "it could not be saved"
    const stopped = complete ? "" : ` (${stoppedNote(page, bytes.length)})`
    return {
      status: "partial",
      header: `WebFetch: ${page.finalUrl}`,
      data: {
        url: page.url,
        final_url: page.finalUrl,
        status_code: page.status,
        content_type: page.mediaType || null,
        redirects: page.redirects,
        is_image: true,
        content: "",
        encoding: null,
        ...bodySize(page, { bytes: bytes.length, complete }),
        truncated: true,
        download_complete: complete,
        ...(saved !== undefined ? { full_output_path: saved } : {}),
      },
      text: `Status: ${page.statusLine}\nFinal URL: ${page.finalUrl}\nContent-Type: ${page.contentType ?? "(none)"}\n\nImage too large to return (${counted(bytes.length, "byte")}${stopped}; images come back inline up to 1 MB): ${where}.`,
      stats: { size_bytes: bytes.length },
      hints: complete ? [] : [hint("Bash", "medium", { command: `curl -sSL -o <file> ${shellQuote(page.finalUrl)}` })],
      truncation: { reason: "image_size_limit" },
    } satisfies ToolResult
  })
