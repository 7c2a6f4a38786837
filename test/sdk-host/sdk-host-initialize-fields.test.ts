import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { query, SYSTEM_PROMPT_DYNAMIC_BOUNDARY } from "@anthropic-ai/claude-agent-sdk"
import { anvilBinary, runBinary } from "../support/binary.ts"
import { project } from "../support/harness.ts"
import { base, collect, model, resultOf, stopServers, taskTurns } from "./sdk-support.ts"

// Every field of the SDK's initialize request is acted on or named back with why: none is dropped in silence.
setDefaultTimeout(60_000)

afterAll(stopServers)
beforeAll(() => void anvilBinary(), 120_000)

const systemOf = (body: any): string => String(body.messages[0].role === "system" ? body.messages[0].content : "")

describe("initialize fields", () => {
  test("a preset prompt's append, planModeInstructions and appendSubagentSystemPrompt reach the model and the subagents", async () => {
    const root = project({ "a.txt": "one two three\n" })
    const { env, server } = model(taskTurns("explore", "a.txt has three words.", "Done."))
    const messages = await collect(
      query({
        prompt: "go",
        options: {
          ...base(root, env),
          permissionMode: "bypassPermissions",
          systemPrompt: { type: "preset", preset: "claude_code", append: "APPEND-MARK" },
          planModeInstructions: "PLAN-MARK: list the risks first.",
          appendSubagentSystemPrompt: "SUBAGENT-MARK",
        } as any,
      }),
    )
    expect((resultOf(messages) as any).result).toBe("Done.")
    const main = systemOf(server.requests[0]!.body)
    // anvil's own prompt stays (a preset), with the program's text after it.
    expect(main).toContain("You are in code mode")
    expect(main).toContain("APPEND-MARK")
    expect(main).toContain("While the session is in plan mode")
    expect(main).toContain("PLAN-MARK: list the risks first.")
    expect(main).not.toContain("SUBAGENT-MARK")
    const sub = systemOf(server.requests[1]!.body)
    expect(sub).toContain("read-only exploration subagent")
    expect(sub).toContain("SUBAGENT-MARK")
    expect(messages.some((m: any) => m.type === "system" && m.subtype === "notice")).toBe(false)
  })

  test("the SDK's cache boundary marker is not sent to the model, as a systemPrompt element or a line", async () => {
    for (const systemPrompt of [["STATIC-PART", SYSTEM_PROMPT_DYNAMIC_BOUNDARY, "DYNAMIC-PART"], `STATIC-PART\n${SYSTEM_PROMPT_DYNAMIC_BOUNDARY}\nDYNAMIC-PART`]) {
      const { env, server } = model([{ text: "ok" }])
      await collect(query({ prompt: "hi", options: { ...base(project({}), env), systemPrompt } }))
      const sent = systemOf(server.requests[0]!.body)
      expect(sent).toContain("STATIC-PART")
      expect(sent).toContain("DYNAMIC-PART")
      expect(sent).not.toContain(SYSTEM_PROMPT_DYNAMIC_BOUNDARY)
    }
  })

  test("fields anvil does not act on are named with why: the initialize answer, a system notice, stderr; an agent's unused fields too", async () => {
    const { env } = model([{ text: "ok" }])
    let stderr = ""
    const q = query({
      prompt: "hi",
      options: {
        ...base(project({}), env),
        title: "Release notes",
        toolAliases: { Bash: "mcp__ws__bash" },
        promptSuggestions: true,
        // The SDK's defaults ask for nothing and are not reported.
        agentProgressSummaries: false,
        agents: { reviewer: { description: "Reviews", prompt: "Review.", model: "opus", maxTurns: 3 } },
        stderr: (text: string) => (stderr += text),
      } as any,
    })
    expect((await q.initializationResult() as any).ignored_fields).toEqual(["toolAliases", "title", "promptSuggestions"])
    const messages = await collect(q)
    const notice = messages.find((m: any) => m.type === "system" && m.subtype === "notice") as any
    expect(notice.message).toBe(
      "initialize: not acted on: toolAliases (anvil resolves a tool call by the tool's own, Claude Code's and its aliases' names only); title (anvil's sessions are named by their first prompt); promptSuggestions (anvil sends no prompt suggestions)",
    )
    expect(stderr).toContain(`anvil: ${notice.message}`)
    expect(stderr).toContain("the agent 'reviewer': model, maxTurns not acted on")
    expect(resultOf(messages).subtype).toBe("success")
  })

  test("managedSettings are refused (their restrictions would not hold); a field anvil does not know is named", async () => {
    const root = project({})
    const line = (request: object) => `${JSON.stringify({ type: "control_request", request_id: "r1", request: { subtype: "initialize", ...request } })}\n`
    const refused = await runBinary(["--input-format", "stream-json", "--output-format", "stream-json", "--verbose"], { cwd: root, stdin: line({ managedSettings: { permissions: { deny: ["Bash"] } } }) })
    const answer = JSON.parse(refused.stdout.trim().split("\n")[0]!)
    expect(answer.response.subtype).toBe("error")
    expect(answer.response.error).toContain("managedSettings cannot be applied")
    const unknown = await runBinary(["--input-format", "stream-json", "--output-format", "stream-json", "--verbose"], { cwd: root, stdin: line({ futureOption: { on: true }, promptSuggestions: false }) })
    expect(JSON.parse(unknown.stdout.trim().split("\n")[0]!).response.response.ignored_fields).toEqual(["futureOption"])
    expect(unknown.stderr).toContain("anvil: initialize: not acted on: futureOption (anvil does not know this field)")
  })
})
