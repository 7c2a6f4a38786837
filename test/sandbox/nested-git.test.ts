import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, realpathSync, statSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { snapshotNestedGit, undoNestedGit, unsafeGitConfig } from "../../src/sandbox/nested-git.ts"
import { tempDir } from "../support/harness.ts"
import { anvilBinary, requireBwrap, runBinary } from "./binary.ts"

// A confined command cannot leave a nested git repository that runs code later (core.fsmonitor, hooks).
setDefaultTimeout(60_000)

describe("git config settings that run code", () => {
  test("plain repository, remote, branch and identity settings pass; anything that runs a program or is not plain does not", () => {
    const init = "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n"
    expect(unsafeGitConfig(init)).toBeUndefined()
    expect(unsafeGitConfig(`${init}[remote "origin"]\n\turl = https://x/y.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n[branch "main"]\n\tremote = origin\n\tmerge = refs/heads/main\n[user]\n\tname = A\n`)).toBeUndefined()
    expect(unsafeGitConfig(`${init}\tfsmonitor = /tmp/x.sh\n`)).toBe("core.fsmonitor")
    expect(unsafeGitConfig(`${init}[core]\n\thooksPath = ../h\n`)).toBe("core.hookspath")
    expect(unsafeGitConfig('[filter "x"]\n\tclean = sh evil\n')).toBe("filter.x.clean")
    expect(unsafeGitConfig("[include]\n\tpath = ../other\n")).toBe("include.path")
    expect(unsafeGitConfig('[remote "o"]\n\tuploadpack = sh evil\n')).toBe("remote.o.uploadpack")
    // Forms anvil does not read are not plain: a key after the header, a continued line.
    expect(unsafeGitConfig("[core] fsmonitor = /tmp/x\n")).toContain("the line")
    expect(unsafeGitConfig("[core]\n\tfilemode = \\\ntrue\n")).toContain("the line")
  })
})

describe("undoing a nested git repository never reaches outside what the command could write", () => {
  test("a .git link or gitdir file naming a folder outside (~/.ssh, ~/.kube, whose config looks like git's) loses the pointer; the files there stay, as do files reached through a linked folder", () => {
    const base = realpathSync(tempDir("anvil-nested-out-"))
    const root = join(base, "proj")
    const home = join(base, "home")
    const files = { ssh: join(home, ".ssh", "config"), kube: join(home, ".kube", "config"), hook: join(home, "h", "hooks", "pre-commit") }
    for (const f of Object.values(files)) {
      mkdirSync(join(f, ".."), { recursive: true })
      writeFileSync(f, "Host prod\n  User deploy\n")
    }
    mkdirSync(join(root, "linked"), { recursive: true })
    Bun.spawnSync(["git", "init", "-q", root])
    const before = snapshotNestedGit(root, true)
    mkdirSync(join(root, "a"))
    symlinkSync(join(home, ".ssh"), join(root, "a", ".git"))
    mkdirSync(join(root, "b"))
    writeFileSync(join(root, "b", ".git"), `gitdir: ${join(home, ".kube")}\n`)
    mkdirSync(join(root, "c"))
    symlinkSync(join(home, "h"), join(root, "c", ".git"))
    const { refusals } = undoNestedGit(root, before, false, (path) => path.startsWith(`${root}/`))
    expect(Object.values(files).map((f) => readFileSync(f, "utf8"))).toEqual(Object.values(files).map(() => "Host prod\n  User deploy\n"))
    for (const d of ["a", "b", "c"]) expect(existsSync(join(root, d, ".git"))).toBe(false)
    expect(refusals.map((r) => r.subject).sort()).toEqual(["a/.git", "b/.git", "c/.git"])
  })
})

describe("nested git repositories made by a confined command (compiled binary)", () => {
  let binary = ""
  beforeAll(async () => {
    requireBwrap()
    binary = await anvilBinary()
  }, 120_000)

  test("a planted fsmonitor, hook or gitdir link is undone and reported; git init, a remote and the user's own repositories stay", async () => {
    const base = tempDir("anvil-nested-git-")
    const root = join(base, "proj")
    const home = join(base, "home")
    mkdirSync(home, { recursive: true })
    mkdirSync(join(root, "vendor", "own"), { recursive: true })
    Bun.spawnSync(["git", "init", "-q", root])
    Bun.spawnSync(["git", "init", "-q", join(root, "vendor", "own")])
    const ownHook = join(root, "vendor", "own", ".git", "hooks", "pre-commit")
    writeFileSync(ownHook, "#!/bin/sh\necho own\n")
    chmodSync(ownHook, 0o755)
    const ownConfig = readFileSync(join(root, "vendor", "own", ".git", "config"), "utf8")
    const marker = join(base, "ran")
    const evil = join(base, "evil.sh")
    writeFileSync(evil, `#!/bin/sh\ntouch ${marker}\n`)
    chmodSync(evil, 0o755)
    const command = [
      `git init -q sub && git -C sub config core.fsmonitor ${evil}`,
      `printf '#!/bin/sh\\ntouch ${marker}\\n' > sub/.git/hooks/post-checkout && chmod +x sub/.git/hooks/post-checkout`,
      "git init -q ok && git -C ok remote add origin https://example.org/y.git",
      `printf '[core] fsmonitor = ${evil}\\n' >> vendor/own/.git/config`,
      "echo 'touch x' >> vendor/own/.git/hooks/pre-commit",
      "mkdir -p deep/er && git init -q deep/er/gd && git -C deep/er/gd config core.fsmonitor x && printf 'gitdir: gd/.git\\n' > deep/er/.git",
      "echo done",
    ].join("; ")
    const r = await runBinary(binary, ["tool", "bash", JSON.stringify({ command })], root, { HOME: home })
    const envelope = JSON.parse(r.out)
    expect(envelope.data.stdout).toBe("done")
    const subjects = envelope.data.sandbox.refused.filter((x: { kind: string }) => x.kind === "protected").map((x: { subject: string }) => x.subject)
    expect(subjects.sort()).toEqual(
      ["deep/er/.git", "deep/er/gd/.git/config", "sub/.git/config", "sub/.git/hooks/post-checkout", "vendor/own/.git/config", "vendor/own/.git/hooks/pre-commit"].sort(),
    )
    expect(envelope.text).toContain("Sandbox: The sandbox removed sub/.git/config, which the command made: it sets core.fsmonitor")
    // Undone: nothing of it runs when git works there.
    expect(existsSync(join(root, "sub", ".git", "config"))).toBe(false)
    expect(existsSync(join(root, "sub", ".git", "hooks", "post-checkout"))).toBe(false)
    expect(existsSync(join(root, "deep", "er", ".git"))).toBe(false)
    expect(readFileSync(join(root, "vendor", "own", ".git", "config"), "utf8")).toBe(ownConfig)
    expect(readFileSync(ownHook, "utf8")).toBe("#!/bin/sh\necho own\n")
    expect(statSync(ownHook).mode & 0o777).toBe(0o755)
    for (const dir of ["sub", "vendor/own"]) Bun.spawnSync(["git", "-C", join(root, dir), "status"], { env: { PATH: process.env.PATH!, HOME: home } })
    Bun.spawnSync(["git", "-C", join(root, "sub"), "checkout", "-q", "-b", "x"], { env: { PATH: process.env.PATH!, HOME: home } })
    expect(existsSync(marker)).toBe(false)
    // What is plain stays: the new repository works, its remote is kept.
    expect(readFileSync(join(root, "ok", ".git", "config"), "utf8")).toContain('[remote "origin"]')
    expect(Bun.spawnSync(["git", "-C", join(root, "sub"), "status", "--short"]).exitCode).toBe(0)

    // A later command that leaves them alone is not reported.
    const quiet = JSON.parse((await runBinary(binary, ["tool", "bash", JSON.stringify({ command: "git -C ok status --short; echo ok" })], root, { HOME: home })).out)
    expect(quiet.data.sandbox.refused).toEqual([])

    // Each anvil process starts from the tree's shape the last one stored (in the user's cache, out of
    // the commands' reach); a tar extraction with preserved mtimes into a known repository is still caught.
    const stored = Bun.spawnSync(["sh", "-c", `ls ${home}/.cache/anvil/projects/*/nested-git.json`]).stdout.toString().trim()
    expect(stored).toEndWith("nested-git.json")
    const prepared = join(base, "prepared")
    mkdirSync(join(prepared, "ok", ".git", "hooks"), { recursive: true })
    writeFileSync(join(prepared, "ok", ".git", "hooks", "pre-commit"), `#!/bin/sh\ntouch ${marker}\n`)
    Bun.spawnSync(["sh", "-c", `touch -d 2001-01-01 ok/.git/hooks/pre-commit ok/.git/hooks && tar -cf ../evil.tar ok`], { cwd: prepared })
    const tarred = JSON.parse((await runBinary(binary, ["tool", "bash", JSON.stringify({ command: `tar -xpf ${join(base, "evil.tar")} && echo x` })], root, { HOME: home })).out)
    expect(tarred.data.sandbox.refused.map((x: { subject: string }) => x.subject)).toEqual(["ok/.git/hooks/pre-commit"])
    expect(existsSync(join(root, "ok", ".git", "hooks", "pre-commit"))).toBe(false)
  })

  test("links planted inside the project's own git folder or a nested one (COMMIT_EDITMSG, logs/HEAD → ~/.bashrc) are removed: git writes through them at the next commit; a link that was there stays", async () => {
    const base = tempDir("anvil-git-links-")
    const root = join(base, "proj")
    const home = join(base, "home")
    mkdirSync(home, { recursive: true })
    const bashrc = join(home, ".bashrc")
    writeFileSync(bashrc, "precious\n")
    Bun.spawnSync(["git", "init", "-q", root])
    Bun.spawnSync(["git", "init", "-q", join(root, "sub")])
    symlinkSync("../description", join(root, ".git", "own-link"))
    const command = [
      `ln -s ${bashrc} .git/COMMIT_EDITMSG`,
      `mkdir -p .git/logs && ln -sf ${bashrc} .git/logs/HEAD`,
      `ln -s ${home} .git/refs/linked`,
      `ln -s ${bashrc} sub/.git/MERGE_MSG`,
      "echo done",
    ].join("; ")
    const envelope = JSON.parse((await runBinary(binary, ["tool", "bash", JSON.stringify({ command })], root, { HOME: home })).out)
    expect(envelope.data.stdout).toBe("done")
    const subjects = envelope.data.sandbox.refused.map((x: { subject: string }) => x.subject).sort()
    expect(subjects).toEqual([".git/COMMIT_EDITMSG", ".git/logs/HEAD", ".git/refs/linked", "sub/.git/MERGE_MSG"])
    const env = { PATH: process.env.PATH!, HOME: home }
    for (const dir of [root, join(root, "sub")]) {
      Bun.spawnSync(["git", "-C", dir, "-c", "user.email=a@b", "-c", "user.name=a", "commit", "-q", "--allow-empty", "-m", "x; touch pwned"], { env })
    }
    expect(readFileSync(bashrc, "utf8")).toBe("precious\n")
    expect(lstatSync(join(root, ".git", "own-link")).isSymbolicLink()).toBe(true)
  })

  test("a project that is no git repository yet: a .git the command makes at the root is judged like a nested one (fsmonitor and hooks undone, a plain git init and commit stay)", async () => {
    const base = tempDir("anvil-root-git-")
    const root = join(base, "proj")
    const home = join(base, "home")
    mkdirSync(root, { recursive: true })
    mkdirSync(home, { recursive: true })
    const marker = join(base, "ran")
    const command = [
      `git init -q && git config core.fsmonitor 'touch ${marker}; false'`,
      `printf '#!/bin/sh\\ntouch ${marker}\\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit`,
      "echo x > f && git add f && git -c user.email=a@b -c user.name=a commit -q --no-verify -m first && echo done",
    ].join("; ")
    const envelope = JSON.parse((await runBinary(binary, ["tool", "bash", JSON.stringify({ command })], root, { HOME: home })).out)
    expect(envelope.data.stdout).toBe("done")
    // (git add ran the fsmonitor inside the sandbox, where its write outside was refused too.)
    const subjects = envelope.data.sandbox.refused.filter((x: { kind: string }) => x.kind === "protected").map((x: { subject: string }) => x.subject).sort()
    expect(subjects).toEqual([".git/config", ".git/hooks/pre-commit"])
    const env = { PATH: process.env.PATH!, HOME: home }
    Bun.spawnSync(["git", "-C", root, "status"], { env })
    Bun.spawnSync(["git", "-C", root, "-c", "user.email=a@b", "-c", "user.name=a", "commit", "-q", "--allow-empty", "-m", "second"], { env })
    expect(existsSync(marker)).toBe(false)
    expect(Bun.spawnSync(["git", "-C", root, "log", "--format=%s"], { env }).stdout.toString()).toBe("second\nfirst\n")
  })
})
