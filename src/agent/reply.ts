import type { ModelToolCall, ModelTurn } from "../llm/model.ts"
import { cutAtObservation, parseArguments, uniqueCallIds } from "./call-parsing.ts"
import type { AgentEvent } from "./events.ts"
import type { AssistantItem } from "./history.ts"
import { parseReact } from "./react.ts"

/** One model reply as the loop uses it: the calls to run (parameters decoded), the history item, the front ends' event. */
export interface Reply {
  readonly calls: Array<{ readonly call: ModelToolCall; readonly params: unknown }>
  readonly assistant: AssistantItem
  readonly event: Extract<AgentEvent, { type: "assistant" }>
  /** The final answer, when the reply calls no tool. */
  readonly answer?: string
}

/**
 * Reads the reply of step `step`: a ReAct action or final answer (the text is cut at any "Observation:" the model
 * wrote itself), or native tool calls; call ids already `taken` in the conversation are made unique. `extra` marks
 * the event (a reply cut at the output token limit, the fallback model that wrote it).
 */
export const readReply = (turn: ModelTurn, react: boolean, step: number, taken: Set<string>, extra: { readonly cut_off?: boolean; readonly model?: string }): Reply => {
  const usage = turn.usage
  if (react) {
    const text = cutAtObservation(turn.text)
    const parsed = parseReact(text)
    if (parsed.kind === "action") {
      const [call] = uniqueCallIds([{ id: `react_${step}`, name: parsed.tool, arguments: parsed.inputText }], taken) as [ModelToolCall]
      return {
        calls: [{ call, params: parsed.input }],
        assistant: { type: "assistant", text, tool_calls: [call], usage },
        event: { type: "assistant", text, tool_calls: [call], usage, ...extra, react: { thought: parsed.thought, action: parsed.tool, action_input: parsed.inputText } },
      }
    }
    return {
      calls: [],
      answer: parsed.answer,
      assistant: { type: "assistant", text, tool_calls: [], usage },
      event: { type: "assistant", text, tool_calls: [], usage, ...extra, react: { thought: parsed.thought, final_answer: parsed.answer } },
    }
  }
  const toolCalls = uniqueCallIds(turn.toolCalls, taken)
  const thought = turn.thinking.length > 0 ? { thinking: turn.thinking } : {}
  return {
    calls: toolCalls.map((call) => ({ call, params: parseArguments(call.arguments) })),
    ...(toolCalls.length === 0 ? { answer: turn.text } : {}),
    assistant: { type: "assistant", text: turn.text, tool_calls: toolCalls, usage, ...thought },
    event: { type: "assistant", text: turn.text, tool_calls: toolCalls, usage, ...thought, ...extra },
  }
}
