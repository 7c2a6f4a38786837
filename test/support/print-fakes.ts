import { afterAll, beforeAll, setDefaultTimeout } from "bun:test"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { anvilBinary } from "./binary.ts"
import { fakeAnthropic } from "./fake-anthropic.ts"
import type { FakeServer, FakeTurn } from "./fake-model.ts"
import { tempDir } from "./harness.ts"

/**
 * For a test file of `anvil -p` against fake model servers on 127.0.0.1: builds the binary first, stops the servers
 * after the file's tests, and gives a HOME whose anvil.json retries at once (so a test waits for no backoff) and a
 * fake Anthropic server with the environment that points the binary at it.
 */
export const printFakes = () => {
  setDefaultTimeout(60_000)
  const servers: Array<FakeServer> = []
  afterAll(() => servers.forEach((s) => s.stop()))
  beforeAll(() => void anvilBinary(), 120_000)
  const home = () => {
    const dir = tempDir("anvil-print-home-")
    mkdirSync(join(dir, ".config/anvil"), { recursive: true })
    writeFileSync(join(dir, ".config/anvil/anvil.json"), JSON.stringify({ model_retry: { base_delay_ms: 1 } }))
    return dir
  }
  const anthropic = (turns: ReadonlyArray<FakeTurn>) => {
    const server = fakeAnthropic(turns)
    servers.push(server)
    return { server, env: { HOME: home(), ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: "sk-test" } }
  }
  return { servers, home, anthropic }
}
