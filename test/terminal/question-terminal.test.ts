import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { execFileSync } from "node:child_process"
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { project, tempDir } from "../support/harness.ts"

// The real terminal flow: `anvil tool question` (built from source) runs inside
// tmux, keys are typed into the pane, and the envelope it prints is read back.
setDefaultTimeout(60_000)

const repo = join(import.meta.dir, "..", "..")
const bun = join(repo, "node_modules", ".bin", "bun")
const main = join(repo, "src", "main.ts")
const socket = `anvil-test-${process.pid}`
const hasTmux = (() => {
  try {
    execFileSync("tmux", ["-V"], { stdio: "ignore" })
    return true
  } catch {
    return false
  }
})()

const tmux = (...args: ReadonlyArray<string>) => execFileSync("tmux", ["-L", socket, ...args], { encoding: "utf8" })

afterAll(() => {
  if (hasTmux) {
    try {
      execFileSync("tmux", ["-L", socket, "kill-server"], { stdio: "ignore" })
    } catch {
      // no server left
    }
  }
})

const until = async (what: string, check: () => boolean, ms = 20_000) => {
  const end = Date.now() + ms
  while (Date.now() < end) {
    if (check()) return
    await Bun.sleep(50)
  }
  throw new Error(`timed out waiting for ${what}`)
}

let sessions = 0
/** Starts the CLI in a fresh tmux window; returns helpers to type and to read the screen and the result. */
const start = (params: unknown) => {
  // A session that outlives the others keeps the tmux server up: when the last session closes the server exits,
  // and a new session started while it is exiting fails with "server exited unexpectedly".
  if (sessions === 0) tmux("new-session", "-d", "-s", "keep", "sleep", "600")
  const name = `q${++sessions}`
  const dir = tempDir("anvil-tty-")
  const root = project()
  writeFileSync(join(dir, "params.json"), JSON.stringify(params))
  const out = join(dir, "out.json")
  const script = `cd '${root}' && '${bun}' '${main}' tool question "$(cat '${join(dir, "params.json")}')" > '${out}.tmp'; echo $? > '${out}.code'; mv '${out}.tmp' '${out}'; sleep 60`
  tmux("new-session", "-d", "-s", name, "-x", "160", "-y", "50", "sh", "-c", script)
  const screen = () => tmux("capture-pane", "-p", "-t", name)
  return {
    screen,
    /** Waits until the pane shows `text`, then types `keys` (tmux key names: "Enter", "Escape", "BSpace", or literal text). */
    type: async (waitFor: string, ...keys: ReadonlyArray<string>) => {
      await until(`"${waitFor}" on screen`, () => screen().includes(waitFor))
      for (const k of keys) tmux("send-keys", "-t", name, ...(k === "Enter" || k === "Escape" || k === "BSpace" ? [k] : ["-l", k]))
    },
    result: async () => {
      await until("the envelope", () => existsSync(out))
      const envelope = JSON.parse(readFileSync(out, "utf8")) as { status: string; data: { status: string; answers: Array<{ answer: string; custom: boolean }> }; text: string }
      const code = Number(readFileSync(`${out}.code`, "utf8").trim())
      tmux("kill-session", "-t", name)
      return { envelope, code }
    },
  }
}

const questions = {
  questions: [
    { header: "Auth", question: "Which auth method should we use?", options: [{ label: "JWT", description: "Stateless" }, { label: "Session", description: "Server-side" }] },
    { header: "DB", question: "Which databases?", multiSelect: true, options: [{ label: "Postgres" }, { label: "SQLite" }, { label: "Redis" }] },
  ],
}

describe.skipIf(!hasTmux)("question in a real terminal (tmux)", () => {
  test("numbers pick options (several for multi-select); the envelope goes to stdout, the prompt to the terminal", async () => {
    const run = start(questions)
    await run.type("1. JWT (Recommended) — Stateless", "2", "Enter")
    await run.type("(2/2) [DB] Which databases?", "1,3", "Enter")
    const { envelope, code } = await run.result()
    expect(code).toBe(0)
    expect(envelope.status).toBe("success")
    expect(envelope.data.status).toBe("answered")
    expect(envelope.data.answers.map((a) => a.answer)).toEqual(["Session", "Postgres, Redis"])
  })

  test("free text with Backspace editing becomes the answer", async () => {
    const run = start({ questions: [questions.questions[0]] })
    await run.type("Esc cancels all questions", "use OAuthh", "BSpace", " please", "Enter")
    const { envelope } = await run.result()
    expect(envelope.data.answers).toEqual([expect.objectContaining({ answer: "use OAuth please", custom: true })])
  })

  test("Esc cancels everything, dropping the answer already given", async () => {
    const run = start(questions)
    await run.type("1. JWT (Recommended)", "1", "Enter")
    await run.type("→ JWT", "Escape")
    const { envelope, code } = await run.result()
    expect(code).toBe(0)
    expect(envelope.status).toBe("partial")
    expect(envelope.data.status).toBe("cancelled")
    expect(envelope.data.answers).toEqual([])
    expect(envelope.text).toContain("cancelled the questions (Esc)")
  })
})
