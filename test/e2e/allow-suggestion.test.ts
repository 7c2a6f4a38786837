import { beforeAll, expect, setDefaultTimeout, test } from "bun:test"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { jsonLines, runProcess, toolResults } from "../support/anvil-cli.ts"
import { anvilBinary } from "../support/binary.ts"
import { openaiRuns } from "../support/openai-run.ts"
import { project } from "../support/harness.ts"

// A scripted run's refusal names the --allow flags that approve the call: pasted into a shell, they let it run.
setDefaultTimeout(60_000)
beforeAll(() => void anvilBinary(), 120_000)
const openai = openaiRuns()

const COMMAND = `printf one > made.txt && printf ' two' >> made.txt; echo "it's $(cat made.txt)"`

const run = (root: string, env: Record<string, string>, flags: string) =>
  runProcess(["/bin/sh", "-c", `"$ANVIL" run -f stream-json ${flags} 'make the file'`], { cwd: root, env: { ...env, ANVIL: anvilBinary() } })

const turns = () => [{ tool_calls: [{ name: "bash", arguments: { command: COMMAND }, id: "b1" }] }, { text: "Done." }]

test("the refusal of a compound command suggests --allow flags (one per simple command, shell-quoted) that let it run", async () => {
  // bash asks here whatever the sandbox does, so the scripted run refuses it.
  const root = project({ "anvil.json": JSON.stringify({ permission: { bash: "ask" } }) })
  const first = await run(root, openai(turns()).env, "")
  expect(first.code).toBe(4)
  const refusal = toolResults(jsonLines(first.stdout)).find((t) => t.id === "b1")!
  expect(refusal.envelope.error.code).toBe("PERMISSION_DENIED")
  const message: string = refusal.envelope.error.message
  const flags = /approve such calls with --yes or (.*); do not retry/.exec(message)?.[1]
  expect(flags).toBeDefined()
  // One flag per simple command the shell runs (the substitution's `cat made.txt` too), never the whole line.
  expect(flags!.match(/--allow /g)!.length).toBe(4)
  expect(flags).not.toContain(COMMAND)
  expect(existsSync(join(root, "made.txt"))).toBe(false)

  const second = await run(root, openai(turns()).env, flags!)
  expect(second.code).toBe(0)
  const ran = toolResults(jsonLines(second.stdout)).find((t) => t.id === "b1")!
  expect(ran.is_error).toBe(false)
  expect(ran.envelope.data.stdout).toBe("it's one two")
  expect(readFileSync(join(root, "made.txt"), "utf8")).toBe("one two")
})

test("a rule for one part of a compound command does not approve the rest", async () => {
  const root = project({ "anvil.json": JSON.stringify({ permission: { bash: "ask" } }) })
  const r = await run(root, openai(turns()).env, `--allow 'bash:printf one > made.txt'`)
  expect(r.code).toBe(4)
  expect(toolResults(jsonLines(r.stdout)).find((t) => t.id === "b1")!.envelope.error.code).toBe("PERMISSION_DENIED")
  expect(existsSync(join(root, "made.txt"))).toBe(false)
})
