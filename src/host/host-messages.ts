import { isRecord } from "../protocol/is-record.ts"
import { claudeName, toClaudeCall } from "../tool-framework/claude-tools.ts"

/**
 * The SDK host's messages as a program written for Claude Code reads them: tool names and inputs in Claude's
 * terms, denials listed without failing the turn, models named as SDK programs name them.
 */

type Json = Record<string, unknown>

/** A model named as SDK programs name it ("claude-sonnet-4-5") goes to the Anthropic provider. */
export const hostModel = (model: string | undefined): string | undefined =>
  model === undefined ? undefined : model.includes("/") ? model : /^claude-/.test(model) ? `anthropic/${model}` : model

/** Translates one outgoing message to the names the host sees. */
export const forHost = (message: Json): Json => {
  if (message.type === "system" && message.subtype === "init" && Array.isArray(message.tools)) {
    return { ...message, tools: message.tools.map((t) => (typeof t === "string" ? claudeName(t) : t)) }
  }
  if (message.type === "assistant" && isRecord(message.message) && Array.isArray(message.message.content)) {
    const content = message.message.content.map((block) =>
      isRecord(block) && block.type === "tool_use" && typeof block.name === "string" && isRecord(block.input) ? { ...block, ...toClaudeCall(block.name, block.input) } : block,
    )
    return { ...message, message: { ...message.message, content } }
  }
  if (message.type === "result" && message.reason === "permission_denied") {
    // Claude Code lists denials without failing the turn: a program reads them from permission_denials.
    return forHost({ ...message, subtype: "success", is_error: false, reason: "completed_with_denials" })
  }
  if (message.type === "result" && Array.isArray(message.permission_denials)) {
    const denials = message.permission_denials.map((d) => {
      if (!isRecord(d) || typeof d.tool_name !== "string") return d
      const call = toClaudeCall(d.tool_name, isRecord(d.tool_input) ? d.tool_input : {})
      return { ...d, tool_name: call.name, tool_input: isRecord(d.tool_input) ? call.input : d.tool_input }
    })
    return { ...message, permission_denials: denials }
  }
  return message
}
