import { describe, expect, test } from "bun:test"
import { expandSlashCommand, readCommandFolder } from "../../src/plugins/claude-commands.ts"
import { tempDir, writeTree } from "../support/harness.ts"

describe("slash command files", () => {
  test("front matter that is not valid YAML is left out of the prompt and named in the description", () => {
    const dir = tempDir("anvil-commands-")
    writeTree(dir, {
      "review.md": "---\ndescription: Review a change\nargument-hint: FILE\n---\nReview $0 carefully.\n",
      "broken.md": "---\ndescription: [never closed\n---\nFix $ARGUMENTS.\n",
      // As Claude Code describes a command without a description: its first line, a heading without its #s.
      "titled.md": `# Tidy the imports\n\n${"Tidy them. ".repeat(20)}\n`,
      "long.md": `${"w".repeat(120)}\n`,
    })
    const commands = readCommandFolder(dir)
    const broken = commands.find((c) => c.name === "broken")!
    expect(broken.body).toBe("Fix $ARGUMENTS.")
    expect(broken.description).toStartWith("Fix $ARGUMENTS. (its front matter is unreadable at line 2: ")
    expect(expandSlashCommand("/broken the tests", commands)?.prompt).toBe("Fix the tests.")
    expect(expandSlashCommand("/review a.ts", commands)?.prompt).toBe("Review a.ts carefully.")
    expect(commands.find((c) => c.name === "review")).toMatchObject({ description: "Review a change", argumentHint: "FILE" })
    expect(commands.find((c) => c.name === "titled")?.description).toBe("Tidy the imports")
    expect(commands.find((c) => c.name === "long")?.description).toBe(`${"w".repeat(97)}...`)
  })

  test("a command's arguments are counted as a skill's: $0 is the first word, $ARGUMENTS[N], front matter names", () => {
    const dir = tempDir("anvil-commands-")
    writeTree(dir, {
      "ship.md": "Ship $0 to $1 ($ARGUMENTS[1]); all: $ARGUMENTS\n",
      "fix.md": "---\narguments: [issue, branch]\n---\nFix $issue on $branch.\n",
      "plain.md": "Tidy up.\n",
    })
    const commands = readCommandFolder(dir)
    expect(expandSlashCommand(`/ship "1.2 rc" prod`, commands)?.prompt).toBe(`Ship 1.2 rc to prod (prod); all: "1.2 rc" prod`)
    expect(expandSlashCommand("/fix 42 main", commands)?.prompt).toBe("Fix 42 on main.")
    expect(expandSlashCommand("/plain src", commands)?.prompt).toBe("Tidy up.\n\nARGUMENTS: src")
  })
})
