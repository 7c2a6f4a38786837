import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { buildPolicy } from "../../src/sandbox/policy.ts"
import { redactSecrets } from "../../src/sandbox/secrets.ts"
import { readSandboxSettings } from "../../src/sandbox/settings.ts"
import { tempDir } from "../support/harness.ts"
import { anvilBinary, requireBwrap, runBinary } from "./binary.ts"

// What a confined command may read of the home folder: credentials hidden, settings files redacted, the rest readable.
setDefaultTimeout(60_000)

/** Secrets a command must not read, each with a line of content only it has. */
const SECRETS: Record<string, string> = {
  ".git-credentials": "https://me:ghp_CREDSTORE@github.com",
  ".netrc": "machine example.org login me password NETRC-PW",
  ".aws/credentials": "aws_secret_access_key = AWS-SECRET",
  ".config/gh/hosts.yml": "github.com:\n  oauth_token: GH-TOKEN",
  ".docker/config.json": '{"auths":{"r.example":{"auth":"DOCKER-AUTH"}}}',
  ".ssh/id_ed25519": "SSH-PRIVATE-KEY",
  ".gnupg/private-keys-v1.d/k.key": "GPG-KEY",
  ".kube/config": "token: KUBE-TOKEN",
  ".config/gcloud/credentials.db": "GCLOUD-CRED",
  ".pypirc": "password = PYPI-PW",
  ".cargo/credentials.toml": 'token = "CARGO-TOKEN"',
  ".config/anvil/credentials.json": '{"key":"ANVIL-KEY"}',
  ".bash_history": "export API_KEY=HISTORY-TOKEN",
}

/** Home files tools need: readable, with the secrets some of them carry cut out. */
const SETTINGS: Record<string, string> = {
  ".npmrc": "registry=https://npm.example/\n//npm.example/:_authToken=NPM-TOKEN\nsave-exact=true\n",
  ".gitconfig": '[user]\n\tname = Me\n[http "https://git.example/"]\n\textraheader = AUTHORIZATION: bearer GIT-HEADER\n[credential "https://git.example"]\n\thelper = store\n',
  ".cargo/config.toml": '[registries.mine]\nindex = "https://me:CARGO-URL-PW@cargo.example/index"\ntoken = "CARGO-CFG-TOKEN"\n',
  ".m2/settings.xml": "<settings><servers><server><id>x</id><username>me</username><password>MVN-PW</password></server></servers></settings>\n",
  ".cargo/bin/tool": "a toolchain file\n",
  ".npm/_cacache/index": "a cache file\n",
}

const write = (home: string, files: Record<string, string>) => {
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(home, rel)), { recursive: true })
    writeFileSync(join(home, rel), text)
  }
}

const setup = (user?: unknown, project: unknown = {}) => {
  const base = tempDir("anvil-secrets-")
  const root = join(base, "proj")
  const home = join(base, "home")
  mkdirSync(root, { recursive: true })
  Bun.spawnSync(["git", "init", "-q", root])
  writeFileSync(join(root, "anvil.json"), JSON.stringify(project))
  write(home, SECRETS)
  write(home, SETTINGS)
  if (user !== undefined) writeFileSync(join(home, ".config", "anvil", "anvil.json"), JSON.stringify(user))
  return { base, root, home }
}

let binary = ""
beforeAll(async () => {
  requireBwrap()
  binary = await anvilBinary()
}, 120_000)

const catAll = (files: ReadonlyArray<string>) => files.map((f) => `cat "$HOME/${f}" 2>/dev/null`).join("; ") + "; echo end"

const bash = async (root: string, home: string, command: string, env: Record<string, string> = {}) => {
  const r = await runBinary(binary, ["tool", "bash", JSON.stringify({ command })], root, { HOME: home, ...env })
  return JSON.parse(r.out)
}

describe("home secrets (compiled binary, real bubblewrap)", () => {
  test("credential files and folders are unreadable; settings files are read without their tokens; toolchains and caches stay readable", async () => {
    const { root, home } = setup()
    const secrets = await bash(root, home, catAll(Object.keys(SECRETS)))
    expect(secrets.data.stdout).toBe("end")
    const settings = await bash(root, home, catAll(Object.keys(SETTINGS)))
    const out: string = settings.data.stdout
    for (const token of ["NPM-TOKEN", "GIT-HEADER", "CARGO-URL-PW", "CARGO-CFG-TOKEN", "MVN-PW"]) expect(out).not.toContain(token)
    expect(out).toContain("registry=https://npm.example/")
    expect(out).toContain("save-exact=true")
    expect(out).toContain("name = Me")
    expect(out).toContain('[credential "https://git.example"]')
    expect(out).toContain('index = "https://cargo.example/index"')
    expect(out).toContain("<username>me</username><password></password>")
    expect(out).toContain("a toolchain file")
    expect(out).toContain("a cache file")
    // The real files are untouched, and git reads the redacted ~/.gitconfig.
    expect(readFileSync(join(home, ".npmrc"), "utf8")).toContain("NPM-TOKEN")
    const git = await bash(root, home, "git config --global user.name")
    expect(git.data.stdout).toBe("Me")
  })

  test("the places the environment moves secrets to are hidden too (KUBECONFIG, DOCKER_CONFIG, AWS_SHARED_CREDENTIALS_FILE, GNUPGHOME, CLAUDE_CONFIG_DIR)", async () => {
    const { base, root, home } = setup()
    const elsewhere = join(base, "elsewhere")
    write(elsewhere, { kube: "KUBE-ELSEWHERE", "docker/config.json": "DOCKER-ELSEWHERE", aws: "AWS-ELSEWHERE", "gpg/key": "GPG-ELSEWHERE", "claude/.credentials.json": "CLAUDE-ELSEWHERE", "claude/notes.md": "readable" })
    const env = { KUBECONFIG: `${join(elsewhere, "kube")}:/nonexistent`, DOCKER_CONFIG: join(elsewhere, "docker"), AWS_SHARED_CREDENTIALS_FILE: join(elsewhere, "aws"), GNUPGHOME: join(elsewhere, "gpg"), CLAUDE_CONFIG_DIR: join(elsewhere, "claude") }
    const r = await bash(root, home, `cat "$KUBECONFIG" "$DOCKER_CONFIG/config.json" "$AWS_SHARED_CREDENTIALS_FILE" "$GNUPGHOME/key" "$CLAUDE_CONFIG_DIR/.credentials.json" 2>/dev/null; cat "$CLAUDE_CONFIG_DIR/notes.md"; echo end`, env)
    expect(r.data.stdout).toBe("readableend")
  })

  test("sandbox.allow_read in the user's own settings makes a built-in secret readable; the same in an untrusted project is ignored and reported", async () => {
    const mine = setup({ sandbox: { allow_read: ["~/.kube/"] } })
    const allowed = await bash(mine.root, mine.home, catAll([".kube/config", ".aws/credentials"]))
    expect(allowed.data.stdout).toBe("token: KUBE-TOKENend")
    const theirs = setup(undefined, { sandbox: { allow_read: ["~/.kube/", "~/.ssh/"] } })
    const refused = await bash(theirs.root, theirs.home, catAll([".kube/config", ".ssh/id_ed25519"]))
    expect(refused.data.stdout).toBe("end")
    expect(refused.text).toContain("sandbox.allow_read")
    const report = JSON.parse((await runBinary(binary, ["sandbox", "--json"], theirs.root, { HOME: theirs.home })).out)
    expect(report.hidden).toEqual(expect.arrayContaining(["~/.kube", "~/.ssh", "~/.git-credentials", "~/.docker/config.json"]))
    expect(report.redacted).toEqual(expect.arrayContaining(["~/.npmrc", "~/.gitconfig"]))
  })
})

describe("which home files are hidden or redacted (policy)", () => {
  const settings = (section: unknown = {}) => readSandboxSettings(section)

  test("a path that holds the project or the session folder is never hidden; a secret inside a hidden folder is not mounted twice; links are followed", () => {
    const { base, root, home } = setup()
    const tmp = tempDir("anvil-secrets-tmp-")
    symlinkSync(join(home, ".aws"), join(home, "aws-link"))
    const policy = buildPolicy(settings({ deny_read: [base, tmp, "~/.aws/credentials", "~/aws-link"] }), { root, home, configHome: undefined, sessionTmp: tmp })!
    expect(policy.hiddenDirs).not.toContain(base)
    expect(policy.hiddenDirs).not.toContain(tmp)
    expect(policy.hiddenDirs).toContain(join(home, ".aws"))
    expect(policy.hiddenFiles).not.toContain(join(home, ".aws", "credentials"))
    expect(policy.hiddenDirs.filter((d) => d === join(home, ".aws"))).toHaveLength(1)
  })

  test("redaction keeps every line but the secret ones, and says when there was nothing to remove", () => {
    expect(redactSecrets("registry=https://r/\ncolor=false\n")).toBeUndefined()
    expect(redactSecrets("//r.example/:_authToken=x\n_auth = y\nregistry=https://u:p@r/\nemail=a@b\n")).toBe("registry=https://r/\nemail=a@b\n")
    expect(redactSecrets("npmAuthToken: abc\nnpmRegistryServer: https://r\n")).toBe("npmRegistryServer: https://r\n")
    expect(redactSecrets("signing.password=x\nossrhToken=y\norg.gradle.jvmargs=-Xmx2g\n")).toBe("org.gradle.jvmargs=-Xmx2g\n")
    expect(redactSecrets('[credential "https://x"]\n\thelper = store\n[http]\n\textraHeader = Authorization: x\n')).toBe('[credential "https://x"]\n\thelper = store\n[http]\n')
  })
})
