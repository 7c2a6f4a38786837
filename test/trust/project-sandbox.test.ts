import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect } from "effect"
import { readConfig, type ConfigShape } from "../../src/config/config.ts"
import { readSandboxSettings } from "../../src/sandbox/settings.ts"
import { ignoredNotice, projectSandboxSection, resolveProjectSandbox, sandboxTrustSubject } from "../../src/trust/project-sandbox.ts"
import { makeTrust } from "../../src/trust/trust.ts"
import { anvilBinary, requireBwrap, runBinary } from "../sandbox/binary.ts"

// A project's own anvil.json may narrow the command sandbox but widens it only once the user trusted it.
setDefaultTimeout(60_000)

const bases: Array<string> = []
afterAll(() => bases.forEach((b) => rmSync(b, { recursive: true, force: true })))

/** A project and a user config folder; `user` and `project` are the two anvil.json files (undefined: none). */
const setup = (project: unknown, user?: unknown) => {
  const base = mkdtempSync(join(tmpdir(), "anvil-psbx-"))
  bases.push(base)
  const root = join(base, "proj")
  const home = join(base, "home")
  mkdirSync(root, { recursive: true })
  mkdirSync(join(home, ".config", "anvil"), { recursive: true })
  if (project !== undefined) writeFileSync(join(root, "anvil.json"), JSON.stringify(project))
  if (user !== undefined) writeFileSync(join(home, ".config", "anvil", "anvil.json"), JSON.stringify(user))
  return { base, root, home, env: { HOME: home } }
}

const load = async (root: string, env: Record<string, string>, overrides?: Record<string, unknown>) => {
  const config = await readConfig({ root, env, checkCache: false, ...(overrides ? { overrides } : {}) })
  if (!("layers" in config)) throw new Error(String(config))
  return config as ConfigShape
}

const resolve = async (project: unknown, user?: unknown, modeFlag?: string) => {
  const t = setup(project, user)
  const config = await load(t.root, t.env)
  const p = await Effect.runPromise(resolveProjectSandbox(config, t.root, modeFlag))
  return { ...t, config, p, settings: readSandboxSettings(p.section, modeFlag) }
}

describe("project sandbox settings and trust", () => {
  test("widening project settings are ignored and named; narrowing ones apply", async () => {
    const { p, settings } = await resolve({
      sandbox: { mode: "off", require: false, writable: ["/"], network: "on", auto_allow: true, allow: ["/"], protected: ["Makefile"], deny_read: ["~/.kube"] },
    })
    expect(p.ignored.map((i) => i.split(":")[0])).toEqual(["sandbox.mode", "sandbox.writable", "sandbox.network", "sandbox.allow"])
    expect(p.trust).toBe("untrusted")
    expect(settings).toMatchObject({ mode: "workspace-write", writable: [], network: { kind: "off" }, protected: ["Makefile"], denyRead: ["~/.kube"] })
    expect((p.section as Record<string, unknown>).allow).toBeUndefined()
    const notice = ignoredNotice(p)!
    expect(notice).toContain('sandbox.mode: "off"')
    expect(notice).toContain("anvil sandbox trust")

    const narrow = await resolve({ sandbox: { mode: "read-only", require: true, auto_allow: false, network: "off" } })
    expect(narrow.p.ignored).toEqual([])
    expect(narrow.settings).toMatchObject({ mode: "read-only", require: true, autoAllow: false })
  })

  test("a project's allow_env (secret-looking variables let through) needs trust; its deny_env adds to the user's", async () => {
    const { p, settings } = await resolve({ sandbox: { allow_env: ["GITHUB_TOKEN"], deny_env: ["CI_*"] } }, { sandbox: { allow_env: ["NPM_TOKEN"], deny_env: ["FOO"] } })
    expect(p.ignored).toEqual(['sandbox.allow_env: ["GITHUB_TOKEN"]'])
    expect(settings).toMatchObject({ allowEnv: ["NPM_TOKEN"], denyEnv: ["FOO", "CI_*"] })
    // Already allowed by the user: nothing widens.
    const same = await resolve({ sandbox: { allow_env: ["NPM_TOKEN"] } }, { sandbox: { allow_env: ["NPM_TOKEN"] } })
    expect(same.p.ignored).toEqual([])
    expect(() => readSandboxSettings({ allow_env: ["A=b"] })).toThrow("without a value")
    expect(() => readSandboxSettings({ deny_env: "X" })).toThrow("environment variable names")
  })

  test("measured against the user's own settings: the project may narrow them, not widen them", async () => {
    const user = { sandbox: { mode: "read-only", require: true, auto_allow: false, writable: ["/opt/a", "/opt/b"], network: ["*.npmjs.org", "pypi.org"], deny_read: ["~/.docker"] } }
    // The same or less than the user allows: applies.
    const within = await resolve({ sandbox: { writable: ["/opt/a"], network: ["registry.npmjs.org"], deny_read: ["~/.kube"] } }, user)
    expect(within.p.ignored).toEqual([])
    expect(within.settings).toMatchObject({ mode: "read-only", require: true, autoAllow: false, writable: ["/opt/a"], network: { kind: "hosts", hosts: ["registry.npmjs.org"] } })
    // Lists that narrow add up: the project cannot drop the user's entries.
    expect(within.settings.denyRead).toEqual(["~/.docker", "~/.kube"])
    // More than the user allows: each such key keeps the user's value.
    const beyond = await resolve({ sandbox: { mode: "workspace-write", require: false, auto_allow: true, writable: ["/opt/a", "/etc"], network: ["evil.example"] } }, user)
    expect(beyond.p.ignored.map((i) => i.split(":")[0])).toEqual(["sandbox.mode", "sandbox.require", "sandbox.writable", "sandbox.network", "sandbox.auto_allow"])
    expect(beyond.settings).toMatchObject({ mode: "read-only", require: true, autoAllow: false, writable: ["/opt/a", "/opt/b"], network: { kind: "hosts", hosts: ["*.npmjs.org", "pypi.org"] } })
    // The user's own file and the command line widen freely.
    const own = await resolve(undefined, { sandbox: { mode: "off", network: "on" } })
    expect(own.p.ignored).toEqual([])
    expect(own.settings).toMatchObject({ mode: "off", network: { kind: "on" } })
    const flag = await resolve({ sandbox: { mode: "off" } }, undefined, "off")
    expect(flag.p.ignored).toEqual([])
    expect(flag.settings.mode).toBe("off")
  })

  test("trusted by content hash in the user's trust store: a change asks again; overrides count as the user's", async () => {
    const t = setup({ sandbox: { mode: "off" } })
    const config = await load(t.root, t.env)
    const trust = makeTrust({ root: t.root, env: t.env })
    await Effect.runPromise(trust.trust(sandboxTrustSubject(projectSandboxSection(config))))
    expect(readFileSync(join(t.home, ".config", "anvil", "trust.json"), "utf8")).toContain("sandbox:anvil.json")
    expect((await Effect.runPromise(resolveProjectSandbox(config, t.root))).ignored).toEqual([])
    writeFileSync(join(t.root, "anvil.json"), JSON.stringify({ sandbox: { mode: "off", network: "on" } }))
    const changed = await Effect.runPromise(resolveProjectSandbox(await load(t.root, t.env), t.root))
    expect(changed.trust).toBe("changed")
    expect(ignoredNotice(changed)).toContain("changed since you trusted")
    // A narrowing-only edit does not need trust again.
    writeFileSync(join(t.root, "anvil.json"), JSON.stringify({ sandbox: { mode: "off", protected: ["x"] } }))
    expect((await Effect.runPromise(resolveProjectSandbox(await load(t.root, t.env), t.root))).ignored).toEqual([])
    // Settings given to anvil directly (flags, an embedding program) are the user's.
    const u = setup({ sandbox: { network: "on" } })
    const overridden = await Effect.runPromise(resolveProjectSandbox(await load(u.root, u.env, { sandbox: { network: "on" } }), u.root))
    expect(overridden.section).toMatchObject({ network: "on" })
  })
})

describe("project sandbox settings through the binary", () => {
  let binary = ""
  beforeAll(async () => {
    requireBwrap()
    binary = await anvilBinary()
  }, 120_000)

  test("a cloned project's sandbox.mode off is ignored with a notice until 'anvil sandbox trust'; untrust undoes it", async () => {
    const { base, root, home } = setup({ sandbox: { mode: "off", writable: ["/"] } })
    Bun.spawnSync(["git", "init", "-q", root])
    const outside = join(base, "outside.txt")
    const command = JSON.stringify({ command: `echo x > ${outside}; echo done` })
    const confined = await runBinary(binary, ["tool", "bash", command], root, { HOME: home })
    const envelope = JSON.parse(confined.out)
    expect(existsSync(outside)).toBe(false)
    expect(envelope.data.sandbox.mode).toBe("workspace-write")
    expect(envelope.data.sandbox.project_ignored).toContain("anvil sandbox trust")
    expect(envelope.text).toContain('Sandbox: the project\'s anvil.json would widen the command sandbox (sandbox.mode: "off"')
    const report = await runBinary(binary, ["sandbox", "--json"], root, { HOME: home })
    expect(JSON.parse(report.out)).toMatchObject({ mode: "workspace-write", project_ignored: expect.stringContaining("sandbox.writable") })

    const trusted = await runBinary(binary, ["sandbox", "trust"], root, { HOME: home })
    expect(trusted.code).toBe(0)
    expect(trusted.out).toContain('sandbox.mode: "off"')
    const free = JSON.parse((await runBinary(binary, ["tool", "bash", command], root, { HOME: home })).out)
    expect(free.data.sandbox).toEqual({ mode: "off", refused: [], env_withheld: [] })
    expect(existsSync(outside)).toBe(true)
    rmSync(outside)

    expect((await runBinary(binary, ["sandbox", "untrust"], root, { HOME: home })).code).toBe(0)
    const again = JSON.parse((await runBinary(binary, ["tool", "bash", command], root, { HOME: home })).out)
    expect(again.data.sandbox.mode).toBe("workspace-write")
    expect(existsSync(outside)).toBe(false)
  })
})
