import type { ErrorCode } from "../protocol/error-code.ts"
import { hint, shellQuote, type RetrievalHint } from "../protocol/hint.ts"
import { challengeScheme } from "../net/refusal.ts"
import { invalidParam, toolError, type ToolError } from "../protocol/tool-error.ts"
import { MAX_FETCH_TIMEOUT_SEC } from "../net/web-fetch.ts"
import type { FetchHttpStatus, WebFetchError } from "../net/web-fetch-error.ts"

/** The envelope code for an HTTP error status. */
const codeFor = (status: number): ErrorCode =>
  status === 429 ? "RATE_LIMIT" : status === 404 || status === 410 ? "NOT_FOUND" : status === 401 || status === 403 ? "PERMISSION_DENIED" : status === 408 || status === 504 ? "TIMEOUT" : "EXECUTION_ERROR"

/** What to try after an HTTP error: a missing page's site, what a refusal asks for (see refusalAdvice), else the raw answer. */
const statusHints = (status: number, url: string) => {
  if (status === 429 || status === 401 || status === 403) return []
  if (status === 404 || status === 410) {
    const site = URL.parse(url)
    return site && site.pathname !== "/" ? [hint("WebFetch", "medium", { url: `${site.origin}/` })] : []
  }
  return [hint("Bash", "low", { command: `curl -sS -i ${shellQuote(url)}` })]
}

/** The credentials a challenge's scheme asks for, as fetch's `auth` takes them (a bearer token for any other scheme). */
const authFor = (scheme: string | undefined) =>
  scheme === "basic" ? { type: "basic", username: "<user>", password: "<password>" } : { type: "bearer", token: "<token>" }

/**
 * A 401 or 403 told apart by what it says: a challenge (WWW-Authenticate) asks for credentials of its scheme; bot
 * protection (a challenge page, a firewall) refuses whatever is sent; credentials that went along were refused;
 * a bare 403 does not say which, and the text says so rather than promising that a token helps.
 */
const refusalAdvice = (e: FetchHttpStatus): { readonly hints: ReadonlyArray<RetrievalHint>; readonly details: string; readonly nextStep?: string } => {
  const r = e.refusal ?? { credentialsSent: false }
  const url = e.finalUrl
  if (r.botBlock !== undefined) {
    return {
      hints: [],
      details: `The refusal comes from bot protection in front of the site (${r.botBlock}), not from missing credentials: neither a token nor a retry gets past it.`,
      nextStep: "get the content another way (the site's API, a raw or mirrored copy, or ask the user to paste it).",
    }
  }
  if (r.challenge !== undefined) {
    const scheme = challengeScheme(r.challenge)
    const sent = r.credentialsSent ? " The credentials sent were refused: other ones (or ones with access to this page) are needed." : ""
    return { hints: [hint("WebFetch", "medium", { url, auth: authFor(scheme) })], details: `The server asks for credentials (WWW-Authenticate: ${r.challenge}).${sent}` }
  }
  if (r.credentialsSent) {
    return {
      hints: [],
      details: `The credentials sent were refused${e.status === 403 ? ", or they give no access to this page" : ""} (the server named no other way in: no WWW-Authenticate header).`,
      nextStep: "check the credentials and their access to this page; sending the same ones again fares the same.",
    }
  }
  if (e.status === 401) return { hints: [hint("WebFetch", "medium", { url, auth: authFor(undefined) })], details: "The page needs credentials (the server named no scheme: no WWW-Authenticate header)." }
  return {
    hints: [hint("WebFetch", "low", { url, auth: authFor(undefined) })],
    details:
      "The server refused without asking for credentials (no WWW-Authenticate header) and without a sign of bot protection: " +
      "if the page needs a login, send it with auth; if the site refuses automated clients, credentials will not help.",
  }
}

/** The web fetch's errors as envelope errors (the one place for the fetch tool). */
export const fetchToolError = (e: WebFetchError, savedBody?: string): ToolError => {
  switch (e._tag) {
    case "FetchUrlInvalid":
      return invalidParam("url", e.message)
    case "FetchNetworkFailed":
      // The answer came and is broken: not the network's doing, and asking again gets the same bytes.
      if (e.undecodable === true) {
        return toolError("EXECUTION_ERROR", e.message, {
          retryable: false,
          details: "Retrying will not help unless the server is fixed; its raw bytes show what it sent.",
          hints: [hint("Bash", "low", { command: `curl -sS -i ${shellQuote(e.url)}` })],
        })
      }
      return toolError("NETWORK_ERROR", e.message, {
        retryable: !e.tls && e.handshake !== true,
        ...(e.tls
          ? {
              hints: [hint("WebFetch", "low", { url: e.url, verify_tls: false })],
              details: "Only skip TLS verification for a host you trust (an intranet server with a self-signed certificate).",
            }
          : e.handshake === true && e.url.startsWith("https:")
            ? {
                hints: [hint("WebFetch", "medium", { url: `http:${e.url.slice("https:".length)}` })],
                details: "The server did not answer TLS on this port; it may speak plain HTTP (verify_tls=false would not help).",
              }
            : // Refused, unreachable, cut off: curl's own account of the same exchange says where it failed.
              { hints: [hint("Bash", "low", { command: `curl -sS -I ${shellQuote(e.url)}` })] }),
      })
    case "FetchRedirectFailed":
      return toolError("EXECUTION_ERROR", e.message, {
        ...(e.status !== undefined && e.url !== undefined
          ? {
              context: { status_code: e.status, final_url: e.url },
              details: "The server's answer is broken (a redirect must name where to go); retrying will not help unless the server is fixed.",
              hints: [hint("Bash", "low", { command: `curl -sS -i ${shellQuote(e.url)}` })],
            }
          : e.url !== undefined
            ? { hints: [hint("Bash", "low", { command: `curl -sS -I ${shellQuote(e.url)}` })] }
            : {}),
      })
    case "FetchRedirectHeld":
      // Not followed: a host the call was not approved for gets a call of its own, judged (and asked about) as any is.
      return toolError("PERMISSION_DENIED", e.message, {
        retryable: false,
        context: { status_code: e.status, final_url: e.from, redirect_to: e.to },
        ...(e.denied
          ? { nextStep: "the user's rule refuses where the page leads: do not fetch it another way; get the content elsewhere or ask the user." }
          : { hints: [hint("WebFetch", "high", { url: e.to })] }),
      })
    case "FetchHttpStatus": {
      // The message quotes the answer's start; the rest, when there is more, was saved and is named here.
      const whole =
        e.body === undefined
          ? undefined
          : savedBody !== undefined
            ? `The whole answer (${Buffer.byteLength(e.body)} bytes${e.bodyCut ? ", the first 1 MB of a longer one" : ""}): ${savedBody}`
            : `The rest of the answer (${Buffer.byteLength(e.body)} bytes) could not be saved.`
      const refused = e.status === 401 || e.status === 403 ? refusalAdvice(e) : undefined
      const details = [
        ...(refused ? [refused.details] : []),
        ...(e.retryAfter ? [`Retry-After: ${e.retryAfter}`] : []),
        ...(e.status === 401 && e.retriedWithCredentials ? ["The credentials configured for this host were sent on a retry and were refused too."] : []),
        ...(whole !== undefined ? [whole] : []),
      ]
      const hints = [
        ...(savedBody !== undefined ? [hint("Read", "high", { path: savedBody })] : []),
        ...(e.status === 429 ? [hint("WebFetch", "medium", { url: e.finalUrl })] : []),
        ...(refused ? refused.hints : []),
        ...statusHints(e.status, e.finalUrl),
      ]
      return toolError(codeFor(e.status), e.message, {
        retryable: e.status === 429 || e.status === 502 || e.status === 503 || e.status === 504 || e.status === 408,
        context: { status_code: e.status, final_url: e.finalUrl, ...(savedBody !== undefined ? { full_output_path: savedBody } : {}) },
        ...(details.length > 0 ? { details: details.join("\n") } : {}),
        ...(hints.length > 0 ? { hints } : {}),
        ...(refused?.nextStep !== undefined ? { nextStep: refused.nextStep } : {}),
      })
    }
    case "FetchBinaryBody":
      return toolError("BINARY_FILE", `${e.finalUrl} returned binary content (${e.contentType ?? "no content type"}); only text and images can be shown.`, {
        context: { status_code: e.status, final_url: e.finalUrl },
        hints: [hint("Bash", "medium", { command: `curl -sSL -o <file> ${shellQuote(e.finalUrl)}` })],
      })
    case "FetchTimedOut":
      return toolError("TIMEOUT", `No complete answer from ${e.url} within ${e.timeoutSec} s.`, {
        hints: [hint("WebFetch", "medium", { url: e.url, timeout_sec: Math.min(e.timeoutSec * 2, MAX_FETCH_TIMEOUT_SEC) })],
      })
  }
}
