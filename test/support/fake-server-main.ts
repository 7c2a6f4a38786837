// Runs a fake model server from a script file, for manual trials and demos:
//   bun test/support/fake-server-main.ts openai|anthropic script.json
// Prints the base URL, then serves until killed.
import { fakeAnthropic } from "./fake-anthropic.ts"
import type { FakeTurn } from "./fake-model.ts"
import { fakeOpenAI } from "./fake-openai.ts"

const [kind, file] = process.argv.slice(2)
if (!file || (kind !== "openai" && kind !== "anthropic")) {
  console.error("usage: fake-server-main.ts openai|anthropic script.json")
  process.exit(2)
}
const turns = JSON.parse(await Bun.file(file).text()) as Array<FakeTurn>
const server = kind === "openai" ? fakeOpenAI(turns) : fakeAnthropic(turns)
console.log(server.url)
