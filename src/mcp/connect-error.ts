import { fetchErrorText } from "../net/http-client.ts"
import { maskSecrets, type ServerSpec } from "./server-config.ts"
import type { ExitReport } from "./stdio-transport.ts"

/** Why a connection to an MCP server failed, in words a person can act on (secrets masked). */

/** Why a stdio server went away, in one line: exit code or signal and its last stderr lines. */
export const describeExit = (report: ExitReport): string => {
  const how = report.signal ? `was killed by ${report.signal}` : `exited with code ${report.code}`
  const tail = report.stderrTail.split("\n").slice(-5).join("\n").trim()
  return tail ? `the server ${how}; its stderr ends:\n${tail}` : `the server ${how} (no stderr)`
}

/** The issues of a schema failure (e.g. `content: expected array`) in one line; undefined when `error` is none. */
export const issuesText = (error: unknown): string | undefined => {
  const issues = (error as { issues?: unknown })?.issues
  if (!Array.isArray(issues) || issues.length === 0) return undefined
  const parts = issues.slice(0, 3).map((i: { path?: ReadonlyArray<unknown>; message?: unknown }) =>
    `${Array.isArray(i.path) && i.path.length > 0 ? `${i.path.join(".")}: ` : ""}${String(i.message ?? "invalid")}`,
  )
  return `${parts.join("; ")}${issues.length > 3 ? `; and ${issues.length - 3} more problems` : ""}`
}

/** An answer the SDK's schema refused, in one line. */
const invalidAnswer = (error: unknown): string | undefined => {
  const issues = issuesText(error)
  return issues === undefined ? undefined : `the server's answer is not valid MCP (${issues})`
}

const statusOf = (error: unknown): number | undefined => {
  const code = (error as { code?: unknown })?.code
  return typeof code === "number" && code >= 400 && code < 600 ? code : undefined
}

const CREDENTIALS = ' (the server wants credentials: set them in "headers", e.g. "Authorization": "Bearer ${TOKEN}")'

/** Streamable HTTP was refused (a 4xx) and the SSE fallback failed too: both failures travel in one error. */
export const fallbackFailed = (first: unknown, fallback: unknown): Error =>
  Object.assign(new Error("neither streamable HTTP nor SSE connected"), { attempts: { first, fallback } })

/** What one HTTP attempt got, in a few words: the status and the answer's start, or why there was none. */
const attemptText = (error: unknown, request: string, startup: number): string => {
  if ((error as { code?: unknown })?.code === -32001) return `no answer to the start-up handshake within ${startup} ms`
  const detail = (invalidAnswer(error) ?? fetchErrorText(error))
    .replace(/^(Streamable HTTP error|SSE error): /, "")
    .replace(/^Error POSTing to endpoint: /, "")
    .replace(/Non-200 status code \(\d+\)/, "")
    .replace(/\s+/g, " ")
    .trim()
  const short = detail.length > 160 ? `${detail.slice(0, 160)}…` : detail
  const status = statusOf(error)
  if (status === undefined) return `${request}: ${short}`
  return `${request} answered HTTP ${status}${short ? `: ${short}` : ""}`
}

const checkUrl = (spec: ServerSpec) =>
  `check "url" in the settings of '${spec.name}' (${spec.source}): it must be the server's MCP endpoint, which servers commonly serve at /mcp (streamable HTTP) or /sse (SSE only)`

/**
 * An HTTP server's start that failed before any MCP answer, when the cause is plain: nothing listens at the address,
 * or something answers there that is not an MCP server (a web page, text that is not JSON). "cannot connect" would
 * send the person to the network when the address is what is wrong; each says what came back and what to check.
 */
const notMcpThere = (message: string, spec: ServerSpec, url: string): string | undefined => {
  if (/ECONNREFUSED|ConnectionRefused|Unable to connect/i.test(message)) {
    return `cannot connect to ${url}: nothing answers there (connection refused). Next: start the server, or ${checkUrl(spec)}`
  }
  const type = /Unexpected content type: ([^\s;,]+)/i.exec(message)?.[1]
  if (type !== undefined) {
    const what = /html/i.test(type) ? "a web page" : `content of type ${type}`
    return `${url} answered with ${what}, not MCP (an MCP server answers with application/json or text/event-stream). Next: ${checkUrl(spec)}`
  }
  if (/JSON Parse error|Unexpected token|not valid JSON|Unexpected end of JSON/i.test(message)) {
    return `${url} answered with what is not JSON, so not MCP (${message.replace(/\s+/g, " ").slice(0, 120)}). Next: ${checkUrl(spec)}`
  }
  return undefined
}

/** Both transports' failures and what to check, when the SSE fallback failed after streamable HTTP was refused. */
const bothFailed = (attempts: { readonly first: unknown; readonly fallback: unknown }, spec: ServerSpec, startup: number): string => {
  const url = spec.transport.kind === "stdio" ? "" : spec.transport.url
  const fallbackStatus = statusOf(attempts.fallback)
  const next =
    fallbackStatus === 401 || fallbackStatus === 403
      ? `the server wants credentials: set them in "headers" in the settings of '${spec.name}' (${spec.source}), e.g. "Authorization": "Bearer \${TOKEN}"`
      : `${checkUrl(spec)}; "type": "sse" skips the streamable HTTP attempt`
  return `cannot connect to ${url}: streamable HTTP was refused (${attemptText(attempts.first, "POST", startup)}), and the SSE fallback failed too (${attemptText(attempts.fallback, "GET", startup)}). Next: ${next}`
}

/** A connection failure, with secrets masked and the likely cause named. */
export const explain = (error: unknown, spec: ServerSpec, exit: ExitReport | undefined, startup?: number): string => {
  const attempts = (error as { attempts?: { readonly first: unknown; readonly fallback: unknown } })?.attempts
  if (attempts !== undefined && startup !== undefined) return maskSecrets(bothFailed(attempts, spec, startup), spec.secrets)
  const message = invalidAnswer(error) ?? fetchErrorText(error)
  let text: string
  // A start-up that ran out of time first: the server's exit that follows is anvil closing it, not the cause.
  if (startup !== undefined && (error as { code?: unknown })?.code === -32001) {
    text = `timeout: the server did not finish the start-up handshake within ${startup} ms ("startupTimeout" in its settings)`
  } else if (exit) text = describeExit(exit)
  else if (/protocol version is not supported/i.test(message)) text = `protocol mismatch: ${message}`
  else if (/timed? ?out/i.test(message)) text = `timeout: ${message}`
  else if (startup !== undefined && spec.transport.kind !== "stdio") {
    const code = (error as { code?: unknown })?.code
    const auth = code === 401 || code === 403 || /unauthori[sz]ed/i.test(message)
    // The SDK's message carries the answer's body, not its status: the status says more (500, 502, 404).
    const status = typeof code === "number" && code >= 400 && code < 600 && !message.includes(String(code)) ? ` (HTTP ${code})` : ""
    text = notMcpThere(message, spec, spec.transport.url) ?? `cannot connect to ${spec.transport.url}${status}: ${message}${auth ? CREDENTIALS : ""}`
  }
  else text = message
  return maskSecrets(text, spec.secrets)
}

/** Did the server answer (an error of its own, a version anvil does not speak) rather than go away? */
export const serverAnswered = (error: unknown): boolean => {
  const message = error instanceof Error ? error.message : String(error)
  if (/protocol version is not supported/i.test(message)) return true
  return typeof (error as { code?: unknown })?.code === "number" && !/connection closed/i.test(message)
}
