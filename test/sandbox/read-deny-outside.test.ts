import { describe, expect, setDefaultTimeout, test } from "bun:test"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { tempDir } from "../support/harness.ts"
import { runBinary, sandboxBinary } from "./binary.ts"

// Absolute read deny patterns with a wildcard that name places outside the project (`/srv/keys/**/*.pem`) are hidden
// from confined commands as read refuses them: looked for from the folder before the first wildcard, as each command
// starts. One that starts at / cannot be looked for, so no confined command runs. Through the compiled binary.
setDefaultTimeout(60_000)

const binary = sandboxBinary()

/** A project, and a folder outside it with secrets at two depths and a plain file; `read` rules in the user's settings. */
const world = () => {
  const root = tempDir("anvil-outside-")
  Bun.spawnSync(["git", "init", "-q"], { cwd: root })
  const out = tempDir("anvil-outside-keys-")
  mkdirSync(join(out, "deep"))
  writeFileSync(join(out, "top.key"), "SEC-TOP\n")
  writeFileSync(join(out, "deep", "inner.key"), "SEC-DEEP\n")
  writeFileSync(join(out, "plain.txt"), "PLAIN\n")
  const home = tempDir("anvil-outside-home-")
  mkdirSync(join(home, ".config", "anvil"), { recursive: true })
  const rules = (read: Record<string, string>) => writeFileSync(join(home, ".config", "anvil", "anvil.json"), JSON.stringify({ permission: { read } }))
  const bash = async (command: string) => JSON.parse((await runBinary(binary(), ["tool", "bash", JSON.stringify({ command })], root, { HOME: home })).out)
  const read = async (path: string) => JSON.parse((await runBinary(binary(), ["tool", "read", JSON.stringify({ path })], root, { HOME: home })).out)
  return { root, out, rules, bash, read }
}

describe("absolute read deny patterns outside the project, in confined commands", () => {
  test("`<folder>/**/*.key` hides every match below the folder; `<folder>/*.key` only its own; the rest stays readable", async () => {
    const w = world()
    const cat = `cat ${w.out}/top.key ${w.out}/deep/inner.key ${w.out}/plain.txt`
    w.rules({ [`${w.out}/**/*.key`]: "deny" })
    const all = await w.bash(cat)
    expect(all.data.stdout).toBe("PLAIN")
    expect(all.data.sandbox.refused.filter((r: { kind: string }) => r.kind === "masked").map((r: { subject: string }) => r.subject).sort()).toEqual([`${w.out}/deep/inner.key`, `${w.out}/top.key`])
    w.rules({ [`${w.out}/*.key`]: "deny" })
    const top = await w.bash(cat)
    expect(top.data.stdout).toBe("SEC-DEEP\nPLAIN")
    // A wildcard in the middle (`/…/*/inner.key`) is looked for from the folder before it.
    w.rules({ [`${w.out}/*/inner.key`]: "deny" })
    expect((await w.bash(cat)).data.stdout).toBe("SEC-TOP\nPLAIN")
  })

  test("a file made later that the pattern matches is hidden from the next command", async () => {
    const w = world()
    w.rules({ [`${w.out}/**/*.key`]: "deny" })
    await w.bash("true")
    writeFileSync(join(w.out, "deep", "new.key"), "SEC-NEW\n")
    const next = await w.bash(`cat ${w.out}/deep/new.key`)
    expect(JSON.stringify(next)).not.toContain("SEC-NEW")
  })

  test("a pattern that starts at / (`/**/*.key`) cannot be looked for: no confined command runs, the answer says why and what to write", async () => {
    const w = world()
    w.rules({ "/**/*.key": "deny" })
    const ran = await w.bash(`cat ${w.out}/plain.txt`)
    expect(ran.error.code).toBe("PERMISSION_DENIED")
    expect(ran.error.message).toContain(`the rule "read": {"/**/*.key": "deny"}`)
    expect(ran.error.message).toContain("cannot all be found")
    expect(ran.text).toContain('"/srv/keys/*.pem" rather than "/**/*.pem"')
    expect(JSON.stringify(ran)).not.toContain("PLAIN")
  })
})
