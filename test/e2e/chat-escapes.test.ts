import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { existsSync } from "node:fs"
import { join } from "node:path"
import type { FakeServer } from "../support/fake-model.ts"
import { fakeOpenAI } from "../support/fake-openai.ts"
import { anvilBinary } from "../support/binary.ts"
import { tmuxSession } from "../support/tmux.ts"
import { project } from "../support/harness.ts"
import { visibleText } from "../../src/terminal/visible-text.ts"

// The compiled binary's chat in a real terminal (tmux): what the model, a tool or a file says is shown, never acted
// on by the terminal, so an approval prompt shows the command that runs.
setDefaultTimeout(120_000)

const servers: Array<FakeServer> = []
const { available, tmux, waitFor, kill } = tmuxSession(`anvil-escapes-${process.pid}`)

const notice = tmuxSession(`anvil-notice-${process.pid}`, "notice")

afterAll(() => {
  kill()
  notice.kill()
  servers.forEach((s) => s.stop())
})

describe("terminal text from the model and tools", () => {
  test("control characters, C1 controls and bidirectional overrides become visible stand-ins; plain text is untouched", () => {
    expect(visibleText("rm -rf ~ \x1b[2K\r\x1b[1A$ echo hi")).toBe("rm -rf ~ ␛[2K␍␛[1A$ echo hi")
    expect(visibleText("a\r\nb\tc\bd\x7f\x00")).toBe("a\nb\tc␈d␡␀")
    expect(visibleText("x\u009b31m \u202Eevil\u2066")).toBe("x<U+009B>31m <U+202E>evil<U+2066>")
    const plain = "plain ‘text’ — café 日本 🙂\n\tindented"
    expect(visibleText(plain)).toBe(plain)
    // No state kept between calls (a global pattern's test() would remember where it stopped).
    expect([visibleText("\x1bA"), visibleText("\x1bA")]).toEqual(["␛A", "␛A"])
  })

  test.skipIf(!available)("through the binary: a command that would redraw the approval prompt is shown as it runs; answers and results too", async () => {
    const root = project({ "notes.txt": "before\x1b]0;pwned-title\x07\x1b[2Kafter\n" })
    const canary = join(root, "canary")
    const hidden = `touch ${canary} \x1b[2K\r\x1b[1A\x1b[2K$ echo hello world`
    const server = fakeOpenAI([
      { tool_calls: [{ name: "read", arguments: { path: "notes.txt" } }] },
      { tool_calls: [{ name: "bash", arguments: { command: hidden, sandbox: false } }] },
      { text: "All \x1b[31mdone\x1b[0m\r overwritten" },
    ])
    servers.push(server)
    const env = [`PATH=${process.env.PATH}`, `HOME=${root}`, "TERM=xterm-256color", "NO_COLOR=1", `OPENAI_BASE_URL=${server.url}`, "OPENAI_API_KEY=k", "ANVIL_MODEL=openai/fake"]
    const command = ["env", "-i", ...env, anvilBinary(), "chat"].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(" ")
    tmux("new-session", "-d", "-s", "chat", "-x", "200", "-y", "50", "-c", root, `${command}; echo "[exited $?]"; sleep 60`)
    await waitFor("› ")
    tmux("send-keys", "-t", "chat", "go", "Enter")
    let text = await waitFor("Allow bash outside the sandbox?")
    // The file's bytes under the read's summary, and the whole command, in the call line and in the question.
    expect(text).toContain("before␛]0;pwned-title␇␛[2Kafter")
    expect(text).toContain(`→ bash touch ${canary} ␛[2K␍␛[1A␛[2K$ echo hello world`)
    expect(text).toContain(`$ touch ${canary} ␛[2K␍␛[1A␛[2K$ echo hello world`)
    tmux("send-keys", "-t", "chat", "4")
    text = await waitFor("overwritten")
    expect(text).toContain("All ␛[31mdone␛[0m␍ overwritten")
    expect(existsSync(canary)).toBe(false)
  })

  test.skipIf(!available)("through the binary: a notice on stderr quotes a repository's anvil.json key as written, not as a terminal reads it", async () => {
    const root = project({ "a.txt": "a\n", "anvil.json": '{"\\u001b[2J\\u001b[Hodd\\u001b]0;title\\u0007": 1}' })
    const command = ["env", "-i", `PATH=${process.env.PATH}`, `HOME=${root}`, "TERM=xterm-256color", anvilBinary(), "tool", "read", "--path", "a.txt"]
      .map((a) => `'${a.replace(/'/g, "'\\''")}'`)
      .join(" ")
    notice.tmux("new-session", "-d", "-s", "notice", "-x", "200", "-y", "50", "-c", root, `echo MARK-BEFORE; ${command} >/dev/null; echo "[exited $?]"; sleep 60`)
    const pane = await notice.waitFor("[exited")
    // The clear-screen did not wipe what was there before; the key is shown as written.
    expect(pane).toContain("MARK-BEFORE")
    expect(pane).toContain("unknown key '␛[2J␛[Hodd␛]0;title␇'")
  })
})
