/**
 * What an HTTP 401/403 says about why it refused, from what can be told apart: the challenge the server sent
 * (WWW-Authenticate names how to authenticate), whether credentials went with the request, and signs of bot
 * protection (a challenge page or firewall in front of the site), which no credentials get past.
 */
export interface Refusal {
  /** The WWW-Authenticate header (secrets scrubbed by the caller), cut short. */
  readonly challenge?: string
  /** Authorization or a cookie went with the request that was refused. */
  readonly credentialsSent: boolean
  /** What marks the answer as bot protection ("Cloudflare's bot check: cf-mitigated header", "the page asks for a CAPTCHA"). */
  readonly botBlock?: string
}

/** Headers that only a bot-protection layer sets, with what they say. */
const BLOCK_HEADERS: ReadonlyArray<readonly [string, (value: string) => boolean, string]> = [
  ["cf-mitigated", (v) => v !== "", "Cloudflare's bot check: cf-mitigated header"],
  ["x-amzn-waf-action", (v) => v !== "", "AWS WAF: x-amzn-waf-action header"],
  ["x-datadome", (v) => v !== "", "DataDome: x-datadome header"],
  ["x-sucuri-block", (v) => v !== "", "the Sucuri firewall: x-sucuri-block header"],
]

/** Words of challenge and block pages (Cloudflare, Akamai, Imperva, …), never of a plain "forbidden". */
const BLOCK_BODY: ReadonlyArray<readonly [RegExp, string]> = [
  [/captcha/i, "the page asks for a CAPTCHA"],
  [/attention required!? \| cloudflare|just a moment\.\.\.|cf-browser-verification|challenge-platform/i, "Cloudflare's challenge page"],
  [/\b(?:bot|robot|crawler|scraper|automated (?:access|requests?|queries|traffic|clients?))s?\b[^.]{0,80}\b(?:blocked|denied|not allowed|prohibited|detected)\b|\b(?:blocked|denied|detected)\b[^.]{0,80}\b(?:bots?|robots?|crawlers?|automated)\b/i, "the page says automated clients are refused"],
  [/web application firewall|request (?:was )?blocked|incapsula incident|access denied[^.]{0,40}reference #/i, "a web application firewall's block page"],
]

/** How the refusal is read: what is known, nothing guessed. `body` is the answer's text (as rendered). */
export const readRefusal = (headers: Headers, body: string, credentialsSent: boolean): Refusal => {
  const challenge = headers.get("www-authenticate")?.trim()
  const byHeader = BLOCK_HEADERS.find(([name, holds]) => holds(headers.get(name)?.trim() ?? ""))
  const byBody = byHeader === undefined ? BLOCK_BODY.find(([pattern]) => pattern.test(body.slice(0, 20_000))) : undefined
  const botBlock = byHeader?.[2] ?? byBody?.[1]
  return {
    ...(challenge ? { challenge: challenge.slice(0, 200) } : {}),
    credentialsSent,
    ...(botBlock !== undefined && !challenge ? { botBlock } : {}),
  }
}

/** The scheme a challenge names ("Basic", "Bearer"), lower-cased, if any. */
export const challengeScheme = (challenge: string | undefined): string | undefined => /^\s*([A-Za-z][\w-]*)/.exec(challenge ?? "")?.[1]?.toLowerCase()
