import { describe, expect, test, setDefaultTimeout } from "bun:test"
import { appendFileSync, mkdirSync, rmSync, utimesSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { callTool, tempDir } from "../support/harness.ts"
import { answers, expectSameAnswers, STATUS_AND_DIFF } from "../support/git-parity.ts"
import { git, gitHome, gitRepo, lines } from "../support/git-repo.ts"

// Repositories are built with the git CLI; on a busy machine that takes longer than bun's 5 s default.
setDefaultTimeout(120_000)

const home = gitHome()
const LOGS: ReadonlyArray<[string, Record<string, unknown>, ReadonlyArray<string>]> = [
  ["git_log", {}, ["log"]],
  ["git_log", { oneline: true }, ["log", "--oneline"]],
]

/** Stages `paths` and commits through the built-in backend (no git executable). */
const commitWithoutGit = async (root: string, paths: ReadonlyArray<string>, message: string) => {
  const env = { HOME: home, ANVIL_GIT_BACKEND: "isomorphic" }
  const added = await callTool(root, "git_add", { paths }, { env })
  expect(added.envelope.status).toBe("success")
  const committed = await callTool(root, "git_commit", { message }, { env })
  expect(committed.envelope.status).toBe("success")
}

describe("the git tools without git (isomorphic-git) answer as git does", () => {
  test("clones that borrow objects (clone --shared, --reference, an alternate of an alternate): status, diffs, log, add and commit", async () => {
    const origin = gitRepo(home, { "a.txt": lines("a"), "b.txt": lines("b") }, { commit: "first" })
    git(origin, home, ["gc", "-q"])
    appendFileSync(join(origin, "a.txt"), "second\n")
    git(origin, home, ["commit", "-q", "-am", "second (loose)"])
    const dir = tempDir("anvil-alt-")
    const shared = join(dir, "shared")
    git(dir, home, ["clone", "-q", "--shared", origin, shared])
    const chained = join(dir, "chained")
    git(dir, home, ["clone", "-q", "--shared", shared, chained])
    const referenced = join(dir, "referenced")
    git(dir, home, ["clone", "-q", "--reference", origin, `file://${origin}`, referenced])
    for (const root of [shared, chained, referenced]) {
      expect(git(root, home, ["count-objects"])).toStartWith("0 objects")
      appendFileSync(join(root, "a.txt"), "local edit\n")
      writeFileSync(join(root, "b.txt"), lines("b").replace("b 3\n", "b three\n"))
      git(root, home, ["add", "b.txt"])
      writeFileSync(join(root, "new.txt"), "new\n")
      await expectSameAnswers(home, root, [...STATUS_AND_DIFF, ...LOGS])
      await commitWithoutGit(root, ["a.txt", "new.txt"], "made without git")
      // (The chained clone sees the commit made in the clone it borrows from as dangling.)
      expect(git(root, home, ["fsck", "--no-progress", "--no-dangling"])).toBe("")
      expect(git(root, home, ["log", "--format=%s", "-2"])).toBe("made without git\nsecond (loose)\n")
      expect(git(root, home, ["status", "--porcelain"])).toBe("")
      await expectSameAnswers(home, root, LOGS)
    }
    rmSync(dir, { recursive: true, force: true })
    rmSync(origin, { recursive: true, force: true })
  })

  test("line endings: core.autocrlf true/input, text=auto, text, -text, binary, eol=crlf, a CRLF copy already in the index, binary-looking content; touched files of the same size; git_add stores what git stores", async () => {
    const crlf = (...l: ReadonlyArray<string>) => l.map((x) => `${x}\r\n`).join("")
    const lf = (...l: ReadonlyArray<string>) => l.map((x) => `${x}\n`).join("")
    const later = (root: string, path: string) => utimesSync(join(root, path), new Date(Date.now() + 5000), new Date(Date.now() + 5000))
    for (const autocrlf of ["true", "input", "false"]) {
      const root = gitRepo(home, { "plain.txt": lf("a", "b"), "edited.txt": lf("a", "b"), "kept-crlf.txt": crlf("x", "y"), "sub/bin.dat": lf("p", "q"), "nul.txt": lf("n") }, { commit: "first" })
      git(root, home, ["config", "core.autocrlf", autocrlf])
      writeFileSync(join(root, ".gitattributes"), "*.dat binary\nsub/** eol=crlf\n")
      mkdirSync(join(root, "auto"))
      writeFileSync(join(root, "auto/.gitattributes"), "* text=auto\nforced.txt text\nraw.txt -text\n")
      for (const name of ["a.txt", "forced.txt", "raw.txt", "mixed.txt"]) writeFileSync(join(root, "auto", name), lf("1", "2"))
      writeFileSync(join(root, "sub/eol.txt"), lf("e", "f"))
      git(root, home, ["add", "-A"])
      git(root, home, ["commit", "-q", "-m", "attributes"])
      // CRLF where the index has LF: a size change (git reports it without reading), and same-size rewrites that are touched later.
      writeFileSync(join(root, "plain.txt"), crlf("a", "b"))
      writeFileSync(join(root, "edited.txt"), crlf("a", "changed"))
      writeFileSync(join(root, "kept-crlf.txt"), crlf("x", "y"))
      later(root, "kept-crlf.txt")
      for (const name of ["a.txt", "forced.txt", "raw.txt"]) writeFileSync(join(root, "auto", name), crlf("1", "2"))
      writeFileSync(join(root, "auto/mixed.txt"), "1\r\n2\nlone\rcr\n")
      writeFileSync(join(root, "sub/bin.dat"), crlf("p", "q"))
      writeFileSync(join(root, "sub/eol.txt"), crlf("e", "g"))
      writeFileSync(join(root, "nul.txt"), "n\r\n\0\r\n")
      writeFileSync(join(root, "new-crlf.txt"), crlf("new"))
      await expectSameAnswers(home, root)
      // The index refreshed (stat data of the CRLF files recorded): a later touch leaves the size alone and content decides.
      git(root, home, ["update-index", "-q", "--refresh"])
      for (const name of ["plain.txt", "auto/a.txt", "auto/forced.txt", "sub/eol.txt"]) later(root, name)
      await expectSameAnswers(home, root)
      // Staging without git stores what git would store (compared blob by blob with git's own add in a copy).
      const copy = `${root}-copy`
      git(root, home, ["worktree", "add", "-q", "--detach", copy])
      for (const dir of [root, copy]) {
        writeFileSync(join(dir, "auto/a.txt"), crlf("1", "2", "3"))
        writeFileSync(join(dir, "kept-crlf.txt"), crlf("x", "y", "z"))
        writeFileSync(join(dir, "sub/bin.dat"), crlf("p", "q", "r"))
        writeFileSync(join(dir, "new-crlf.txt"), crlf("new", "file"))
      }
      const env = { HOME: home, ANVIL_GIT_BACKEND: "isomorphic" }
      const paths = ["auto/a.txt", "kept-crlf.txt", "sub/bin.dat", "new-crlf.txt"]
      expect((await callTool(root, "git_add", { paths }, { env })).envelope.status).toBe("success")
      git(copy, home, ["add", ...paths])
      expect(git(root, home, ["ls-files", "-s", ...paths])).toBe(git(copy, home, ["ls-files", "-s", ...paths]))
      await expectSameAnswers(home, root)
      rmSync(copy, { recursive: true, force: true })
      rmSync(root, { recursive: true, force: true })
    }
  })

  test("untracked files the user's excludes file hides (core.excludesFile, $XDG_CONFIG_HOME/git/ignore, ~/.config/git/ignore), with .gitignore and info/exclude over it", async () => {
    const user = gitHome()
    const tree = { "keep.txt": "k\n", "build/tracked.txt": "t\n", ".gitignore": "!important.log\nbuild/\n" }
    const untracked = ["a.log", "important.log", "notes.tmp", "scratch/x.txt", "deep/er/y.log", "deep/er/z.txt", "build/new.txt", "secret.key", "cache/c.bin"]
    const fill = (root: string) => {
      for (const p of untracked) {
        mkdirSync(join(root, p, ".."), { recursive: true })
        writeFileSync(join(root, p), "u\n")
      }
      writeFileSync(join(root, ".git/info/exclude"), "!secret.key\ncache/\n")
    }
    const rules = "*.log\n*.tmp\nscratch/\nsecret.key\n"
    // core.excludesFile in ~/.gitconfig, with ~ expanded.
    writeFileSync(join(user, "my-ignore"), rules)
    appendFileSync(join(user, ".gitconfig"), "[core]\n\texcludesFile = ~/my-ignore\n")
    const first = gitRepo(user, tree, { commit: "first" })
    fill(first)
    await expectSameAnswers(user, first, STATUS_AND_DIFF.slice(0, 2))
    // The default places: $XDG_CONFIG_HOME/git/ignore, else ~/.config/git/ignore.
    const plain = gitHome()
    const second = gitRepo(plain, tree, { commit: "first" })
    fill(second)
    mkdirSync(join(plain, ".config", "git"), { recursive: true })
    writeFileSync(join(plain, ".config", "git", "ignore"), rules)
    await expectSameAnswers(plain, second, STATUS_AND_DIFF.slice(0, 2))
    const xdg = tempDir("anvil-xdg-")
    mkdirSync(join(xdg, "git"))
    writeFileSync(join(xdg, "git", "ignore"), "*.txt\n")
    await expectSameAnswers(plain, second, STATUS_AND_DIFF.slice(0, 2), { XDG_CONFIG_HOME: xdg })
    // git_add of a folder leaves what the excludes file hides.
    const env = { HOME: plain, ANVIL_GIT_BACKEND: "isomorphic" }
    expect((await callTool(second, "git_add", { paths: ["deep"] }, { env })).envelope.status).toBe("success")
    expect(git(second, plain, ["status", "--porcelain", "deep"])).toBe("A  deep/er/z.txt\n")
    for (const dir of [first, second, user, plain, xdg]) rmSync(dir, { recursive: true, force: true })
  })

  test("git_log: messages and names in Latin-1 and other encodings (i18n.commitEncoding), a SHA-256 repository packed with deltas and loose, a shallow clone, a clone borrowing its history", async () => {
    const root = gitRepo(home, { "f.txt": lines("f", 200) }, { commit: "first" })
    const latin1 = join(root, "..", `${root.split("/").pop()}-msg`)
    writeFileSync(latin1, Buffer.from("Caf\xe9 cr\xe8me\n\nCorps du message: \xe0 la fran\xe7aise\n", "latin1"))
    appendFileSync(join(root, "f.txt"), "2\n")
    git(root, home, ["-c", "i18n.commitEncoding=ISO-8859-1", "commit", "-q", "-a", "-F", latin1], { GIT_AUTHOR_NAME: Buffer.from("Jos\xe9", "latin1").toString("latin1") })
    writeFileSync(latin1, Buffer.from("\x8f\xad\x8a\x4a \x82\xa0\n", "binary"))
    appendFileSync(join(root, "f.txt"), "3\n")
    git(root, home, ["-c", "i18n.commitEncoding=Shift_JIS", "commit", "-q", "-a", "-F", latin1])
    appendFileSync(join(root, "f.txt"), "4\n")
    git(root, home, ["commit", "-q", "-a", "-m", "Plain UTF-8: ünïcödé"])
    await expectSameAnswers(home, root, LOGS)
    rmSync(latin1, { force: true })

    const sha256 = gitRepo(home, {}, {})
    rmSync(join(sha256, ".git"), { recursive: true, force: true })
    git(sha256, home, ["init", "-q", "-b", "main", "--object-format=sha256"])
    for (let i = 0; i < 12; i++) {
      writeFileSync(join(sha256, "f.txt"), lines(`v${i % 3}`, 300 + i))
      git(sha256, home, ["add", "f.txt"])
      git(sha256, home, ["commit", "-q", "-m", `commit ${i}\n\nbody ${i}`], { GIT_COMMITTER_DATE: `@${1700000000 + i * 60} +0000`, GIT_AUTHOR_DATE: `@${1700000000 + i * 60} +0130` })
      if (i === 8) git(sha256, home, ["gc", "-q", "--aggressive"])
    }
    git(sha256, home, ["checkout", "-q", "-b", "side", "HEAD~3"])
    writeFileSync(join(sha256, "g.txt"), "side\n")
    git(sha256, home, ["add", "g.txt"])
    git(sha256, home, ["commit", "-q", "-m", "side"])
    git(sha256, home, ["checkout", "-q", "main"])
    git(sha256, home, ["merge", "-q", "--no-edit", "side"])
    expect(git(sha256, home, ["count-objects", "-v"])).toContain("in-pack: ")
    await expectSameAnswers(home, sha256, [...LOGS, ["git_log", { limit: 5 }, ["log", "-5"]]])
    const shallow = `${sha256}-shallow`
    git(sha256, home, ["clone", "-q", "--depth", "3", `file://${sha256}`, shallow])
    await expectSameAnswers(home, shallow, LOGS)
    rmSync(shallow, { recursive: true, force: true })
    const borrowing = `${sha256}-shared`
    git(sha256, home, ["clone", "-q", "--shared", sha256, borrowing])
    await expectSameAnswers(home, borrowing, LOGS)
    for (const dir of [root, sha256, borrowing]) rmSync(dir, { recursive: true, force: true })
  })

  test("submodules: new commits, modified and untracked content, a nested one, a staged new one, a deleted folder, one not checked out", async () => {
    const allow = ["-c", "protocol.file.allow=always"]
    const inner = gitRepo(home, { "i.txt": "i\n" }, { commit: "inner" })
    const sub = gitRepo(home, { "x.txt": lines("x") }, { commit: "sub" })
    git(sub, home, [...allow, "submodule", "add", "-q", inner, "nested"])
    git(sub, home, ["commit", "-q", "-m", "nested"])
    const root = gitRepo(home, { "t.txt": "t\n" }, { commit: "first" })
    for (const name of ["dirty", "moved", "untracked", "gone", "unchecked", "deep", "clean"]) git(root, home, [...allow, "submodule", "add", "-q", sub, name])
    git(root, home, ["commit", "-q", "-m", "subs"])
    git(root, home, [...allow, "submodule", "update", "-q", "--init", "--recursive"])
    git(root, home, [...allow, "submodule", "add", "-q", sub, "staged"])
    appendFileSync(join(root, "dirty/x.txt"), "more\n")
    writeFileSync(join(root, "dirty/new.txt"), "n\n")
    writeFileSync(join(root, "moved/x.txt"), "y\n")
    git(join(root, "moved"), home, ["commit", "-q", "-am", "next"])
    writeFileSync(join(root, "untracked/u.txt"), "u\n")
    rmSync(join(root, "gone"), { recursive: true, force: true })
    git(root, home, ["submodule", "deinit", "-q", "-f", "unchecked"])
    writeFileSync(join(root, "deep/nested/only-untracked.txt"), "n\n")
    await expectSameAnswers(home, root)
    const status = git(root, home, ["status"])
    expect(status).toContain("modified:   dirty (modified content, untracked content)")
    expect(status).toContain("modified:   deep (untracked content)")
    // Staging without git records a submodule's new commit (not its files) and a removed one, as git add does.
    const env = { HOME: home, ANVIL_GIT_BACKEND: "isomorphic" }
    expect((await callTool(root, "git_add", { paths: ["moved", "gone", "dirty"] }, { env })).envelope.status).toBe("success")
    expect(git(root, home, ["status", "--porcelain"])).toBe("M  .gitmodules\n M deep\n M dirty\nM  moved\nR  gone -> staged\n M untracked\n")
    await expectSameAnswers(home, root)
    expect((await callTool(root, "git_commit", { message: "submodules moved" }, { env })).envelope.status).toBe("success")
    // (git submodule add itself leaves dangling blobs of .gitmodules behind.)
    expect(git(root, home, ["fsck", "--no-progress", "--no-dangling"])).toBe("")
    expect(git(root, home, ["ls-tree", "HEAD", "moved", "staged"])).toBe(git(root, home, ["ls-files", "-s", "moved", "staged"]).replace(/ 0\t/g, "\t").replace(/^160000 /gm, "160000 commit "))
    for (const dir of [root, sub, inner]) rmSync(dir, { recursive: true, force: true })
  })

  test("file names that are not UTF-8: through git, printed byte for byte as git prints them; without git, a clear refusal naming the file", async () => {
    const root = gitRepo(home, { "plain.txt": "p\n" }, { commit: "first" })
    const name = (s: string) => Buffer.from(s, "latin1")
    writeFileSync(Buffer.concat([Buffer.from(`${root}/`), name("caf\xe9.txt")]), "a\n")
    git(root, home, ["add", "-A"])
    git(root, home, ["commit", "-q", "-m", "latin-1 name"])
    appendFileSync(Buffer.concat([Buffer.from(`${root}/`), name("caf\xe9.txt")]), "more\n")
    writeFileSync(Buffer.concat([Buffer.from(`${root}/`), name("new\xff \xe0.txt")]), "n\n")
    writeFileSync(join(root, "ünï.txt"), "valid UTF-8\n")
    for (const [tool, params, args] of STATUS_AND_DIFF) {
      const { cli, iso } = await answers(home, root, tool, params)
      expect(String((cli.data as { content: string }).content)).toBe(git(root, home, args).replace(/\n+$/, ""))
      expect(iso.status).toBe("error")
      expect(iso.text).toContain('the file name "caf\\351.txt" is not UTF-8')
      expect(iso.text).toContain("install git")
    }
    const { cli } = await answers(home, root, "git_status", { short: true })
    // In data the bytes that are not UTF-8 are kept as U+DC80–U+DCFF (reversible), never U+FFFD.
    expect((cli.data as { entries: Array<{ path: string }> }).entries.map((e) => e.path)).toEqual(["caf\udce9.txt", "new\udcff \udce0.txt", "ünï.txt"])
    // A name only on disk (untracked, in a folder) is refused too, not listed under a wrong name.
    const second = gitRepo(home, { "plain.txt": "p\n" }, { commit: "first" })
    mkdirSync(join(second, "sub"))
    writeFileSync(Buffer.concat([Buffer.from(`${second}/sub/`), name("new\xff \xe0.txt")]), "n\n")
    const untracked = await answers(home, second, "git_status", {})
    expect(String((untracked.cli.data as { content: string }).content)).toBe(git(second, home, ["status"]).replace(/\n+$/, ""))
    expect(untracked.iso.text).toContain('the file name "sub/new\\377 \\340.txt" is not UTF-8')
    // A name left only in HEAD (removed from the index and the disk) is refused too, never shown as U+FFFD.
    git(root, home, ["rm", "-q", "-f", "--cached", "--", "caf?.txt"])
    rmSync(Buffer.concat([Buffer.from(`${root}/`), name("caf\xe9.txt")]))
    rmSync(Buffer.concat([Buffer.from(`${root}/`), name("new\xff \xe0.txt")]))
    for (const [tool, params, args] of STATUS_AND_DIFF) {
      const { cli, iso } = await answers(home, root, tool, params)
      // content is git's output without its last newline (here the long status ends in a blank line).
      expect(String((cli.data as { content: string }).content)).toBe(git(root, home, args).replace(/\n$/, ""))
      // The unstaged diff does not involve HEAD: it may answer, but then as git does.
      if (iso.status === "success") expect(String((iso.data as { content: string }).content)).toBe(git(root, home, args).replace(/\n$/, ""))
      else expect(iso.text).toContain('the file name "caf\\351.txt" is not UTF-8')
      if (tool !== "git_diff" || params.staged === true) expect(iso.status).toBe("error")
    }
    rmSync(second, { recursive: true, force: true })
    rmSync(root, { recursive: true, force: true })
  })

  test("intent-to-add entries (git add -N) on commit: left out of the commit, still intended after it; alone they are nothing to commit", async () => {
    const results: Record<string, { tree: string; status: string; alone: string | undefined }> = {}
    for (const backend of ["cli", "isomorphic"]) {
      const root = gitRepo(home, { "a.txt": "a\n" }, { commit: "first" })
      writeFileSync(join(root, "planned.txt"), "planned\n")
      git(root, home, ["add", "-N", "planned.txt"])
      const env = { HOME: home, ANVIL_GIT_BACKEND: backend }
      const alone = await callTool(root, "git_commit", { message: "nothing" }, { env })
      appendFileSync(join(root, "a.txt"), "b\n")
      git(root, home, ["add", "a.txt"])
      expect((await callTool(root, "git_commit", { message: "second" }, { env })).envelope.status).toBe("success")
      results[backend] = { tree: git(root, home, ["ls-tree", "-r", "HEAD"]), status: git(root, home, ["status", "--porcelain"]), alone: alone.envelope.error?.message }
      rmSync(root, { recursive: true, force: true })
    }
    expect(results.isomorphic).toEqual(results.cli!)
    expect(results.cli!.status).toBe(" A planned.txt\n")
    expect(results.cli!.tree).not.toContain("planned.txt")
    expect(results.cli!.alone).toContain("Nothing to commit")
  })

  test("clean filters (filter=lfs and the like), working-tree-encoding, ident: without git, a changed file they apply to is refused, not misread; a filter no config defines is ignored, as git ignores it", async () => {
    const root = gitRepo(home, { ".gitattributes": "*.big filter=upper\n*.odd filter=undefined-driver\n", "a.big": "a\n", "b.odd": "b\n", "c.txt": "c\n" }, { commit: "first" })
    git(root, home, ["config", "filter.upper.clean", "cat"])
    git(root, home, ["config", "filter.upper.smudge", "cat"])
    // Index written a second after the files: unchanged ones are then known clean by their stat data alone, as git knows them.
    await Bun.sleep(1100)
    git(root, home, ["rm", "-q", "--cached", "c.txt"])
    git(root, home, ["add", "c.txt"])
    appendFileSync(join(root, "b.odd"), "more\n")
    appendFileSync(join(root, "c.txt"), "more\n")
    await expectSameAnswers(home, root)
    appendFileSync(join(root, "a.big"), "more\n")
    const { cli, iso } = await answers(home, root, "git_status", {})
    expect(cli.status).toBe("success")
    expect(iso.status).toBe("error")
    expect(iso.text).toContain('the file a.big goes through the "upper" filter')
    expect(iso.text).toContain("install git")
    // The same for a file kept in another encoding (working-tree-encoding) and for an expanded $Id$ (ident).
    rmSync(join(root, "a.big"))
    git(root, home, ["checkout", "-q", "--", "a.big"])
    writeFileSync(join(root, ".gitattributes"), "*.u16 working-tree-encoding=UTF-16LE\n*.id ident\n")
    writeFileSync(join(root, "w.u16"), Buffer.from("wide\n", "utf16le"))
    writeFileSync(join(root, "v.id"), "$Id$\n")
    git(root, home, ["add", "-A"])
    git(root, home, ["commit", "-q", "-m", "encodings"])
    writeFileSync(join(root, "w.u16"), Buffer.from("wider\n", "utf16le"))
    const encoded = await answers(home, root, "git_diff", {})
    expect(encoded.cli.status).toBe("success")
    expect(encoded.iso.text).toContain("is kept in UTF-16LE (working-tree-encoding)")
    git(root, home, ["checkout", "-q", "--", "w.u16"])
    // Files checked out in the index's own second are racily clean: git reads them again through their filter,
    // which the built-in reader cannot do. Dated back and refreshed, their stat data alone says clean, for both.
    const past = new Date(Date.now() - 10_000)
    for (const f of ["a.big", "w.u16"]) utimesSync(join(root, f), past, past)
    git(root, home, ["update-index", "-q", "--refresh"])
    writeFileSync(join(root, "v.id"), "$Id: 0123456789abcdef $\nmore\n")
    const ident = await answers(home, root, "git_status", {})
    expect(ident.cli.status).toBe("success")
    expect(ident.iso.text).toContain("has an expanded $Id$ (the ident attribute)")
    rmSync(root, { recursive: true, force: true })
  })

  test("a repository inside the working tree that is no submodule: one untracked folder in every untracked mode; git_add records its commit", async () => {
    const results: Record<string, { status: string; files: string; add: unknown }> = {}
    for (const backend of ["cli", "isomorphic"]) {
      const root = gitRepo(home, { "a.txt": "a\n" }, { commit: "first" })
      const inner = gitRepo(home, { "i.txt": "i\n", "d/j.txt": "j\n" }, { commit: "inner" })
      rmSync(join(root, "nested"), { recursive: true, force: true })
      git(root, home, ["clone", "-q", inner, "deep/nested"])
      writeFileSync(join(root, "deep/nested/untracked.txt"), "u\n")
      for (const mode of ["normal", "all"]) {
        git(root, home, ["config", "status.showUntrackedFiles", mode])
        await expectSameAnswers(home, root, STATUS_AND_DIFF.slice(0, 2))
      }
      const env = { HOME: home, ANVIL_GIT_BACKEND: backend }
      const added = await callTool(root, "git_add", { paths: ["deep"] }, { env })
      results[backend] = { status: git(root, home, ["status", "--porcelain"]), files: git(root, home, ["ls-files", "-s"]), add: (added.envelope.data as { changes: unknown }).changes }
      for (const dir of [root, inner]) rmSync(dir, { recursive: true, force: true })
    }
    expect(results.isomorphic!.status).toBe(results.cli!.status)
    expect(results.cli!.status).toContain("AM deep/nested")
    expect(results.isomorphic!.files.replace(/[0-9a-f]{40}/g, "<id>")).toBe(results.cli!.files.replace(/[0-9a-f]{40}/g, "<id>"))
    expect(results.isomorphic!.add).toEqual(results.cli!.add)
  })
})
