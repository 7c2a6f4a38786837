import type { SDKMessage } from "@anthropic-ai/claude-agent-sdk"
import { anvilBinary } from "../support/binary.ts"
import type { FakeServer, FakeTurn } from "../support/fake-model.ts"
import { fakeOpenAI } from "../support/fake-openai.ts"
import { project } from "../support/harness.ts"

// What the tests that drive the compiled anvil through the Claude Agent SDK share: a fake OpenAI-compatible model
// on 127.0.0.1 per test, the options that point the SDK at anvil, and the messages collected.

const servers: Array<FakeServer> = []

/** Stops every fake model server started (for afterAll). */
export const stopServers = () => servers.splice(0).forEach((s) => s.stop())

/** A fake model answering `turns`, and the environment that points anvil at it (a fresh HOME). */
export const model = (turns: ReadonlyArray<FakeTurn>) => {
  const server = fakeOpenAI(turns)
  servers.push(server)
  return { server, env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: project({}), OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test" } }
}

export const collect = async (messages: AsyncIterable<SDKMessage>): Promise<Array<SDKMessage>> => {
  const out: Array<SDKMessage> = []
  for await (const m of messages) out.push(m)
  return out
}

export const resultOf = (messages: ReadonlyArray<SDKMessage>) => messages.find((m) => m.type === "result") as Extract<SDKMessage, { type: "result" }>

/** The options every query gives: anvil as the executable, the project, the fake model. */
export const base = (root: string, env: Record<string, string>) => ({
  pathToClaudeCodeExecutable: anvilBinary(),
  cwd: root,
  env,
  model: "openai/gpt-test",
})

/** The model's turns of a Task call to `agent` (id t1) on a.txt: the call, the subagent's answer, the final answer. */
export const taskTurns = (agent: string, subagentAnswer: string, answer: string): Array<FakeTurn> => [
  { tool_calls: [{ name: "Task", arguments: { subagent_type: agent, description: "look", prompt: "Count the words in a.txt" }, id: "t1" }] },
  { text: subagentAnswer },
  { text: answer },
]
