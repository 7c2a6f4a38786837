/**
 * The environment a command the model runs gets: the caller's, without what
 * looks like a secret. The sandbox hides secret files; the same secrets in
 * variables (`GITHUB_TOKEN`, `AWS_SECRET_ACCESS_KEY`, `OPENAI_API_KEY`…) would
 * otherwise reach every command, which can print them into the model's context
 * or send them anywhere the network allows.
 *
 * A variable is withheld when its name holds a secret-naming part (see
 * {@link secretName}) or its value has the shape of a well-known token
 * ({@link TOKEN_VALUE}); `user:password@` is cut out of URLs in the values
 * kept. `sandbox.allow_env` lets named variables through (glob patterns);
 * `sandbox.deny_env` withholds more. The model's own API key (anvil's, by
 * name and by value) is never passed, whatever allow_env says.
 */

/** What is withheld beyond the built-in rule. */
export interface EnvPolicy {
  /** Glob patterns (`*`, `?`) of names let through although they look secret. */
  readonly allow: ReadonlyArray<string>
  /** Glob patterns of names always withheld. */
  readonly deny: ReadonlyArray<string>
  /** The model's API key: its variables' names and the key values anvil itself uses (never passed). */
  readonly model?: ModelSecrets | undefined
}

/** The credentials anvil uses to reach its model. */
export interface ModelSecrets {
  readonly names: ReadonlyArray<string>
  readonly values: ReadonlyArray<string>
}

/**
 * Parts that mark a secret wherever they stand in a word of the name: `PGPASSWORD`, `CLIENTSECRET`,
 * `GOOGLE_APPLICATION_CREDENTIALS`.
 */
const SECRET_PART = /PASSWORD|PASSWD|PASSPHRASE|SECRET|CREDENTIAL/
/**
 * Words of a name that mark a secret: a key or a token (`OPENAI_API_KEY`, `AWS_ACCESS_KEY_ID`, `NPM_TOKEN`,
 * `GITHUBTOKEN`, a key or token with a kind in front in one word: `APIKEY`, `SECRETKEY`, `AUTHTOKEN`), and
 * `DB_PASS`, `MYSQL_PWD`, `NPM_CONFIG__AUTH`, `HTTP_AUTHORIZATION`, `GH_PAT`, `SLACK_WEBHOOK_URL`,
 * `SESSION_COOKIE`, `SENTRY_DSN`, `JWT`, `OTP`, `GCP_CREDS`. A word that merely holds KEY or TOKEN
 * (`KEYCLOAK_URL`, `MONKEY`, `TOKENIZERS_PARALLELISM`) or AUTH (`GIT_AUTHOR_NAME`) is none.
 */
const SECRET_WORD =
  /^(?:(?:API|ACCESS|SECRET|PRIVATE|AUTH|MASTER|ENCRYPTION|ENC|SIGNING|SIGN|LICENSE|LICENCE|CLIENT|APP|SERVICE|SSH|GPG|PGP|DEPLOY|SESSION|CRYPT|HMAC|RSA|PASS|SHARED|ACCOUNT|ADMIN|ROOT|USER|WRITE)?KEYS?|\w*TOKENS?|PASS|PWD|AUTH|AUTHORIZATION|PAT|WEBHOOK|COOKIE|DSN|JWT|OTP|CREDS)$/
/** Names that match a secret word but are paths or settings every build may need. */
const NOT_SECRET = new Set(["PWD", "OLDPWD", "SSH_AUTH_SOCK"])

/**
 * The words of a name: split at every character that is not a letter or a digit and where a lower-case
 * letter is followed by a capital (`npm_config_//host/:_authToken` has the words auth and Token), upper-cased.
 */
const wordsOf = (name: string): Array<string> =>
  name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .split(/[^A-Za-z0-9]+/)
    .filter((w) => w !== "")
    .map((w) => w.toUpperCase())

/** Whether `name` names a secret by the built-in rule (any case). */
export const secretName = (name: string): boolean =>
  !NOT_SECRET.has(name) && wordsOf(name).some((w) => SECRET_PART.test(w) || SECRET_WORD.test(w))

/**
 * Values shaped like a well-known credential, whatever the variable is named:
 * GitHub (`ghp_`, `gho_`, `ghu_`, `ghs_`, `ghr_`, `github_pat_`), GitLab
 * (`glpat-`), OpenAI and Anthropic (`sk-…`), Slack (`xox?-`), AWS access key
 * ids (`AKIA`/`ASIA`), npm (`npm_`), Hugging Face (`hf_`), Google API keys
 * (`AIza`), Stripe (`sk_live_`, `rk_live_`), PEM private keys.
 */
export const TOKEN_VALUE =
  /^\s*(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_\w{30,}|glpat-[\w-]{20,}|sk-[\w-]{20,}|xox[abprs]-[\w-]{10,}|(?:AKIA|ASIA)[0-9A-Z]{16}|npm_[A-Za-z0-9]{30,}|hf_[A-Za-z0-9]{30,}|AIza[\w-]{35}|[sr]k_live_\w{20,})\s*$|-----BEGIN [A-Z ]*PRIVATE KEY-----/

/** `scheme://user:password@` in a value (a proxy, a database URL): the user and password are cut out. */
const URL_PASSWORD = /([a-z][a-z0-9+.-]*:\/\/)[^/\s@:"']*:[^/\s@"']+@/gi

/** A glob of `*` and `?` as a whole-name matcher (case-sensitive, as names are). */
const globMatcher = (glob: string): RegExp =>
  new RegExp(`^${glob.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*").replace(/\?/g, ".")}$`)

const matcher = (globs: ReadonlyArray<string>): ((name: string) => boolean) => {
  const res = globs.map(globMatcher)
  return (name) => res.some((r) => r.test(name))
}

/** The variables of `env` that are set. */
export const definedEnv = (env: Readonly<Record<string, string | undefined>>): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(env)) if (typeof v === "string") out[k] = v
  return out
}

/** Shorter values are not looked for inside others (a key of a few characters would match everywhere). */
const MIN_KEY_LENGTH = 8

/** The environment to give a command, and the names of the variables withheld (sorted). */
export interface FilteredEnv {
  readonly env: Record<string, string>
  readonly withheld: ReadonlyArray<string>
}

/**
 * A filter for one session's policy (the patterns are compiled once).
 * `keep` names variables anvil itself set for the command (its process mark),
 * never withheld.
 */
export const envFilter = (policy: EnvPolicy) => {
  const allowed = matcher(policy.allow)
  const denied = matcher(policy.deny)
  const modelNames = new Set(policy.model?.names ?? [])
  const modelValues = (policy.model?.values ?? []).filter((v) => v.length >= MIN_KEY_LENGTH)
  return (env: Readonly<Record<string, string>>, keep: ReadonlyArray<string> = []): FilteredEnv => {
    const out: Record<string, string> = {}
    const withheld: Array<string> = []
    for (const [name, value] of Object.entries(env)) {
      if (keep.includes(name)) {
        out[name] = value
        continue
      }
      const model = modelNames.has(name) || modelValues.some((k) => value.includes(k))
      const secret = secretName(name) || TOKEN_VALUE.test(value)
      if (model || denied(name) || (secret && !allowed(name))) withheld.push(name)
      else out[name] = allowed(name) ? value : value.replace(URL_PASSWORD, "$1")
    }
    return { env: out, withheld: withheld.sort() }
  }
}
