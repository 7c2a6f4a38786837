/**
 * The field expectations of Claude Code's `-p --output-format stream-json /
 * json` messages (the Agent SDK's SDKMessage types: SDKSystemMessage init,
 * SDKAssistantMessage, SDKUserMessage with tool_result blocks,
 * SDKResultMessage), written as checks. Each returns the problems found, so a
 * failing test names every field at once.
 */

type Problems = Array<string>

const isObj = (v: unknown): v is Record<string, any> => typeof v === "object" && v !== null && !Array.isArray(v)

const need = (problems: Problems, where: string, obj: Record<string, any>, key: string, kind: "string" | "number" | "boolean" | "array" | "object" | "string|null") => {
  const v = obj[key]
  const ok =
    kind === "array" ? Array.isArray(v) : kind === "object" ? isObj(v) : kind === "string|null" ? v === null || typeof v === "string" : typeof v === kind
  if (!ok) problems.push(`${where}.${key}: expected ${kind}, got ${JSON.stringify(v)}`)
}

const common = (p: Problems, where: string, m: Record<string, any>) => {
  need(p, where, m, "session_id", "string")
  need(p, where, m, "uuid", "string")
  // anvil's extra: every message is timestamped.
  if (typeof m.timestamp !== "string" || Number.isNaN(Date.parse(m.timestamp))) p.push(`${where}.timestamp: not an ISO time (${m.timestamp})`)
}

const usage = (p: Problems, where: string, u: unknown) => {
  if (!isObj(u)) return void p.push(`${where}: expected an object`)
  for (const k of ["input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"]) need(p, where, u, k, "number")
}

export const initProblems = (m: Record<string, any>): Problems => {
  const p: Problems = []
  if (m.type !== "system" || m.subtype !== "init") p.push(`init: type/subtype ${m.type}/${m.subtype}`)
  common(p, "init", m)
  for (const k of ["cwd", "model", "permissionMode", "apiKeySource", "output_style", "claude_code_version"]) need(p, "init", m, k, "string")
  for (const k of ["tools", "mcp_servers", "slash_commands", "skills", "plugins"]) need(p, "init", m, k, "array")
  if (Array.isArray(m.tools) && !m.tools.every((t: unknown) => typeof t === "string")) p.push("init.tools: not all strings")
  return p
}

export const assistantProblems = (m: Record<string, any>): Problems => {
  const p: Problems = []
  common(p, "assistant", m)
  need(p, "assistant", m, "parent_tool_use_id", "string|null")
  const msg = m.message
  if (!isObj(msg)) return [...p, "assistant.message: expected an object"]
  if (msg.role !== "assistant") p.push(`assistant.message.role: ${msg.role}`)
  if (msg.type !== "message") p.push(`assistant.message.type: ${msg.type}`)
  need(p, "assistant.message", msg, "id", "string")
  need(p, "assistant.message", msg, "model", "string")
  need(p, "assistant.message", msg, "content", "array")
  usage(p, "assistant.message.usage", msg.usage)
  for (const [i, b] of (Array.isArray(msg.content) ? msg.content : []).entries()) {
    const w = `assistant.message.content[${i}]`
    if (b.type === "text") need(p, w, b, "text", "string")
    else if (b.type === "tool_use") {
      need(p, w, b, "id", "string")
      need(p, w, b, "name", "string")
      need(p, w, b, "input", "object")
    } else p.push(`${w}.type: ${b.type}`)
  }
  return p
}

export const userProblems = (m: Record<string, any>): Problems => {
  const p: Problems = []
  common(p, "user", m)
  need(p, "user", m, "parent_tool_use_id", "string|null")
  const msg = m.message
  if (!isObj(msg) || msg.role !== "user" || !Array.isArray(msg.content)) return [...p, "user.message: expected {role: user, content: [...]}"]
  for (const [i, b] of msg.content.entries()) {
    const w = `user.message.content[${i}]`
    if (b.type !== "tool_result") p.push(`${w}.type: ${b.type}`)
    need(p, w, b, "tool_use_id", "string")
    if (typeof b.content !== "string" && !Array.isArray(b.content)) p.push(`${w}.content: expected string or blocks`)
    if (b.is_error !== undefined) need(p, w, b, "is_error", "boolean")
  }
  return p
}

const SUBTYPES = ["success", "error_max_turns", "error_during_execution", "error_max_budget_usd", "error_max_structured_output_retries"]

export const resultProblems = (m: Record<string, any>): Problems => {
  const p: Problems = []
  if (m.type !== "result") p.push(`result.type: ${m.type}`)
  if (!SUBTYPES.includes(m.subtype)) p.push(`result.subtype: ${m.subtype}`)
  common(p, "result", m)
  need(p, "result", m, "is_error", "boolean")
  for (const k of ["duration_ms", "duration_api_ms", "num_turns", "total_cost_usd"]) need(p, "result", m, k, "number")
  need(p, "result", m, "permission_denials", "array")
  need(p, "result", m, "modelUsage", "object")
  usage(p, "result.usage", m.usage)
  if (m.subtype === "success") {
    need(p, "result", m, "result", "string")
    // A turn the API ended is a success subtype with is_error true and the status in api_error_status.
    if (m.is_error !== false && !("api_error_status" in m)) p.push("result.is_error: a success is not an error, but for an API error")
  } else {
    need(p, "result", m, "errors", "array")
    if (m.is_error !== true) p.push("result.is_error: an error subtype must be is_error true")
  }
  for (const [i, d] of (Array.isArray(m.permission_denials) ? m.permission_denials : []).entries()) {
    need(p, `result.permission_denials[${i}]`, d, "tool_name", "string")
    need(p, `result.permission_denials[${i}]`, d, "tool_use_id", "string")
    need(p, `result.permission_denials[${i}]`, d, "tool_input", "object")
  }
  return p
}

/**
 * Checks a whole stream-json output: it starts with system/init and ends with
 * a result, one session id throughout, every tool_result answers a tool_use
 * seen before it, and every message of the four kinds has its fields.
 */
export const streamProblems = (messages: ReadonlyArray<Record<string, any>>): Problems => {
  const p: Problems = []
  if (messages[0]?.type !== "system" || messages[0]?.subtype !== "init") p.push("the first message is not system/init")
  if (messages.at(-1)?.type !== "result") p.push("the last message is not a result")
  const sessions = new Set(messages.map((m) => m.session_id))
  if (sessions.size !== 1) p.push(`session ids differ: ${[...sessions].join(", ")}`)
  const uses = new Set<string>()
  for (const m of messages) {
    if (m.type === "system" && m.subtype === "init") p.push(...initProblems(m))
    else if (m.type === "system") common(p, `system/${m.subtype}`, m)
    else if (m.type === "assistant") {
      p.push(...assistantProblems(m))
      for (const b of m.message?.content ?? []) if (b.type === "tool_use") uses.add(b.id)
    } else if (m.type === "user") {
      p.push(...userProblems(m))
      for (const b of m.message?.content ?? []) if (!uses.has(b.tool_use_id)) p.push(`tool_result ${b.tool_use_id} answers no earlier tool_use`)
    } else if (m.type === "result") p.push(...resultProblems(m))
    else p.push(`unexpected message type ${m.type}`)
  }
  return p
}
