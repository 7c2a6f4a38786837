import { afterAll } from "bun:test"
import type { FakeServer, FakeTurn } from "./fake-model.ts"
import { fakeOpenAI } from "./fake-openai.ts"

/**
 * Fake OpenAI servers for `anvil run` through the binary, each stopped when the file's tests end: `openai(turns)`
 * gives the server and the environment that points anvil's model at it.
 */
export const openaiRuns = () => {
  const servers: Array<FakeServer> = []
  afterAll(() => servers.forEach((s) => s.stop()))
  return (turns: ReadonlyArray<FakeTurn>) => {
    const server = fakeOpenAI(turns)
    servers.push(server)
    return { server, env: { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test", ANVIL_MODEL: "openai/gpt-test" } }
  }
}
