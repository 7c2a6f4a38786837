import { describe, expect, test } from "bun:test"
import { expandSlashCommand, readCommandFolder } from "../../src/plugins/claude-commands.ts"
import { tempDir, writeTree } from "../support/harness.ts"

describe("slash command files", () => {
  test("front matter that is not valid YAML is left out of the prompt and named in the description", () => {
    const dir = tempDir("anvil-commands-")
    writeTree(dir, {
      "review.md": "---\ndescription: Review a change\nargument-hint: FILE\n---\nReview $1 carefully.\n",
      "broken.md": "---\ndescription: [never closed\n---\nFix $ARGUMENTS.\n",
    })
    const commands = readCommandFolder(dir)
    const broken = commands.find((c) => c.name === "broken")!
    expect(broken.body).toBe("Fix $ARGUMENTS.")
    expect(broken.description).toStartWith("Fix $ARGUMENTS. (its front matter is unreadable at line 2: ")
    expect(expandSlashCommand("/broken the tests", commands)?.prompt).toBe("Fix the tests.")
    expect(expandSlashCommand("/review a.ts", commands)?.prompt).toBe("Review a.ts carefully.")
    expect(commands.find((c) => c.name === "review")).toMatchObject({ description: "Review a change", argumentHint: "FILE" })
  })
})
