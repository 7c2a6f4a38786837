import { describe, expect, test } from "bun:test"
import { envFilter, secretName, TOKEN_VALUE } from "../../src/sandbox/command-env.ts"
import { modelSecrets } from "../../src/llm/model-secrets.ts"

describe("the environment of the model's commands", () => {
  test("names holding a secret part or word are secrets; what builds need is not", () => {
    for (const name of ["GITHUB_TOKEN", "GH_TOKEN", "NPM_TOKEN", "NODE_AUTH_TOKEN", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "OPENAI_API_KEY",
      "ANTHROPIC_API_KEY", "PGPASSWORD", "TWINE_PASSWORD", "GOOGLE_APPLICATION_CREDENTIALS", "MYSQL_PWD", "DB_PASS", "NPM_CONFIG__AUTH", "npm_config_//registry.npmjs.org/:_authToken",
      "GH_PAT", "SLACK_WEBHOOK_URL", "SENTRY_DSN", "private_key", "GPG_PASSPHRASE", "my.api-key",
      "NUGET_APIKEY", "AWS_SECRETKEY", "GITHUBTOKEN", "npm_config_authToken", "apiKey", "clientSecret", "DB_PASSWORD_FILE", "HTTP_AUTHORIZATION", "HF_TOKEN", "SECRET_KEY_BASE",
      "SSH_PRIVATE_KEYS", "dbPass", "GCP_CREDS", "signing.key", "MY_SECRETS"]) expect([name, secretName(name)]).toEqual([name, true])
    for (const name of ["PATH", "HOME", "LANG", "LC_ALL", "TERM", "CI", "USER", "SHELL", "PWD", "OLDPWD", "SSH_AUTH_SOCK", "TMPDIR", "npm_config_registry", "npm_config_cache",
      "NODE_OPTIONS", "JAVA_HOME", "GOPATH", "CARGO_HOME", "XAUTHORITY", "GIT_ASKPASS", "PASSTHROUGH", "COMPASS_HOME", "DISPLAY", "EDITOR", "GITHUB_ACTIONS", "RUNNER_TEMP",
      // KEY, TOKEN or AUTH inside a word of another meaning.
      "KEYCLOAK_URL", "MONKEY_PATCH", "KEYBOARD_LAYOUT", "TURKEY_MODE", "TOKENIZERS_PARALLELISM", "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "HOTKEYS_ENABLED", "DONKEY"]) {
      expect([name, secretName(name)]).toEqual([name, false])
    }
  })

  test("token-shaped values are secrets whatever the name", () => {
    for (const v of ["ghp_" + "x".repeat(36), "github_pat_" + "1".repeat(40), "glpat-" + "a".repeat(20), "sk-ant-api03-" + "b".repeat(30), "xoxb-123456-abcdef", "AKIAABCDEFGHIJKLMNOP",
      "npm_" + "c".repeat(36), "-----BEGIN OPENSSH PRIVATE KEY-----\nabc"]) expect([v, TOKEN_VALUE.test(v)]).toEqual([v, true])
    for (const v of ["/usr/bin:/bin", "en_US.UTF-8", "sk-short", "true", "https://registry.npmjs.org/"]) expect([v, TOKEN_VALUE.test(v)]).toEqual([v, false])
  })

  test("withheld by name, by value and by deny_env; allow_env lets through, but never the model's key; anvil's own marks stay", () => {
    const filter = envFilter({ allow: ["GITHUB_*", "OPENAI_API_KEY", "COPY"], deny: ["CI"], model: { names: ["OPENAI_API_KEY"], values: ["sk-model-0123456789"] } })
    const { env, withheld } = filter({
      PATH: "/bin", CI: "1", GITHUB_TOKEN: "t", NPM_TOKEN: "n", OPENAI_API_KEY: "sk-model-0123456789", COPY: "Bearer sk-model-0123456789",
      HTTPS_PROXY: "http://u:p@proxy:8080", GIT_URL: "ssh://git@host/repo", ANVIL_PROC_MARK: "m", SECRET_MARK: "s",
    }, ["ANVIL_PROC_MARK", "SECRET_MARK"])
    expect(env).toEqual({ PATH: "/bin", GITHUB_TOKEN: "t", HTTPS_PROXY: "http://proxy:8080", GIT_URL: "ssh://git@host/repo", ANVIL_PROC_MARK: "m", SECRET_MARK: "s" })
    expect(withheld).toEqual(["CI", "COPY", "NPM_TOKEN", "OPENAI_API_KEY"])
  })

  test("the model's credentials: every known key variable, configured key variables, keys and auth headers", () => {
    const secrets = modelSecrets({
      env: { ANTHROPIC_API_KEY: "sk-ant-1", MY_KEY_VAR: "v-1", OTHER: "x" },
      data: { providers: { mine: { api_key_env: "MY_KEY_VAR", api_key: "literal-key", headers: { Authorization: "Bearer hdr-key", "User-Agent": "anvil" } } } },
    })
    expect(secrets.names).toContain("OPENAI_API_KEY")
    expect(secrets.names).toContain("MY_KEY_VAR")
    expect(secrets.values.sort()).toEqual(["hdr-key", "literal-key", "sk-ant-1", "v-1"])
  })
})
