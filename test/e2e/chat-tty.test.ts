import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import type { FakeServer } from "../support/fake-model.ts"
import { fakeOpenAI } from "../support/fake-openai.ts"
import { tmuxSession } from "../support/tmux.ts"
import { project } from "../support/harness.ts"

// anvil chat in a real terminal: tmux gives the CLI a TTY, the test types into it and reads the screen.
setDefaultTimeout(90_000)

const MAIN = join(import.meta.dir, "..", "..", "src", "main.ts")
const servers: Array<FakeServer> = []
const { available, tmux, waitFor, kill } = tmuxSession(`anvil-test-${process.pid}`)
const count = (text: string, needle: string) => text.split(needle).length - 1

afterAll(() => {
  kill()
  servers.forEach((s) => s.stop())
})

describe.skipIf(!available)("anvil chat in a terminal (tmux)", () => {
  test("a prompt and a streamed answer; Ctrl-C during a long tool returns to the prompt; an approval prompt with the diff", async () => {
    const root = project({ "a.txt": "alpha\n" })
    const server = fakeOpenAI([
      { text: "Hello from the fake model." },
      { tool_calls: [{ name: "bash", arguments: { command: "sleep 31.5" } }] },
      { text: "Back again." },
      { tool_calls: [{ name: "read", arguments: { path: "a.txt" } }] },
      { tool_calls: [{ name: "edit", arguments: { path: "a.txt", old_string: "alpha", new_string: "beta" } }] },
      { text: "Edited a.txt." },
    ])
    servers.push(server)
    const env = [`PATH=${process.env.PATH}`, `HOME=${root}`, "TERM=xterm-256color", "NO_COLOR=1", `OPENAI_BASE_URL=${server.url}`, "OPENAI_API_KEY=k", "ANVIL_MODEL=openai/fake"]
    const command = ["env", "-i", ...env, process.execPath, MAIN, "chat", "--allow", "bash:sleep *"].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(" ")
    tmux("new-session", "-d", "-s", "chat", "-x", "160", "-y", "50", "-c", root, `${command}; echo "[exited $?]"; sleep 60`)

    await waitFor("› ")
    tmux("send-keys", "-t", "chat", "say hello", "Enter")
    // The status line comes after the answer: waiting for the answer alone raced with it.
    let text = await waitFor("(1 step, 0 tool calls")
    expect(text).toContain("Hello from the fake model.")
    expect(text).toContain("openai/fake, code profile")

    tmux("send-keys", "-t", "chat", "run the long thing", "Enter")
    await waitFor("→ bash sleep 31.5")
    // Let the command start, then interrupt it.
    await Bun.sleep(700)
    tmux("send-keys", "-t", "chat", "C-c")
    text = await waitFor("(cancelled")
    expect(text).toContain("CANCELLED")
    await Bun.sleep(300)
    // The sleep's process group was ended with the tool.
    expect(Bun.spawnSync(["pgrep", "-f", "sleep 31.5"]).exitCode).not.toBe(0)
    // The model saw the cancelled call; a new prompt works.
    tmux("send-keys", "-t", "chat", "are you there?", "Enter")
    await waitFor("Back again.")
    expect(JSON.stringify(server.requests[2]!.body.messages)).toContain("CANCELLED")

    tmux("send-keys", "-t", "chat", "change alpha to beta", "Enter")
    text = await waitFor("Allow edit?")
    expect(text).toContain("-alpha")
    expect(text).toContain("+beta")
    tmux("send-keys", "-t", "chat", "1")
    text = await waitFor("Edited a.txt.")
    expect(readFileSync(join(root, "a.txt"), "utf8")).toBe("beta\n")
    expect(text).toContain("allowed once")

    // Typed text is echoed once (one line editor at a time).
    expect(count(text, "are you there?")).toBe(1)

    tmux("send-keys", "-t", "chat", "C-d")
    text = await waitFor("[exited 0]")
    expect(text).toContain("continue it with 'anvil chat --continue'")
  })
  test("the project's untrusted verify, outside the sandbox, is put to the person once; yes runs it for the session", async () => {
    const root = project({ "anvil.json": JSON.stringify({ verify: "echo ran >> verify.log" }) })
    const server = fakeOpenAI([
      { tool_calls: [{ name: "write", arguments: { path: "src/a.ts", content: "export {}\n" } }] },
      { text: "First done." },
      { tool_calls: [{ name: "write", arguments: { path: "src/b.ts", content: "export {}\n" } }] },
      { text: "Second done." },
    ])
    servers.push(server)
    const env = [`PATH=${process.env.PATH}`, `HOME=${root}`, "TERM=xterm-256color", "NO_COLOR=1", `OPENAI_BASE_URL=${server.url}`, "OPENAI_API_KEY=k", "ANVIL_MODEL=openai/fake"]
    const command = ["env", "-i", ...env, process.execPath, MAIN, "chat", "--yes", "--sandbox", "off"].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(" ")
    tmux("new-session", "-d", "-s", "verify", "-x", "160", "-y", "50", "-c", root, `${command}; echo "[exited $?]"; sleep 60`)
    const { waitFor: waitOn } = tmuxSession(`anvil-test-${process.pid}`, "verify")
    await waitOn("› ")
    tmux("send-keys", "-t", "verify", "write a", "Enter")
    let text = await waitOn("Run the project's verify command outside the sandbox?")
    expect(text).toContain("$ echo ran >> verify.log")
    expect(text).toContain("the command sandbox is off")
    expect(existsSync(join(root, "verify.log"))).toBe(false)
    tmux("send-keys", "-t", "verify", "1")
    text = await waitOn("✓ verify echo ran >> verify.log")
    expect(text).toContain("verify allowed for this session")
    expect(readFileSync(join(root, "verify.log"), "utf8")).toBe("ran\n")
    // The prompt after the turn's summary line (the first "› " is still on the screen above).
    await waitOn(/✓ verify[^\n]*\n\(2 steps[^\n]*\n› /)
    await Bun.sleep(200)
    tmux("send-keys", "-t", "verify", "write b", "Enter")
    text = await waitOn(/✓ verify[\s\S]*✓ verify/)
    expect(count(text, "Run the project's verify command")).toBe(1)
    expect(readFileSync(join(root, "verify.log"), "utf8")).toBe("ran\nran\n")
    tmux("send-keys", "-t", "verify", "C-d")
    await waitOn("[exited 0]")
  })
})
