import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { anvilBinary } from "../support/binary.ts"
import type { FakeServer } from "../support/fake-model.ts"
import { fakeOpenAI } from "../support/fake-openai.ts"
import { tmuxSession } from "../support/tmux.ts"
import { project, tempDir } from "../support/harness.ts"

// The compiled chat in a real terminal (tmux): pasted and continued lines, local /commands, a denial with a
// reason, Markdown on the screen.
setDefaultTimeout(90_000)

const servers: Array<FakeServer> = []
const { available, tmux, waitFor, kill } = tmuxSession(`anvil-chat-input-${process.pid}`)

beforeAll(() => void anvilBinary(), 120_000)
afterAll(() => {
  kill()
  servers.forEach((s) => s.stop())
})

describe.skipIf(!available)("anvil chat input in a terminal (tmux)", () => {
  test("a bracketed paste and \\-continued lines are one prompt; unknown /commands stay local; deny with a reason; Markdown rendered", async () => {
    const root = project({ "a.txt": "alpha\n" })
    const server = fakeOpenAI([
      { text: "# Pasted\n- got **three** lines with `code`\n" },
      { text: "Two lines." },
      { tool_calls: [{ name: "edit", arguments: { path: "a.txt", old_string: "alpha", new_string: "beta" }, id: "e1" }] },
      { text: "Understood." },
      { text: "Raw paste read." },
    ])
    servers.push(server)
    // Colour on (no NO_COLOR): the Markdown is rendered; the captured screen shows the text without its markers.
    const env = [`PATH=${process.env.PATH}`, `HOME=${root}`, "TERM=xterm-256color", `OPENAI_BASE_URL=${server.url}`, "OPENAI_API_KEY=k", "ANVIL_MODEL=openai/fake"]
    const command = ["env", "-i", ...env, anvilBinary(), "chat"].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(" ")
    tmux("new-session", "-d", "-s", "chat", "-x", "160", "-y", "50", "-c", root, `${command}; echo "[exited $?]"; sleep 60`)
    await waitFor("› ")

    // A paste of three lines (tmux sends it bracketed, as a terminal does), then Enter.
    const paste = join(tempDir(), "paste.txt")
    writeFileSync(paste, "first pasted line\nsecond pasted line\nthird pasted line")
    tmux("load-buffer", paste)
    tmux("paste-buffer", "-p", "-t", "chat")
    await waitFor("Enter sends it")
    expect(server.requests.length).toBe(0)
    tmux("send-keys", "-t", "chat", "Enter")
    let text = await waitFor("got three lines with code")
    expect(server.requests[0]!.body.messages.at(-1).content).toBe("first pasted line\nsecond pasted line\nthird pasted line")
    expect(text).not.toContain("# Pasted")
    expect(text).toContain("• got three lines")

    // A line ended with \ goes on on the next.
    tmux("send-keys", "-t", "chat", "one \\", "Enter")
    await waitFor("… \n")
    tmux("send-keys", "-t", "chat", "two", "Enter")
    await waitFor("Two lines.")
    expect(server.requests[1]!.body.messages.at(-1).content).toBe("one \ntwo")

    // An unknown command is answered here, not sent.
    tmux("send-keys", "-t", "chat", "/frobnicate now", "Enter")
    text = await waitFor("Unknown command /frobnicate.")
    expect(text).toContain("/help, /tools, /session, /exit")
    expect(server.requests.length).toBe(2)

    // Deny with a reason: the model is told why.
    tmux("send-keys", "-t", "chat", "change alpha", "Enter")
    await waitFor("5 no, and tell it why")
    tmux("send-keys", "-t", "chat", "5")
    await waitFor("Why?")
    tmux("send-keys", "-t", "chat", "keep alpha as it is", "Enter")
    await waitFor("Understood.")
    const toolMessage = server.requests[3]!.body.messages.find((m: any) => m.role === "tool")
    expect(toolMessage.content).toContain("The user denied this call and said: keep alpha as it is")
    expect(readFileSync(join(root, "a.txt"), "utf8")).toBe("alpha\n")

    // A terminal that does not bracket pastes: lines arriving together are held for the next Enter too.
    const raw = join(tempDir(), "raw.txt")
    writeFileSync(raw, "raw one\nraw two\n")
    tmux("load-buffer", raw)
    tmux("paste-buffer", "-t", "chat")
    await waitFor(/raw two\n[^]*Enter sends it/)
    tmux("send-keys", "-t", "chat", "Enter")
    await waitFor("Raw paste read.")
    expect(server.requests[4]!.body.messages.at(-1).content).toBe("raw one\nraw two")

    tmux("send-keys", "-t", "chat", "/exit", "Enter")
    await waitFor("[exited 0]")
  })
})
