import { describe, expect, test } from "bun:test"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { project } from "../support/harness.ts"
import { runBinary } from "../support/binary.ts"
import { tempDir } from "../support/temp-dirs.ts"

/**
 * todowrite replaces the whole list, so writers at the same moment are no conflict: the last one's list stands.
 * Twenty at once lost the third try of the replace and answered CONFLICT with no next step.
 */
describe("todowrite with writers at the same moment", () => {
  test("through the binary: twenty at once all succeed, and the file holds one of their lists whole", async () => {
    const root = project()
    const home = tempDir("anvil-home-")
    const lists = Array.from({ length: 20 }, (_, i) => [{ content: `task ${i}`, status: "pending" }])
    const answers = await Promise.all(
      lists.map(async (todos) => JSON.parse((await runBinary(["tool", "todowrite", JSON.stringify({ todos })], { cwd: root, env: { HOME: home } })).stdout)),
    )
    expect(answers.map((a) => a.status)).toEqual(lists.map(() => "success"))
    const stored = JSON.parse(readFileSync(join(root, ".anvil/todos/cli.json"), "utf8"))
    expect(stored.todos).toHaveLength(1)
    expect(lists.map((l) => l[0]!.content)).toContain(stored.todos[0].content)
  }, 120_000)
})
