import { Data } from "effect"
import type { Refusal } from "./refusal.ts"

/** The URL cannot be fetched: it does not parse, or its scheme is not http(s). */
export class FetchUrlInvalid extends Data.TaggedError("FetchUrlInvalid")<{ readonly message: string }> {}

/** No response came: refused connection, DNS or TLS failure, a reset (the message names the URL, secrets scrubbed). */
export class FetchNetworkFailed extends Data.TaggedError("FetchNetworkFailed")<{
  readonly message: string
  readonly url: string
  /** A certificate problem (retrying will not help; skipping verification might). */
  readonly tls: boolean
  /** The TLS handshake itself failed (no certificate was judged): the port may speak plain HTTP. */
  readonly handshake?: boolean
  /** A response came, but its body does not decode as its Content-Encoding says (a broken gzip): the server's fault. */
  readonly undecodable?: boolean
}> {}

/** The redirect chain was too long, led to a scheme that cannot be fetched, or a redirect named no place to go. */
export class FetchRedirectFailed extends Data.TaggedError("FetchRedirectFailed")<{
  readonly message: string
  /** The redirect's status, when one redirect itself was broken (no Location to follow). */
  readonly status?: number
  /** That redirect's URL; with no status, where the chain started (too many) or the last URL before an unusable one. */
  readonly url?: string
}> {}

/** The server answered with an HTTP error status (400 and up). */
export class FetchHttpStatus extends Data.TaggedError("FetchHttpStatus")<{
  /** `HTTP 404 Not Found from URL: excerpt of the body`. */
  readonly message: string
  readonly status: number
  readonly finalUrl: string
  readonly retryAfter?: string
  /** The credentials configured for the host were sent on a retry and refused too. */
  readonly retriedWithCredentials: boolean
  /** For a 401 or 403: what the answer says about why (a challenge, credentials sent, bot protection). */
  readonly refusal?: Refusal
  /** The server's whole answer as text, when the message's excerpt shows only part of it. */
  readonly body?: string
  /** The answer was longer than what was downloaded of it (`body` is its start). */
  readonly bodyCut?: boolean
}> {}

/** The body is neither text nor an image. */
export class FetchBinaryBody extends Data.TaggedError("FetchBinaryBody")<{
  readonly finalUrl: string
  readonly contentType: string | null
  readonly status: number
}> {}

/** No complete answer within the timeout. */
export class FetchTimedOut extends Data.TaggedError("FetchTimedOut")<{ readonly url: string; readonly timeoutSec: number }> {}

/** Every way a web fetch fails. */
export type WebFetchError = FetchUrlInvalid | FetchNetworkFailed | FetchRedirectFailed | FetchRedirectHeld | FetchHttpStatus | FetchBinaryBody | FetchTimedOut

/** A redirect leads to a host the permission rules deny, or would ask about: it was not followed. */
export class FetchRedirectHeld extends Data.TaggedError("FetchRedirectHeld")<{
  readonly message: string
  readonly status: number
  /** The URL that answered with the redirect, and where it leads (secrets scrubbed). */
  readonly from: string
  readonly to: string
  /** Set when a deny rule refused the host (the rule is named in the message); else the host needs its own call. */
  readonly denied: boolean
}> {}
