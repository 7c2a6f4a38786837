import { describe, expect, test } from "bun:test"
import { binaryRepo, binaryTool } from "../support/binary-repo.ts"

/** The call the envelope's text asks for next. */
const nextStep = (text: string): string => text.trimEnd().split("\n").at(-1)!

describe("a field at fault inside a list item or an object is asked for typed as its schema wants it (binary)", () => {
  test("a boolean, a word of a set, a tagged kind: never the text '<correct_value>' where it could not be taken", async () => {
    const r = binaryRepo({ "m.txt": "abc\n" })
    const cases: Array<[string, unknown, string]> = [
      ["multiedit", { path: "m.txt", edits: [{ old_string: "abc", new_string: "x" }, { old_string: "q", new_string: "y", replace_all: "true" }] },
        '* MultiEdit(edits=[{"old_string":"abc","new_string":"x"},{"old_string":"q","new_string":"y","replace_all":true}])'],
      ["todowrite", { todos: [{ content: "a", status: "pending", priority: "urgent" }] }, '* TodoWrite(todos=[{"content":"a","status":"pending","priority":"high"}])'],
      ["question", { questions: [{ question: "q", header: "h", options: [{ label: "a" }], multiSelect: "false" }] },
        '* AskUserQuestion(questions=[{"question":"q","header":"h","options":[{"label":"a"}],"multiSelect":false}])'],
      ["fetch", { url: "http://127.0.0.1:9/", auth: { type: "bearer", token: 5 } }, '* WebFetch(auth={"type":"bearer","token":"<correct_value>"})'],
      ["fetch", { url: "http://127.0.0.1:9/", auth: { type: "cookie" } }, '* WebFetch(auth={"type":"cookie","cookie":"<correct_value>"})'],
    ]
    for (const [tool, params, step] of cases) {
      const { code, envelope } = await binaryTool(r, tool, params)
      expect(code).toBe(1)
      expect(envelope.error.code).toBe("INVALID_PARAM")
      expect(nextStep(envelope.text)).toBe(step)
    }
  })

  test("a word given in another spelling, or the start of only one word, is asked for as that word", async () => {
    const r = binaryRepo({ "m.txt": "abc\n" })
    const cases: Array<[string, unknown, string]> = [
      ["grep", { pattern: "abc", output_mode: "files" }, '* Grep(output_mode="files_with_matches")'],
      ["grep", { pattern: "abc", output_mode: "Files-With-Matches" }, '* Grep(output_mode="files_with_matches")'],
      ["todowrite", { todos: [{ content: "a", status: "in progress" }] }, '* TodoWrite(todos=[{"content":"a","status":"in_progress"}])'],
      ["todowrite", { todos: [{ content: "a", status: "done" }] }, '* TodoWrite(todos=[{"content":"a","status":"pending"}])'],
    ]
    for (const [tool, params, step] of cases) {
      const { envelope } = await binaryTool(r, tool, params)
      expect(envelope.error.code).toBe("INVALID_PARAM")
      expect(nextStep(envelope.text)).toBe(step)
    }
  })

  test("the step followed as given is taken: the multiedit runs", async () => {
    const r = binaryRepo({ "m.txt": "abc abc\n" })
    const wrong = await binaryTool(r, "multiedit", { path: "m.txt", edits: [{ old_string: "abc", new_string: "x", replace_all: "true" }] })
    const step = nextStep(wrong.envelope.text)
    const edits = JSON.parse(step.slice(step.indexOf("edits=") + "edits=".length, -1))
    const right = await binaryTool(r, "multiedit", { path: "m.txt", edits })
    expect(right.envelope.status).toBe("success")
    expect(await Bun.file(`${r.root}/m.txt`).text()).toBe("x x\n")
  })
})
