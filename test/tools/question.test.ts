import { describe, expect, test } from "bun:test"
import { UserTerminal } from "../../src/terminal/user-terminal.ts"
import { callTool, project } from "../support/harness.ts"

const root = project()
const auth = {
  header: "Auth",
  question: "Which auth method should we use?",
  options: [
    { label: "JWT", description: "Stateless" },
    { label: "Session", description: "Server-side" },
  ],
}
const stores = { header: "DB", question: "Which databases?", multiSelect: true, options: [{ label: "Postgres" }, { label: "SQLite" }, { label: "Redis" }] }

/** Runs the tool with the keys `typed` (see keysOf: "\r" Enter, "\x1b" Esc, "\x7f" Backspace) and collects what it wrote. */
const ask = async (questions: ReadonlyArray<unknown>, typed: string) => {
  const screen: Array<string> = []
  const out = await callTool(root, "question", { questions }, { terminal: UserTerminal.scripted(typed, screen) })
  return { out, screen: screen.join(""), data: out.envelope.data as { status: string; answers: Array<{ answer: string; answers: Array<string>; custom: boolean; header: string; question: string }> } }
}

describe("question", () => {
  test("without a terminal: partial, status no_tty, and the model is told to decide (recommended option marked)", async () => {
    const out = await callTool(root, "question", { questions: [auth] })
    expect(out.envelope.status).toBe("partial")
    const data = out.envelope.data as { status: string; answers: Array<unknown>; questions: Array<{ options: Array<{ label: string }> }> }
    expect(data.status).toBe("no_tty")
    expect(data.answers).toEqual([])
    expect(data.questions[0]!.options[0]!.label).toBe("JWT (Recommended)")
    expect(out.envelope.text).toContain("# AskUserQuestion\n\nStatus: no_tty\nQuestion count: 1")
    expect(out.envelope.text).toContain("Decide yourself")
    expect(out.envelope.text).toContain("1. [Auth] Which auth method should we use?\n   1. JWT (Recommended) — Stateless\n   2. Session — Server-side")
  })

  test("the user picks an option by number; the first option is shown as Recommended", async () => {
    const { out, screen, data } = await ask([auth], "2\r")
    expect(out.envelope.status).toBe("success")
    expect(screen).toContain("[Auth] Which auth method should we use?\r\n  1. JWT (Recommended) — Stateless\r\n  2. Session — Server-side")
    expect(data.status).toBe("answered")
    expect(data.answers).toEqual([{ question: auth.question, header: "Auth", answer: "Session", answers: ["Session"], custom: false }])
    expect(out.envelope.text).toContain("1. [Auth] Which auth method should we use?\n   Answer: Session")
  })

  test("free text is always accepted as the answer (a number out of range too)", async () => {
    const { data, out } = await ask([auth, stores], "use OAuth via the gateway\r7\r")
    expect(data.answers.map((a) => [a.answer, a.custom])).toEqual([
      ["use OAuth via the gateway", true],
      ["7", true],
    ])
    expect(out.envelope.text).toContain("Answer: use OAuth via the gateway (the user's own words)")
  })

  test("multi-select takes several numbers", async () => {
    const { data } = await ask([stores], "1, 3\r")
    expect(data.answers[0]).toEqual(expect.objectContaining({ answer: "Postgres, Redis", answers: ["Postgres", "Redis"], custom: false }))
  })

  test("Backspace edits the reply; an empty Enter asks again", async () => {
    const { data, screen } = await ask([auth], "\r2\x7f1\r")
    expect(screen).toContain("Please type 1-2 or an answer.")
    expect(data.answers[0]!.answer).toBe("JWT")
  })

  test("Esc cancels all questions and drops the answers already given", async () => {
    const { out, data, screen } = await ask([auth, stores], "1\r\x1b")
    expect(screen).toContain("→ JWT")
    expect(out.envelope.status).toBe("partial")
    expect(data.status).toBe("cancelled")
    expect(data.answers).toEqual([])
    expect(out.envelope.text).toContain("The user cancelled the questions (Esc)")
  })

  test("Ctrl+C and the end of input cancel too; Ctrl+D is the end of input, not an interrupt", async () => {
    const interrupted = await ask([auth], "\x03")
    expect(interrupted.data.status).toBe("cancelled")
    expect(interrupted.out.envelope.text).toContain("The user cancelled the questions (Ctrl+C)")
    const ctrlD = await ask([auth], "\x04")
    expect(ctrlD.data.status).toBe("cancelled")
    expect(ctrlD.out.envelope.text).toContain("The user cancelled the questions (input ended)")
    const ended = await ask([auth], "1")
    expect(ended.data.status).toBe("cancelled")
    expect(ended.out.envelope.text).toContain("input ended")
  })

  test("reached as AskUserQuestion and ask_user_question; invalid question lists are INVALID_PARAM", async () => {
    for (const name of ["AskUserQuestion", "ask_user_question"]) {
      expect((await callTool(root, name, { questions: [auth] })).tool?.name).toBe("question")
    }
    expect((await callTool(root, "question", { questions: [] })).envelope.error?.code).toBe("INVALID_PARAM")
    const tooMany = { ...auth, options: Array.from({ length: 10 }, (_, i) => ({ label: `o${i}` })) }
    expect((await callTool(root, "question", { questions: [tooMany] })).envelope.error?.code).toBe("INVALID_PARAM")
    expect((await callTool(root, "question", { questions: [{ question: "q?", options: [{ label: "a" }] }] })).envelope.error?.field_errors?.[0]?.field).toBe("questions.0.header")
  })
})
