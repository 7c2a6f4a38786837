import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { jsonLines, toolResults } from "../support/anvil-cli.ts"
import type { FakeServer } from "../support/fake-model.ts"
import { fakeOpenAI } from "../support/fake-openai.ts"
import { tempDir } from "../support/harness.ts"
import { anvilBinary, pathWithout, processesMatching as processesWith, requireBwrap, runBinary } from "./binary.ts"

// The command sandbox through the compiled binary and real bubblewrap.
setDefaultTimeout(60_000)

let binary = ""
const servers: Array<FakeServer> = []
const webServers: Array<{ stop: (force?: boolean) => void }> = []
beforeAll(async () => {
  requireBwrap()
  binary = await anvilBinary()
}, 120_000)
afterAll(() => {
  servers.forEach((s) => s.stop())
  webServers.forEach((s) => s.stop(true))
})

/**
 * A project in a fresh folder with its own HOME beside it (holding a fake ~/.ssh key). Settings that widen
 * the sandbox go in `user` (the user's own anvil.json): the project's apply only once trusted.
 */
const setup = (config: unknown = {}, user?: unknown) => {
  const base = tempDir("anvil-sbx-")
  const root = join(base, "proj")
  const home = join(base, "home")
  mkdirSync(join(root, ".anvil", "plugins"), { recursive: true })
  Bun.spawnSync(["git", "init", "-q", root])
  mkdirSync(join(root, ".git", "hooks"), { recursive: true })
  writeFileSync(join(root, "anvil.json"), JSON.stringify(config))
  mkdirSync(join(home, ".ssh"), { recursive: true })
  writeFileSync(join(home, ".ssh", "id_ed25519"), "SECRET-KEY\n")
  if (user !== undefined) {
    mkdirSync(join(home, ".config", "anvil"), { recursive: true })
    writeFileSync(join(home, ".config", "anvil", "anvil.json"), JSON.stringify(user))
  }
  const canary = join(base, "canary.txt")
  writeFileSync(canary, "untouched\n")
  return { base, root, home, canary }
}

const bash = async (root: string, home: string, params: Record<string, unknown>, extra: ReadonlyArray<string> = [], env: Record<string, string> = {}) => {
  const r = await runBinary(binary, ["tool", "bash", JSON.stringify(params), ...extra], root, { HOME: home, ...env })
  const envelope = JSON.parse(r.out)
  return { ...r, envelope, text: String(envelope.text) }
}

/** A web server on 127.0.0.1 outside the sandbox. */
const web = () => {
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("hello from outside\n") })
  webServers.push(server)
  return `http://127.0.0.1:${server.port}/`
}

describe("the command sandbox (bubblewrap, compiled binary)", () => {
  test("workspace-write: writes inside the root work; outside, protected paths and secrets are refused with hints; nothing left behind", async () => {
    const { root, home, canary } = setup()
    const gitConfig = readFileSync(join(root, ".git", "config"), "utf8")
    const r = await bash(root, home, {
      command: [
        "echo inside > made.txt",
        `echo changed > ${canary}`,
        "echo hook > .git/hooks/pre-commit",
        "echo plugin > .anvil/plugins/x.ts",
        "echo '{}' > .mcp.json",
        "mkdir .claude",
        "echo x >> .git/config",
        'cat "$HOME/.ssh/id_ed25519"',
        'echo tmp > "$TMPDIR/t" && echo tmp-ok',
        "git add made.txt >/dev/null 2>&1 && echo git-add-ok",
      ].join("; "),
    })
    expect(r.envelope.status).toBe("success")
    expect(readFileSync(join(root, "made.txt"), "utf8")).toBe("inside\n")
    expect(readFileSync(canary, "utf8")).toBe("untouched\n")
    expect(existsSync(join(root, ".git", "hooks", "pre-commit"))).toBe(false)
    expect(existsSync(join(root, ".anvil", "plugins", "x.ts"))).toBe(false)
    expect(readFileSync(join(root, ".git", "config"), "utf8")).toBe(gitConfig)
    // Missing protected paths stayed uncreatable, and their stand-ins are gone afterwards.
    expect(existsSync(join(root, ".mcp.json"))).toBe(false)
    expect(existsSync(join(root, ".claude"))).toBe(false)
    expect(existsSync(join(root, ".agents"))).toBe(false)
    expect(r.envelope.data.stdout).not.toContain("SECRET-KEY")
    expect(r.envelope.data.stdout).toContain("tmp-ok")
    expect(r.envelope.data.stdout).toContain("git-add-ok")
    expect(r.envelope.data.sandbox.mode).toBe("workspace-write")
    const kinds = r.envelope.data.sandbox.refused.map((x: any) => x.kind)
    expect(kinds).toContain("write")
    expect(kinds).toContain("protected")
    expect(kinds).toContain("secret")
    expect(r.text).toContain("sandbox.writable")
    expect(r.text).toContain(".git/hooks/pre-commit")
    expect(r.text).toContain("sandbox: false")
  })

  test("git cannot be made to run planted code later: .git stays in place, a commondir the command made is removed, core.hooksPath's hooks are read-only; commits still work", async () => {
    const { base, root, home } = setup()
    const canary = join(base, "ran.txt")
    Bun.spawnSync(["git", "-C", root, "config", "core.hooksPath", ".husky/_"])
    const evilConfig = `[core]\n\trepositoryformatversion = 0\n\tfsmonitor = \"touch ${canary}; false\"\n`
    const r = await bash(root, home, {
      command: [
        "mv .git .git-aside && echo moved",
        `mkdir -p evil/hooks && cp -r .git/objects .git/refs evil/ && printf '${evilConfig}' > evil/config && echo ../evil > .git/commondir`,
        "mkdir -p .husky/_ && echo 'touch hooked' > .husky/_/pre-commit",
        "echo x > tracked.txt && git add tracked.txt && git -c user.email=a@b -c user.name=a commit -qm inside && echo committed",
      ].join("; "),
    })
    expect(r.envelope.data.stdout).not.toContain("moved")
    expect(r.envelope.data.stdout).toContain("committed")
    expect(existsSync(join(root, ".git", "commondir"))).toBe(false)
    expect(existsSync(join(root, ".husky", "_", "pre-commit"))).toBe(false)
    expect(r.envelope.data.sandbox.refused).toContainEqual(expect.objectContaining({ kind: "protected", subject: ".git/commondir" }))
    const status = Bun.spawnSync(["git", "-C", root, "status", "--short"], { env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home } })
    expect(status.exitCode).toBe(0)
    expect(existsSync(canary)).toBe(false)
  })

  test("git config in the project's own repository (core.fsmonitor, core.hooksPath) fails as busy and is reported as protected; the config is unchanged", async () => {
    const { root, home } = setup()
    const before = readFileSync(join(root, ".git", "config"), "utf8")
    const r = await bash(root, home, { command: "git config core.fsmonitor 'touch /tmp/x'; git config core.hooksPath /tmp/h" })
    expect(r.envelope.data.stderr).toContain("Device or resource busy")
    expect(readFileSync(join(root, ".git", "config"), "utf8")).toBe(before)
    expect(existsSync(join(root, ".git", "config.lock"))).toBe(false)
    const subjects = r.envelope.data.sandbox.refused.filter((x: { kind: string }) => x.kind === "protected").map((x: { subject: string }) => x.subject)
    expect(subjects).toEqual([".git/config"])
    expect(r.text).toContain("Sandbox: The sandbox keeps .git/config read-only")
  })

  test("husky's own hook scripts (.husky/pre-commit, run by .husky/_/h at the next commit) cannot be changed or added", async () => {
    const { base, root, home } = setup()
    const canary = join(base, "husky-ran.txt")
    mkdirSync(join(root, ".husky", "_"), { recursive: true })
    writeFileSync(join(root, ".husky", "_", "h"), '#!/bin/sh\ns="$(dirname "$(dirname "$0")")/$(basename "$0")"\n[ -f "$s" ] && sh -e "$s"\n')
    writeFileSync(join(root, ".husky", "_", "pre-commit"), '#!/bin/sh\n. "$(dirname "$0")/h"\n')
    chmodSync(join(root, ".husky", "_", "pre-commit"), 0o755)
    writeFileSync(join(root, ".husky", "pre-commit"), "true\n")
    Bun.spawnSync(["git", "-C", root, "config", "core.hooksPath", ".husky/_"])
    const r = await bash(root, home, { command: `echo 'touch ${canary}' >> .husky/pre-commit; echo 'touch ${canary}' > .husky/pre-push; echo tried` })
    expect(r.envelope.data.stdout).toBe("tried")
    expect(r.envelope.data.sandbox.refused).toContainEqual(expect.objectContaining({ kind: "protected", subject: ".husky/pre-commit" }))
    expect(readFileSync(join(root, ".husky", "pre-commit"), "utf8")).toBe("true\n")
    expect(existsSync(join(root, ".husky", "pre-push"))).toBe(false)
    const commit = Bun.spawnSync(["git", "-C", root, "-c", "user.email=a@b", "-c", "user.name=a", "commit", "-q", "--allow-empty", "-m", "x"], { env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home } })
    expect(commit.exitCode).toBe(0)
    expect(existsSync(canary)).toBe(false)
  })

  test("git inside the sandbox does not see the stand-ins: git add -A && git commit commits only the project's own files, and .git/info/exclude is untouched", async () => {
    const { root, home } = setup()
    Bun.spawnSync(["rm", "-f", join(root, "anvil.json")])
    writeFileSync(join(root, "a.txt"), "a\n")
    const exclude = readFileSync(join(root, ".git", "info", "exclude"), "utf8")
    const r = await bash(root, home, { command: "git status --porcelain; git add -A && git -c user.email=a@b -c user.name=a commit -qm model && echo committed" })
    expect(r.envelope.data.stdout).toBe("?? a.txt\ncommitted")
    const files = Bun.spawnSync(["git", "-C", root, "ls-files"]).stdout.toString()
    expect(files).toBe("a.txt\n")
    expect(readFileSync(join(root, ".git", "info", "exclude"), "utf8")).toBe(exclude)
    expect(Bun.spawnSync(["git", "-C", root, "status", "--porcelain"]).stdout.toString()).toBe("")
  })

  test("a config file .git/config includes from the working tree is read-only: no core.fsmonitor planted there runs at the next git status", async () => {
    const { base, root, home } = setup()
    const canary = join(base, "fsmonitor-ran.txt")
    Bun.spawnSync(["git", "-C", root, "config", "include.path", "../.gitconfig-project"])
    writeFileSync(join(root, ".gitconfig-project"), "[user]\n\tname = team\n")
    const r = await bash(root, home, { command: `printf '[core]\\n\\tfsmonitor = \"touch ${canary}; false\"\\n' >> .gitconfig-project; git -c user.email=a@b commit -q --allow-empty -m x && echo committed` })
    expect(r.envelope.data.stdout).toContain("committed")
    expect(r.envelope.data.sandbox.refused).toContainEqual(expect.objectContaining({ kind: "protected", subject: ".gitconfig-project" }))
    expect(readFileSync(join(root, ".gitconfig-project"), "utf8")).toBe("[user]\n\tname = team\n")
    Bun.spawnSync(["git", "-C", root, "status", "--short"], { env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home } })
    expect(existsSync(canary)).toBe(false)
  })

  test("a Unix socket server outside (tmux-, Docker-, D-Bus-like) is unreachable, in the project too, and named; a socket the command makes itself works", async () => {
    const { base, root, home } = setup()
    const outside = join(base, "server.sock")
    const inRoot = join(root, "dev.sock")
    const connections: Array<string> = []
    const servers = [outside, inRoot].map((unix) => Bun.listen({ unix, socket: { open: () => void connections.push(unix), data() {} } }))
    try {
      const connect = (path: string) => `python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); print("reached", sys.argv[1])' '${path}'`
      const own = `python3 -c 'import socket; l=socket.socket(socket.AF_UNIX); l.bind("own.sock"); l.listen(); c=socket.socket(socket.AF_UNIX); c.connect("own.sock"); print("own ok")'`
      const r = await bash(root, home, { command: `${connect(outside)}; ${connect(inRoot)}; ${own}` })
      expect(r.envelope.data.stdout).toBe("own ok")
      expect(r.envelope.data.sandbox.refused).toContainEqual(expect.objectContaining({ kind: "socket", subject: outside }))
      await Bun.sleep(50)
      expect(connections).toEqual([])
    } finally {
      servers.forEach((s) => s.stop(true))
    }
  })

  test("a language server a confined command plants in the project (node_modules/.bin) is never started by a later edit: it would run outside the sandbox", async () => {
    const { base, root, home } = setup()
    const canary = join(base, "server-ran.txt")
    const plant = `mkdir -p node_modules/.bin && printf '#!/bin/sh\\ntouch ${canary}\\nexit 1\\n' > node_modules/.bin/bash-language-server && chmod +x node_modules/.bin/bash-language-server && echo planted`
    // A PATH without a bash-language-server of its own, where the planted one would be the only one.
    const env = { PATH: "/usr/bin:/bin" }
    expect((await bash(root, home, { command: plant }, [], env)).envelope.data.stdout).toBe("planted")
    const r = await runBinary(binary, ["tool", "write", JSON.stringify({ path: "x.sh", content: "echo $a\n" })], root, { HOME: home, ...env })
    expect(JSON.parse(r.out).status).toBe("success")
    expect(existsSync(canary)).toBe(false)
  })

  test("several anvil processes running commands in one project at once: every command starts (no stand-in taken away under another's bubblewrap), none is left", async () => {
    const base = tempDir("anvil-sbx-")
    const root = join(base, "proj")
    const home = join(base, "home")
    mkdirSync(home, { recursive: true })
    Bun.spawnSync(["git", "init", "-q", root])
    for (let round = 0; round < 6; round++) {
      const runs = await Promise.all([0, 1, 2].map((i) => bash(root, home, { command: `sleep 0.0${(round * 3 + i) % 7}; echo ok-${i}` })))
      runs.forEach((r, i) => expect({ round, out: r.envelope.data.stdout, err: r.envelope.data.stderr }).toEqual({ round, out: `ok-${i}`, err: "" }))
    }
    expect(readdirSync(root).sort()).toEqual([".anvil", ".git"])
  })

  test("network: a 127.0.0.1 server outside is unreachable by default and reachable with sandbox.network \"on\"", async () => {
    const url = web()
    const off = setup()
    const blocked = await bash(off.root, off.home, { command: `curl -sS --max-time 5 ${url}` })
    expect(blocked.envelope.data.stdout).not.toContain("hello from outside")
    expect(blocked.envelope.data.exit_code).not.toBe(0)
    expect(blocked.text).toContain("sandbox.network")
    const on = setup({}, { sandbox: { network: "on" } })
    const open = await bash(on.root, on.home, { command: `curl -sS --max-time 5 ${url}` })
    expect(open.envelope.data.stdout).toContain("hello from outside")
  })

  test("network host list: an allowed host is reached through anvil's proxy, another is refused with the setting named", async () => {
    const url = web()
    const { root, home } = setup({}, { sandbox: { network: ["127.0.0.1"] } })
    const r = await bash(root, home, { command: `curl -sS --max-time 5 ${url}; echo; curl -sS --max-time 5 http://blocked.example/ -o /dev/null -w '%{http_code}\\n'` })
    expect(r.envelope.data.stdout).toContain("hello from outside")
    expect(r.envelope.data.stdout).toContain("403")
    expect(r.envelope.data.sandbox.refused).toEqual([expect.objectContaining({ kind: "host", subject: "blocked.example" })])
    expect(r.text).toContain('Add "blocked.example" to sandbox.network')
  })

  test("read-only mode (--sandbox read-only): no writes but the session's temporary folder", async () => {
    const { root, home } = setup()
    const r = await bash(root, home, { command: 'echo x > made.txt; echo t > "$TMPDIR/t" && echo tmp-ok' }, ["--sandbox", "read-only"])
    expect(existsSync(join(root, "made.txt"))).toBe(false)
    expect(r.envelope.data.stdout).toContain("tmp-ok")
    expect(r.envelope.data.sandbox.mode).toBe("read-only")
    expect(r.text).toContain("read-only")
  })

  test("anvil sandbox reports the backend, live checks and the effective rules", async () => {
    const { root, home } = setup({ sandbox: { deny_read: ["~/notes"] } }, { sandbox: { writable: ["../extra"] } })
    mkdirSync(join(dirname(root), "extra"))
    mkdirSync(join(home, "notes"))
    const r = await runBinary(binary, ["sandbox", "--json"], root, { HOME: home })
    expect(r.code).toBe(0)
    const report = JSON.parse(r.out)
    expect(report).toMatchObject({ mode: "workspace-write", enforced: true, network: "off", auto_allow: true })
    expect(report.checks).toEqual({ tmp_write: "ok", outside_refused: "ok", pid_namespace: "ok", network: "isolated" })
    expect(report.protected).toEqual(expect.arrayContaining([".git/hooks", ".git/config", ".anvil", "anvil.json", ".mcp.json (missing: kept uncreatable)"]))
    expect(report.hidden).toEqual(expect.arrayContaining(["~/.ssh", "~/notes"]))
    expect(report.writable).toEqual([join(dirname(root), "extra")])
    expect(existsSync(join(root, ".mcp.json"))).toBe(false)
    const bad = await runBinary(binary, ["sandbox"], setup({ sandbox: { mode: "sideways" } }).root, { HOME: home })
    expect(bad.code).not.toBe(0)
    expect(bad.err).toContain("sandbox.mode")
  })

  test("without bwrap on PATH: a warning and the old permission flow; require makes it an error", async () => {
    const { root, home } = setup()
    const path = pathWithout(["sh", "touch", "cat"])
    const server = fakeOpenAI([{ tool_calls: [{ name: "bash", arguments: { command: "touch made.txt" } }] }, { text: "done" }])
    servers.push(server)
    const env = { HOME: home, PATH: path, OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test", ANVIL_MODEL: "openai/gpt-test" }
    const r = await runBinary(binary, ["run", "--format", "stream-json", "make a file"], root, env)
    const events = r.out.split("\n").filter(Boolean).map((l) => JSON.parse(l))
    expect(events.find((e) => e.subtype === "init").sandbox).toMatchObject({ mode: "off", configured_mode: "workspace-write", enforced: false })
    expect(events.find((e) => e.type === "system" && e.source === "sandbox").message).toContain("bubblewrap")
    // Unconfined, bash asks again: without a terminal or --yes it is denied.
    expect(toolResults(events)[0].envelope.error.code).toBe("PERMISSION_DENIED")
    expect(existsSync(join(root, "made.txt"))).toBe(false)
    const text = await runBinary(binary, ["tool", "bash", '{"command":"true"}'], root, { HOME: home, PATH: path })
    expect(text.err).toBe("")
    // The envelope itself says the command ran unconfined, and why (the model reads it on every such call).
    const unconfined = JSON.parse(text.out)
    expect(unconfined.text).toContain("Sandbox: this command ran unconfined — the command sandbox is not available")
    expect(unconfined.data.sandbox).toMatchObject({ mode: "off", unavailable: expect.stringContaining("install bubblewrap") })
    const required = await runBinary(binary, ["run", "--sandbox", "require", "make a file"], root, env)
    // A sandbox that is required and cannot run is a configuration error.
    expect(required.code).toBe(3)
    expect(required.err).toContain("apt-get install bubblewrap")
    const tool = await runBinary(binary, ["tool", "bash", '{"command":"touch made.txt"}', "--sandbox", "require"], root, { HOME: home, PATH: path })
    expect(JSON.parse(tool.out).error.message).toContain("sandbox.require")
    expect(existsSync(join(root, "made.txt"))).toBe(false)
  })

  test("a scripted run --yes: sandboxed bash needs no approval, sandbox:false is refused without a terminal unless --allow names it; writes outside leave the machine unchanged", async () => {
    const outsideFile = join(tempDir("anvil-verify-"), "verify-out.txt")
    const { root, home, canary, base } = setup({ verify: `echo verify > ${outsideFile}` })
    writeFileSync(join(root, "a.txt"), "a\n")
    const script = () => [
      { tool_calls: [{ name: "bash", arguments: { command: `echo pwned > ${canary}; echo hi > inside.txt` } }] },
      { tool_calls: [{ name: "bash", arguments: { command: `echo pwned > ${canary}`, sandbox: false } }] },
      { tool_calls: [{ name: "write", arguments: { path: "a.txt", content: "b\n" } }] },
      { text: "done" },
    ]
    const server = fakeOpenAI(script())
    servers.push(server)
    const env = { HOME: home, OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test", ANVIL_MODEL: "openai/gpt-test" }
    const r = await runBinary(binary, ["run", "--yes", "--format", "stream-json", "go"], root, env)
    const results = toolResults(jsonLines(r.out))
    expect(results[0].envelope.status).toBe("success")
    expect(existsSync(join(root, "inside.txt"))).toBe(true)
    expect(results[1].envelope.error.code).toBe("PERMISSION_DENIED")
    expect(results[1].envelope.error.message).toContain("outside the command sandbox")
    expect(readFileSync(canary, "utf8")).toBe("untouched\n")
    // verify ran under the same sandbox: its write outside the root was refused.
    expect(existsSync(outsideFile)).toBe(false)
    expect(readdirSync(base).sort()).toEqual(["canary.txt", "home", "proj"])

    // Without --yes, sandboxed bash is auto-allowed (sandbox.auto_allow) while an --allow naming the command lets it out.
    const again = fakeOpenAI(script().slice(0, 2).concat([{ text: "done" }]))
    servers.push(again)
    const allowed = await runBinary(binary, ["run", "--no-verify", "--allow", `bash:echo pwned > ${canary}`, "--format", "stream-json", "go"], root, { ...env, OPENAI_BASE_URL: again.url })
    const res2 = toolResults(jsonLines(allowed.out))
    expect(res2[0].envelope.status).toBe("success")
    expect(res2[1].envelope.status).toBe("success")
    expect(readFileSync(canary, "utf8")).toBe("pwned\n")
  })

  test("command hooks of a Claude Code plugin folder that came with the repository run in the same sandbox", async () => {
    const { root, home, canary } = setup()
    const plugin = join(root, ".anvil", "plugins", "team")
    mkdirSync(join(plugin, ".claude-plugin"), { recursive: true })
    writeFileSync(join(plugin, ".claude-plugin", "plugin.json"), JSON.stringify({ name: "team" }))
    const hook = `echo hooked > ${canary}; echo hooked > hook-inside.txt; cat "$HOME/.ssh/id_ed25519" > hook-saw-key.txt 2>/dev/null; true`
    writeFileSync(
      join(plugin, ".claude-plugin", "hooks.json"),
      JSON.stringify({ hooks: { PreToolUse: [{ matcher: "Read", hooks: [{ type: "command", command: hook }] }] } }),
    )
    writeFileSync(join(plugin, ".claude-plugin", "plugin.json"), JSON.stringify({ name: "team", hooks: "./.claude-plugin/hooks.json" }))
    writeFileSync(join(root, "a.txt"), "a\n")
    const server = fakeOpenAI([{ tool_calls: [{ name: "read", arguments: { path: "a.txt" } }] }, { text: "done" }])
    servers.push(server)
    const env = { HOME: home, OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test", ANVIL_MODEL: "openai/gpt-test" }
    const r = await runBinary(binary, ["run", "--trust-plugins", "--format", "stream-json", "read a.txt"], root, env)
    expect(r.code).toBe(0)
    expect(readFileSync(join(root, "hook-inside.txt"), "utf8")).toBe("hooked\n")
    expect(readFileSync(canary, "utf8")).toBe("untouched\n")
    expect(readFileSync(join(root, "hook-saw-key.txt"), "utf8")).toBe("")
  })

  test("no process is left after a timeout, nor after SIGTERM to anvil run", async () => {
    const { root, home } = setup()
    const marker = `9${Math.floor(Math.random() * 1e6)}`
    const r = await bash(root, home, { command: `sleep ${marker}1 & sleep ${marker}2`, timeout_ms: 500 })
    expect(r.envelope.error?.code ?? r.envelope.data.timed_out).toBeTruthy()
    await Bun.sleep(200)
    expect(processesWith(`sleep ${marker}`)).toEqual([])

    const server = fakeOpenAI([{ tool_calls: [{ name: "bash", arguments: { command: `sleep ${marker}3 & sleep ${marker}4` } }] }, { text: "done" }])
    servers.push(server)
    const proc = Bun.spawn([binary, "run", "--yes", "go"], {
      cwd: root,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test", ANVIL_MODEL: "openai/gpt-test" },
      stdout: "ignore",
      stderr: "ignore",
    })
    const deadline = Date.now() + 20_000
    while (processesWith(`sleep ${marker}4`).length === 0 && Date.now() < deadline) await Bun.sleep(50)
    expect(processesWith(`sleep ${marker}4`).length).toBeGreaterThan(0)
    proc.kill("SIGTERM")
    await proc.exited
    const gone = Date.now() + 5_000
    while (processesWith(`sleep ${marker}`).length > 0 && Date.now() < gone) await Bun.sleep(50)
    expect(processesWith(`sleep ${marker}`)).toEqual([])
  })
})

describe("the model's commands through the binary, sandbox on and off", () => {
  test.each(["workspace-write", "off"])("%s: secret-looking variables and the model's key are withheld, allow_env lets one through; a signal death is 128+N with the signal named", async (mode) => {
    const { root, home } = setup({}, { sandbox: { allow_env: ["NPM_TOKEN", "ANTHROPIC_API_KEY"] } })
    const flag = ["--sandbox", mode]
    const env = { GITHUB_TOKEN: "gh-1", NPM_TOKEN: "npm-1", ANTHROPIC_API_KEY: "sk-ant-test-0123456789", ALIAS: "sk-ant-test-0123456789", LANG: "C.UTF-8", CI: "1" }
    const r = (await bash(root, home, { command: "env | grep -E '^(GITHUB_TOKEN|NPM_TOKEN|ANTHROPIC_API_KEY|ALIAS|LANG|CI)=' | sort" }, flag, env)).envelope
    expect(r.data.stdout).toBe("CI=1\nLANG=C.UTF-8\nNPM_TOKEN=npm-1")
    expect(r.data.sandbox.env_withheld).toEqual(["ALIAS", "ANTHROPIC_API_KEY", "GITHUB_TOKEN"])
    const killed = (await bash(root, home, { command: "kill -9 $$" }, flag)).envelope
    expect(killed.data).toMatchObject({ exit_code: 137, signal: "SIGKILL", killed: true, timed_out: false })
    const termed = await bash(root, home, { args: ["sh", "-c", "kill -TERM $$"] }, flag)
    expect(termed.envelope.data).toMatchObject({ exit_code: 143, signal: "SIGTERM", killed: true })
    expect(termed.text).toContain("Exit code: 143 (killed by SIGTERM)")
    const plain = (await bash(root, home, { command: "exit 3" }, flag)).envelope
    expect(plain.data).toMatchObject({ exit_code: 3, signal: null, killed: false })
  })
})
