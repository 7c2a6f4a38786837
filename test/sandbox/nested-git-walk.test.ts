import { describe, expect, test } from "bun:test"
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { snapshotNestedGit, undoNestedGit } from "../../src/sandbox/nested-git.ts"
import { nestedGitStore } from "../../src/sandbox/nested-git-store.ts"
import { tempDir } from "../support/harness.ts"

/**
 * The nested-git walk trusts a folder's stamp (inode, ctime, mtime) and does
 * not read it again when it is unchanged, also across anvil processes (the
 * stored shape). Each case below runs a "command" (a plain shell) that plants
 * a repository in a way that keeps mtimes or reuses names, between a walk
 * whose shape comes from the store (a new process) and the walk after it.
 * The margin for recent changes is 0 here, so every stamp is trusted: the
 * hardest case for the walk (the tree is left alone for a moment first, so
 * its stamps lie in an earlier clock tick than the command's changes).
 */

const run = (cwd: string, command: string) => {
  const r = Bun.spawnSync(["sh", "-c", command], { cwd, env: { PATH: process.env.PATH!, HOME: cwd, GIT_CONFIG_NOSYSTEM: "1" }, stderr: "pipe" })
  if (r.exitCode !== 0) throw new Error(`${command}: ${r.stderr.toString()}`)
}

/**
 * Stores the tree's shape as a walk sees it a moment after the last change (so that no stamp is too recent
 * for even a zero margin), and waits a moment more, so that later changes land in a later clock tick.
 */
const storeShape = async (root: string, store: ReturnType<typeof nestedGitStore>) => {
  await Bun.sleep(30)
  store.save(snapshotNestedGit(root, true, undefined, 0))
  await Bun.sleep(30)
}

/** A project with a known deep folder and the user's own nested repository (with a hook), its shape stored. */
const setup = async () => {
  const base = tempDir("anvil-nested-walk-")
  const root = join(base, "proj")
  const outside = join(base, "outside")
  mkdirSync(join(root, "a", "b", "c", "d"), { recursive: true })
  mkdirSync(join(root, "vendor"), { recursive: true })
  mkdirSync(outside, { recursive: true })
  run(base, "git init -q proj && git init -q proj/vendor/own")
  for (let i = 0; i < 20; i++) mkdirSync(join(root, "many", `m${i}`, "x"), { recursive: true })
  const hook = join(root, "vendor", "own", ".git", "hooks", "pre-commit")
  writeFileSync(hook, "#!/bin/sh\necho own\n")
  chmodSync(hook, 0o755)
  const store = nestedGitStore(join(base, "state", "nested-git.json"), root)
  await storeShape(root, store)
  return { base, root, outside, store, hook, ownConfig: readFileSync(join(root, "vendor", "own", ".git", "config"), "utf8") }
}

/** One confined command as a new anvil process sees it: the stored shape, a walk before, the command, the walk after. */
const command = async (t: Awaited<ReturnType<typeof setup>>, script: string) => {
  const loaded = t.store.load()
  expect(loaded).toBeDefined()
  const before = snapshotNestedGit(t.root, true, loaded, 0)
  // Nothing changed since the store was written: no folder had to be read.
  expect(before.read).toBe(0)
  run(t.root, script)
  // The walk after it comes a moment later (no stamp of the command's changes is too recent for a zero margin).
  await Bun.sleep(30)
  const { refusals, after } = undoNestedGit(t.root, before, false, (p) => p.startsWith(`${t.root}/`), 0)
  t.store.save(after)
  return refusals.map((r) => r.subject).sort()
}

const EVIL = "[core]\n\trepositoryformatversion = 0\n\tfsmonitor = /tmp/evil.sh\n"

describe("nested git repositories planted without moving an mtime (stored shape, every stamp trusted)", () => {
  test("a repository made deep in a new folder tree", async () => {
    const t = await setup()
    expect(await command(t, "mkdir -p n1/n2/n3/n4 && git init -q n1/n2/n3/n4/r && git -C n1/n2/n3/n4/r config core.fsmonitor /tmp/evil.sh")).toEqual(["n1/n2/n3/n4/r/.git/config"])
    expect(existsSync(join(t.root, "n1/n2/n3/n4/r/.git/config"))).toBe(false)
  })

  test("a repository made in a known deep folder whose parents do not change", async () => {
    const t = await setup()
    expect(await command(t, "git init -q a/b/c/d && git -C a/b/c/d config core.fsmonitor /tmp/evil.sh && touch -d 2001-01-01 a/b/c/d a/b/c/d/.git a/b/c/d/.git/config")).toEqual(["a/b/c/d/.git/config"])
  })

  test("a prepared tree with old mtimes moved into a known folder (mv), and one put in place of a known folder", async () => {
    const t = await setup()
    run(t.outside, `mkdir -p p/.git/hooks q/.git && printf '#!/bin/sh\\ntouch /tmp/x\\n' > p/.git/hooks/post-checkout && chmod +x p/.git/hooks/post-checkout && printf '${EVIL}' > q/.git/config && touch -d 2001-01-01 p/.git/hooks/post-checkout p/.git/hooks p/.git p q/.git/config q/.git q`)
    expect(await command(t, `mv ${t.outside}/p a/b/c/d/p && rm -rf many/m7 && mv ${t.outside}/q many/m7`)).toEqual(["a/b/c/d/p/.git/hooks/post-checkout", "many/m7/.git/config"])
    expect(existsSync(join(t.root, "a/b/c/d/p/.git/hooks/post-checkout"))).toBe(false)
    expect(existsSync(join(t.root, "many/m7/.git/config"))).toBe(false)
  })

  test("cp -a of a prepared repository, and a .git file (cp -a) naming a git folder outside the project", async () => {
    const t = await setup()
    // The git folder it names has a shorter path than the .git file: it is still looked at after that file.
    const short = mkdtempSync("/tmp/g")
    try {
      run(short, "git init -q . && git config core.fsmonitor /tmp/evil.sh")
      run(t.outside, `git init -q src && git -C src config core.fsmonitor /tmp/evil.sh && touch -d 2001-01-01 src/.git/config && printf 'gitdir: ${short}/.git\\n' > dotgit && touch -d 2001-01-01 dotgit`)
      expect(await command(t, `cp -a ${t.outside}/src many/m3/x/copied && cp -a ${t.outside}/dotgit a/b/.git`)).toEqual(["a/b/.git", "many/m3/x/copied/.git/config"])
      expect(existsSync(join(t.root, "a/b/.git"))).toBe(false)
      // The git folder it named, outside the project, is not the command's: it stays.
      expect(readFileSync(join(short, ".git/config"), "utf8")).toContain("fsmonitor")
    } finally {
      rmSync(short, { recursive: true, force: true })
    }
  })

  test("tar extraction with preserved mtimes over the user's repository and into a known folder; touch -d of a changed hook", async () => {
    const t = await setup()
    run(t.outside, `mkdir -p t/vendor/own/.git t/many/m5/x/.git/hooks && printf '${EVIL}' > t/vendor/own/.git/config && printf '#!/bin/sh\\nid\\n' > t/many/m5/x/.git/hooks/pre-push && touch -d 2001-01-01 t/vendor/own/.git/config t/many/m5/x/.git/hooks/pre-push t/many/m5/x/.git/hooks t/many/m5/x/.git && tar -C t -cf evil.tar vendor many`)
    expect(await command(t, `tar -xpf ${t.outside}/evil.tar && printf '#!/bin/sh\\necho own;id\\n' > vendor/own/.git/hooks/pre-commit && touch -d 2001-01-01 vendor/own/.git/hooks/pre-commit`)).toEqual([
      "many/m5/x/.git/hooks/pre-push",
      "vendor/own/.git/config",
      "vendor/own/.git/hooks/pre-commit",
    ])
    // The user's repository is as it was, permissions included.
    expect(readFileSync(join(t.root, "vendor/own/.git/config"), "utf8")).toBe(t.ownConfig)
    expect(readFileSync(t.hook, "utf8")).toBe("#!/bin/sh\necho own\n")
    expect(statSync(t.hook).mode & 0o777).toBe(0o755)
  })

  test("a change the command could not make (in your repository elsewhere that a .git file of the project names) is left alone", async () => {
    const t = await setup()
    run(t.outside, "git init -q mine")
    writeFileSync(join(t.root, "a", "b", "c", ".git"), `gitdir: ${t.outside}/mine/.git\n`)
    await storeShape(t.root, t.store)
    // Your own edit elsewhere while the command runs (the command cannot write there).
    expect(await command(t, `printf '#!/bin/sh\\necho mine\\n' > ${t.outside}/mine/.git/hooks/pre-commit`)).toEqual([])
    expect(existsSync(join(t.outside, "mine", ".git", "hooks", "pre-commit"))).toBe(true)
  })

  test("a command that leaves repositories alone is not reported, and the next process reads no folder", async () => {
    const t = await setup()
    expect(await command(t, "git -C vendor/own status --short >/dev/null; echo x > many/m1/file; git init -q plain")).toEqual([])
    // The stored shape now has the command's changes: a later process reads nothing again.
    expect(snapshotNestedGit(t.root, true, t.store.load(), 0).read).toBe(0)
  })
})

describe("changes too recent to trust by their stamp", () => {
  test("are compared by content: an unchanged hook stays quiet, a changed one is put back", () => {
    const root = join(tempDir("anvil-nested-racy-"), "proj")
    run("/", `git init -q ${root} && git init -q ${root}/sub`)
    const hook = join(root, "sub", ".git", "hooks", "pre-commit")
    writeFileSync(hook, "#!/bin/sh\necho 1\n")
    // The default margin: everything here is seconds old at most, so no stamp is trusted.
    const before = snapshotNestedGit(root, true)
    expect([...before.folders.values()].every((f) => f.stamp === undefined)).toBe(true)
    const quiet = undoNestedGit(root, before, false)
    expect(quiet.refusals).toEqual([])
    // Same size, mtime set back: only the content tells.
    writeFileSync(hook, "#!/bin/sh\necho 2\n")
    run(root, "touch -r sub/.git/hooks sub/.git/hooks/pre-commit")
    const loud = undoNestedGit(root, quiet.after, false, () => true)
    expect(loud.refusals.map((r) => r.subject)).toEqual(["sub/.git/hooks/pre-commit"])
    expect(readFileSync(hook, "utf8")).toBe("#!/bin/sh\necho 1\n")
  })
})

describe("the stored shape", () => {
  test("a file of another project, version or a cut-short one is not used", () => {
    const base = tempDir("anvil-nested-store-")
    const file = join(base, "nested-git.json")
    const store = nestedGitStore(file, "/p")
    expect(store.load()).toBeUndefined()
    writeFileSync(file, '{"version":1,"root":"/p","folders":[["",')
    expect(store.load()).toBeUndefined()
    writeFileSync(file, JSON.stringify({ version: 1, root: "/other", folders: [["", "1:2:3", 0, []]] }))
    expect(store.load()).toBeUndefined()
    writeFileSync(file, JSON.stringify({ version: 0, root: "/p", folders: [["", "1:2:3", 0, []]] }))
    expect(store.load()).toBeUndefined()
    writeFileSync(file, JSON.stringify({ version: 1, root: "/p", folders: [["", "1:2:3", 0, ["a"]], ["a", "4:5:6", 1, []]] }))
    expect(store.load()?.folders.get("/p/a")).toEqual({ stamp: "4:5:6", git: true, subdirs: [] })
  })
})
