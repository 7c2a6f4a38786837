import type { ModelToolSpec } from "../llm/model.ts"

/**
 * The ReAct text protocol (HelloAgents' ReActEngine), for models
 * without native tool calls: the model writes `Thought:` and one `Action:`,
 * anvil runs it and answers with `Observation:`, until a `Final Answer:`.
 */

export const REACT_STOP = ["\nObservation:", "\nObservation："]

/** The tool catalogue and the reply format, appended to the system prompt. */
export const reactInstructions = (tools: ReadonlyArray<ModelToolSpec>): string => {
  const catalogue = tools
    .map((t) => `### ${t.name}\n${firstParagraph(t.description)}\nParameters (JSON Schema): ${JSON.stringify(t.parameters)}`)
    .join("\n\n")
  return `# Tools

You have no function-calling API. Call a tool by writing an Action in the format below; anvil runs it and replies with an Observation.

${catalogue}

# Reply format

Every reply is exactly one of these two shapes.

To use a tool:
Thought: what you know so far and what you will do next
Action: tool_name[{"parameter": "value"}]

When you can answer the user:
Thought: why you are done
Final Answer: the answer for the user

Rules: one Action per reply, its input a JSON object on the same line inside the brackets; then stop and wait for the Observation. Never write an Observation yourself.`
}

const firstParagraph = (text: string) => {
  const trimmed = text.trim()
  const cut = trimmed.indexOf("\n\n")
  const para = cut < 0 ? trimmed : trimmed.slice(0, cut)
  return para.length > 600 ? `${para.slice(0, 600)}…` : para
}

export type ReactStep =
  | { readonly kind: "action"; readonly thought: string; readonly tool: string; readonly input: unknown; readonly inputText: string }
  | { readonly kind: "final"; readonly thought: string; readonly answer: string }

const LABEL = /^[ \t>*_#]*(thought|action input|action|final answer|observation)[ \t*_]*[:：][ \t]*/gim

const stripFences = (s: string) => {
  const t = s.trim()
  const m = /^```[a-zA-Z]*\s*\n?([\s\S]*?)\n?```$/.exec(t)
  return m ? m[1]!.trim() : t
}

/** Parses an action input: JSON when it is JSON (fences allowed), otherwise the text (one-string tools take it). */
export const parseActionInput = (raw: string): unknown => {
  const text = stripFences(raw)
  if (text === "") return {}
  if (/^[{["]/.test(text)) {
    try {
      return JSON.parse(text)
    } catch {
      // Malformed JSON goes to the tool as text; the pipeline answers INVALID_PARAM with the parse error.
      return text
    }
  }
  return text
}

/**
 * Parses one ReAct reply, tolerantly: labels in any case, with markdown bold
 * or a full-width colon; `Action: tool[{...}]` or `Action: tool` followed by
 * `Action Input: {...}`; `Final Answer:` or `Action: Finish[answer]`; anything
 * after a self-written `Observation:` is ignored. A reply with neither an
 * action nor a final answer is taken as the final answer (the model answered
 * in plain text).
 */
export const parseReact = (reply: string): ReactStep => {
  const sections: Array<{ label: string; body: string }> = []
  const matches = [...reply.matchAll(LABEL)]
  for (let i = 0; i < matches.length; i++) {
    const m = matches[i]!
    const start = m.index! + m[0].length
    const end = i + 1 < matches.length ? matches[i + 1]!.index! : reply.length
    sections.push({ label: m[1]!.toLowerCase(), body: reply.slice(start, end).trim() })
  }
  const observation = sections.findIndex((s) => s.label === "observation")
  const kept = observation < 0 ? sections : sections.slice(0, observation)
  const thought = kept
    .filter((s) => s.label === "thought")
    .map((s) => s.body)
    .join("\n")
  const first = kept.find((s) => s.label === "action" || s.label === "final answer")
  if (!first) {
    const before = matches.length > 0 ? reply.slice(0, matches[0]!.index!).trim() : reply.trim()
    return { kind: "final", thought, answer: kept.length === 0 ? reply.trim() : before || thought }
  }
  if (first.label === "final answer") return { kind: "final", thought, answer: first.body }

  const line = first.body.split("\n")[0]!.trim()
  const bracket = /^[`"']?([\w.\-:]+)[`"']?\s*[[(]([\s\S]*)[\])]\s*$/.exec(first.body.trim()) ?? /^[`"']?([\w.\-:]+)[`"']?\s*[[(]([\s\S]*)[\])]\s*$/.exec(line)
  if (bracket) {
    const tool = bracket[1]!
    const inputText = bracket[2]!.trim()
    if (tool.toLowerCase() === "finish") return { kind: "final", thought, answer: inputText }
    return { kind: "action", thought, tool, input: parseActionInput(inputText), inputText }
  }
  const tool = line.replace(/^[`"']+|[`"']+$/g, "")
  const inputSection = kept.find((s) => s.label === "action input")
  const inputText = inputSection?.body ?? first.body.split("\n").slice(1).join("\n").trim()
  if (tool.toLowerCase() === "finish") return { kind: "final", thought, answer: inputText }
  return { kind: "action", thought, tool, input: parseActionInput(inputText), inputText }
}
