import { join } from "node:path"

/**
 * What of the home folder a confined command may not read. Commands keep the
 * rest of it: toolchains (~/.cargo, ~/.rustup, ~/.nvm, ~/.local), caches
 * (~/.npm, ~/.cache) and settings (~/.gitconfig) are what builds need. What
 * goes is what lets a command act as the user elsewhere: keys, tokens,
 * cloud and cluster credentials, password stores, browser profiles (their
 * cookies are logins) and shell histories (tokens typed on a command line).
 * `~/` is the home folder; a trailing slash marks a folder (an empty read-only
 * folder is laid over it; a file gets /dev/null).
 */
export const BUILTIN_SECRETS: ReadonlyArray<string> = [
  // keys and agents' own credentials
  "~/.ssh/", "~/.gnupg/", "~/.password-store/", "~/.local/share/keyrings/", "~/.pki/",
  "~/.config/anvil/", "~/.local/share/anvil/", "~/.claude/.credentials.json", "~/.codex/auth.json", "~/.config/github-copilot/",
  // git and forges
  "~/.git-credentials", "~/.config/git/credentials", "~/.netrc", "~/.config/gh/", "~/.config/hub", "~/.config/glab-cli/",
  // clouds, clusters, containers
  "~/.aws/", "~/.azure/", "~/.config/gcloud/", "~/.oci/", "~/.config/doctl/", "~/.kube/", "~/.docker/config.json",
  "~/.terraform.d/credentials.tfrc.json", "~/.vault-token", "~/.config/rclone/", "~/.s3cfg", "~/.boto", "~/.fly/",
  // package registries (files that hold nothing else)
  "~/.pypirc", "~/.cargo/credentials", "~/.cargo/credentials.toml", "~/.gem/credentials", "~/.config/composer/auth.json",
  "~/.composer/auth.json", "~/.m2/settings-security.xml",
  // databases
  "~/.pgpass", "~/.my.cnf",
  // browsers (cookies and saved passwords)
  "~/.mozilla/", "~/.config/google-chrome/", "~/.config/chromium/", "~/.config/BraveSoftware/", "~/.config/microsoft-edge/",
  // shell and REPL histories
  "~/.bash_history", "~/.zsh_history", "~/.history", "~/.psql_history", "~/.mysql_history", "~/.python_history", "~/.node_repl_history",
]

/**
 * Settings files tools need but that may carry a token or a password beside
 * the registry, mirror or proxy they name: a command reads a copy with those
 * values removed (see {@link redactSecrets}).
 */
export const BUILTIN_REDACTED: ReadonlyArray<string> = [
  "~/.npmrc", "~/.yarnrc", "~/.yarnrc.yml", "~/.gitconfig", "~/.config/git/config", "~/.cargo/config.toml", "~/.cargo/config",
  "~/.config/pip/pip.conf", "~/.pip/pip.conf", "~/.gradle/gradle.properties", "~/.m2/settings.xml", "~/.bundle/config",
]

type Env = Readonly<Record<string, string | undefined>>

const list = (v: string | undefined): Array<string> => (v ? v.split(":").filter((p) => p.startsWith("/")) : [])

/**
 * Where the environment moves a secret (AWS_SHARED_CREDENTIALS_FILE,
 * KUBECONFIG, DOCKER_CONFIG, GNUPGHOME, GH_CONFIG_DIR, …): hidden like the
 * default places, and settings files named by the environment redacted.
 */
export const secretsFromEnv = (env: Env): { readonly hidden: ReadonlyArray<string>; readonly redacted: ReadonlyArray<string> } => {
  const dir = (v: string | undefined) => (v?.startsWith("/") ? [`${v}/`] : [])
  const file = (v: string | undefined) => (v?.startsWith("/") ? [v] : [])
  const xdg = env.XDG_CONFIG_HOME?.startsWith("/") ? env.XDG_CONFIG_HOME : undefined
  return {
    hidden: [
      ...file(env.AWS_SHARED_CREDENTIALS_FILE), ...file(env.AWS_CONFIG_FILE), ...list(env.KUBECONFIG),
      ...(env.DOCKER_CONFIG?.startsWith("/") ? [join(env.DOCKER_CONFIG, "config.json")] : []),
      // Claude Code keeps its login in its config folder, which CLAUDE_CONFIG_DIR moves (workspace/state-dir.ts).
      ...file(env.CLAUDE_CONFIG_DIR?.startsWith("/") ? join(env.CLAUDE_CONFIG_DIR, ".credentials.json") : undefined),
      ...dir(env.GNUPGHOME), ...dir(env.GH_CONFIG_DIR), ...dir(env.CLOUDSDK_CONFIG), ...dir(env.PASSWORD_STORE_DIR),
      ...(env.CARGO_HOME?.startsWith("/") ? [join(env.CARGO_HOME, "credentials"), join(env.CARGO_HOME, "credentials.toml")] : []),
      ...(xdg ? [join(xdg, "gh/"), join(xdg, "git/credentials"), join(xdg, "gcloud/"), join(xdg, "rclone/"), join(xdg, "github-copilot/")] : []),
    ],
    redacted: [
      ...file(env.NPM_CONFIG_USERCONFIG), ...file(env.npm_config_userconfig),
      ...(env.CARGO_HOME?.startsWith("/") ? [join(env.CARGO_HOME, "config.toml"), join(env.CARGO_HOME, "config")] : []),
      ...(xdg ? [join(xdg, "git/config"), join(xdg, "pip/pip.conf")] : []),
    ],
  }
}

/** A key that names a secret: `_authToken`, `password`, `npmAuthIdent`, `extraheader`, `ossrhPassword`, `token`… */
const SECRET_KEY = /(auth|token|passw|secret|credential|extraheader|private[-_.]?key|api[-_.]?key)/i

/**
 * The key of `key = value` (INI, npmrc, properties, TOML: all before the first `=`, so npmrc's
 * `//host/:_authToken` is one key) or `key: value` (YAML); undefined for other lines (sections, comments, XML).
 */
const keyOf = (line: string): string | undefined => {
  const t = line.trimStart()
  if (t === "" || "[#;<".includes(t[0]!)) return undefined
  const eq = t.indexOf("=")
  return eq > 0 ? t.slice(0, eq) : /^([^:\s][^:]*):(\s|$)/.exec(t)?.[1]
}

/** `https://user:token@host` → `https://host`. */
const URL_CREDENTIALS = /([a-z][a-z0-9+.-]*:\/\/)[^/\s@"']+@/gi

/** `<password>…</password>` and the like (Maven's settings.xml). */
const XML_SECRET = /<([A-Za-z]*(?:password|passphrase|token|secret|privateKey)[A-Za-z]*)>[^<]*<\/\1>/gi

/**
 * The text of a settings file without its secrets: lines assigning a key that
 * names one are dropped (INI, npmrc, properties, TOML and YAML alike), user
 * names and passwords in URLs are cut out, and XML elements named for a
 * password or a token are emptied. Undefined when nothing was removed.
 */
export const redactSecrets = (text: string): string | undefined => {
  let changed = false
  const lines = text.split("\n").filter((line) => {
    const key = keyOf(line)
    const drop = key !== undefined && SECRET_KEY.test(key)
    if (drop) changed = true
    return !drop
  })
  let out = lines.join("\n")
  const cut = out.replace(URL_CREDENTIALS, "$1").replace(XML_SECRET, "<$1></$1>")
  if (cut !== out) changed = true
  out = cut
  return changed ? out : undefined
}
