import { shownValue } from "../protocol/shown-value.ts"
import { sessionIdProblem } from "../agent/session-id.ts"
import { readFileSync } from "node:fs"
import type { ThinkingRequest } from "../llm/model.ts"
import { thinkingFlags } from "./thinking-flags.ts"
import { parseAllowRule, type AllowRule } from "../permission/allow-rule.ts"
import { anvilName } from "../tool-framework/claude-tools.ts"
import { readSettingsFlag } from "./settings-flag.ts"
import { limitFlags, type LimitFlags } from "./limit-flags.ts"
import { REFUSED, SWITCHES, VALUED } from "./flag-table.ts"
import { CACHE_BOUNDARY, withoutCacheBoundary } from "./initialize-fields.ts"

/**
 * Claude Code's print-mode command line, as the Claude Agent SDK (and scripts
 * written for `claude -p`) pass it. Every flag is either honoured or accepted
 * and named in `ignored`, which the host reports once: an SDK that passes a
 * newer flag never makes anvil exit.
 */

/** Claude Code's permission modes. */
export type PermissionMode = "default" | "acceptEdits" | "plan" | "bypassPermissions" | "dontAsk"
export const PERMISSION_MODES: ReadonlyArray<PermissionMode> = ["default", "acceptEdits", "plan", "bypassPermissions", "dontAsk"]

export interface PrintFlags {
  readonly outputFormat: "text" | "json" | "stream-json"
  readonly inputFormat: "text" | "stream-json"
  readonly model?: string
  readonly maxTurns?: number
  readonly permissionMode: PermissionMode
  /** `--permission-prompt-tool stdio`: "ask" goes to the host as a can_use_tool request. */
  readonly promptToolStdio: boolean
  readonly allowed: ReadonlyArray<AllowRule>
  readonly disallowed: ReadonlyArray<AllowRule>
  readonly systemPrompt?: string
  readonly appendSystemPrompt?: string
  readonly resume?: string
  readonly continueLast: boolean
  readonly forkSession: boolean
  readonly sessionId?: string
  readonly includePartialMessages: boolean
  /** `--tools`: the built-in tools the session has, as anvil names (`--tools=default` or none: all of them). */
  readonly tools?: ReadonlyArray<string>
  /** `--mcp-config` values as given: JSON text (`{"mcpServers": …}`, what the SDK passes) or a file's path. */
  readonly mcpConfigs: ReadonlyArray<string>
  /** `--setting-sources` (user, project, local): without "project", CLAUDE.md and `.claude/agents` are not read. Undefined: all of them. */
  readonly settingSources?: ReadonlyArray<string>
  /** `--plugin-dir` (and `--plugin-dir-no-mcp`) folders: the program's plugins for this session. */
  readonly pluginDirs: ReadonlyArray<string>
  /** `--agents` values as given (JSON text): the program's subagents. */
  readonly agents: ReadonlyArray<string>
  /**
   * Sandboxed bash calls run without asking: only when `--settings` says `sandbox.enabled` and
   * `sandbox.autoAllowBashIfSandboxed` (Claude Code's default is to ask, as for any command).
   */
  readonly autoAllowSandboxed: boolean
  /** `--max-thinking-tokens`, `--thinking`: extended thinking from the first request (see thinking-flags.ts). */
  readonly thinking?: ThinkingRequest
  /** `--json-schema`: the JSON Schema the final answer must match (structured output). */
  readonly jsonSchema?: Readonly<Record<string, unknown>>
  /** `--strict-mcp-config`: only the `--mcp-config` servers (and the program's in-process ones) start. */
  readonly strictMcpConfig: boolean
  /** False with `--no-session-persistence`: the session's file is not kept, so it cannot be resumed. */
  readonly persistSession: boolean
  /** `--add-dir`, `--fallback-model`, `--max-budget-usd` (see limit-flags.ts). */
  readonly limits: Omit<LimitFlags, "errors">
  /** The prompt given as an argument (`-p "…"`), when any. */
  readonly prompt: string
  readonly debug?: { readonly file?: string } // --debug (a protocol log on stderr) or --debug-file PATH: debug-log.ts
  /** Flags accepted but not acted on, as given. */
  readonly ignored: ReadonlyArray<string>
  /** Values of honoured flags that cannot be used (`--output-format yaml`): usage errors, never guessed at. */
  readonly errors: ReadonlyArray<string>
}

/** Splits a tool list as Claude Code takes it: commas or spaces, but not inside `Bash(…)`. */
export const splitToolList = (text: string): Array<string> => {
  const out: Array<string> = []
  let depth = 0
  let current = ""
  for (const ch of text) {
    if (ch === "(") depth++
    if (ch === ")") depth = Math.max(0, depth - 1)
    if (depth === 0 && (ch === "," || ch === " ")) {
      if (current.trim() !== "") out.push(current.trim())
      current = ""
    } else current += ch
  }
  if (current.trim() !== "") out.push(current.trim())
  return out
}

/**
 * A Claude permission rule (`Bash`, `Bash(git status:*)`, `Read(./src/**)`,
 * `mcp__server__tool`) as anvil's rule: the tool renamed, Claude's `:*`
 * prefix marker made a trailing wildcard.
 */
export const claudeRule = (text: string): AllowRule | undefined => {
  const m = /^([\w.-]+)(?:\((.*)\))?$/.exec(text.trim())
  if (!m) return undefined
  const tool = anvilName(m[1]!)
  // `./x` stays: it anchors a path at the root (Claude Code reads it from the working folder), see rootGlob.
  const pattern = m[2]?.replace(/:\*$/, "*")
  if (pattern === undefined || pattern === "" || pattern === "*") return parseAllowRule(tool)
  return { tool: tool.toLowerCase(), pattern }
}

/** Bash brings the tools that read and stop its background commands (a program naming Bash means them too). */
const withCompanions = (tools: ReadonlyArray<string>): Array<string> =>
  tools.includes("bash") ? [...new Set([...tools, "bash_output", "bash_stop"])] : [...tools]

/** Whether argv looks like a Claude print-mode invocation (no anvil subcommand). */
export const isPrintInvocation = (argv: ReadonlyArray<string>): boolean =>
  argv.some((a) => a === "-p" || a === "--print" || a.startsWith("--output-format") || a.startsWith("--input-format"))

/** A refused flag's error: the SDK option it stands for (the reason's `option:` prefix), why, and what to do. */
const refusal = (flag: string, why: string): string => {
  const m = /^(\w+): (.*)$/s.exec(why)
  return m ? `${flag} (the Agent SDK's ${m[1]} option) is not supported: ${m[2]}` : `${flag} is not supported: ${why}`
}

export const parsePrintFlags = (argv: ReadonlyArray<string>): PrintFlags => {
  const values = new Map<string, Array<string>>()
  const switches = new Set<string>()
  const ignored: Array<string> = []
  const words: Array<string> = []
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!
    if (!a.startsWith("-") || a === "-") {
      words.push(a)
      continue
    }
    const eq = a.indexOf("=")
    const name = eq > 0 ? a.slice(0, eq) : a
    if (VALUED.has(name)) {
      const value = eq > 0 ? a.slice(eq + 1) : (argv[++i] ?? "")
      values.set(name, [...(values.get(name) ?? []), value])
    } else if (SWITCHES.has(name)) {
      switches.add(name)
    } else {
      // An unknown flag: its value, if it has one, cannot be told from a prompt word; the flag alone is reported.
      ignored.push(name)
    }
  }
  const one = (...names: Array<string>) => names.flatMap((n) => values.get(n) ?? []).at(-1)
  const list = (...names: Array<string>) => names.flatMap((n) => values.get(n) ?? []).flatMap(splitToolList)
  const rules = (items: ReadonlyArray<string>) => items.flatMap((t) => claudeRule(t) ?? [])
  const format = one("--output-format")
  const input = one("--input-format")
  const modeText = one("--permission-mode")
  const mode: PermissionMode = switches.has("--dangerously-skip-permissions")
    ? "bypassPermissions"
    : PERMISSION_MODES.includes(modeText as PermissionMode)
      ? (modeText as PermissionMode)
      : "default"
  const toolsText = one("--tools")
  const errors: Array<string> = [...values.keys(), ...switches].flatMap((flag) => (REFUSED.has(flag) ? [refusal(flag, REFUSED.get(flag)!)] : []))
  const promptTool = one("--permission-prompt-tool")
  if (promptTool !== undefined && promptTool !== "stdio") {
    errors.push(`--permission-prompt-tool ${promptTool} is not supported: permissionPromptToolName (an MCP tool that answers permission questions) is not; use canUseTool (--permission-prompt-tool stdio)`)
  }
  if (switches.has("--no-session-persistence") && (values.has("--resume") || values.has("-r") || switches.has("--continue") || switches.has("-c"))) {
    errors.push("--no-session-persistence cannot be used with --resume or --continue: the resumed session's file is kept and written to")
  }
  // What a program may send in initialize instead: anvil reads disallowedTools there, not settings.
  if (list("--initialize-fields").includes("settings")) errors.push("--initialize-fields settings is not supported: pass settings on the command line (--settings), as the SDK does by default")
  const choose = <T extends string>(flag: string, text: string | undefined, choices: ReadonlyArray<T>): void => {
    if (text !== undefined && !choices.includes(text as T)) errors.push(`${flag} is ${choices.join(", ")}; not ${shownValue(text)}`)
  }
  choose("--output-format", format, ["text", "json", "stream-json"])
  choose("--input-format", input, ["text", "stream-json"])
  choose("--permission-mode", modeText, PERMISSION_MODES)
  const turnsText = one("--max-turns")
  const maxTurns = Number(turnsText)
  if (turnsText !== undefined && !(Number.isInteger(maxTurns) && maxTurns > 0)) errors.push(`--max-turns needs a positive whole number, not ${shownValue(turnsText)}`)
  const resume = one("--resume", "-r")
  const resumeProblem = resume === undefined || resume === "" ? undefined : sessionIdProblem("--resume", resume)
  if (resumeProblem !== undefined) errors.push(resumeProblem)
  const model = one("--model")
  const fileText = (flag: string): string | undefined => {
    const file = one(flag)
    if (file === undefined) return undefined
    try {
      return readFileSync(file, "utf8")
    } catch (e) {
      errors.push(`${flag}: cannot read ${file} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`)
      return undefined
    }
  }
  // An empty prompt is no prompt: the Python SDK passes --system-prompt "" when the program set none (as the
  // TypeScript SDK sends [""]), and the session keeps anvil's own.
  // The Agent SDK's cache boundary is a marker, not words for the model.
  const given = (text: string | undefined) => (text === undefined || withoutCacheBoundary(text) === "" ? undefined : text.includes(CACHE_BOUNDARY) ? withoutCacheBoundary(text) : text)
  const systemPrompt = given(one("--system-prompt") ?? fileText("--system-prompt-file"))
  const appendSystemPrompt = given(one("--append-system-prompt") ?? fileText("--append-system-prompt-file"))
  const sessionId = one("--session-id")
  const settings = readSettingsFlag(values.get("--settings") ?? [])
  errors.push(...settings.errors)
  // Read for the sandbox only: settings beyond it are reported as not acted on.
  if (settings.unread.length > 0) ignored.push(`--settings (${settings.unread.join(", ")})`)
  const { errors: limitErrors, ...limits } = limitFlags((flag) => values.get(flag) ?? [], model)
  errors.push(...limitErrors)
  const thinking = thinkingFlags(one("--max-thinking-tokens"), one("--thinking"), one("--thinking-display"))
  if (thinking.error !== undefined) errors.push(thinking.error)
  const schemaText = one("--json-schema")
  let jsonSchema: Record<string, unknown> | undefined
  if (schemaText !== undefined) {
    try {
      const parsed: unknown = JSON.parse(schemaText)
      if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) jsonSchema = parsed as Record<string, unknown>
      else errors.push(`--json-schema needs a JSON Schema object, not ${shownValue(schemaText)}`)
    } catch (e) {
      errors.push(`--json-schema is not valid JSON: ${(e as Error).message}`)
    }
  }
  return {
    outputFormat: format === "json" || format === "stream-json" ? format : "text",
    inputFormat: input === "stream-json" ? "stream-json" : "text",
    ...(model !== undefined && model !== "" ? { model } : {}),
    ...(Number.isInteger(maxTurns) && maxTurns > 0 ? { maxTurns } : {}),
    permissionMode: mode,
    promptToolStdio: promptTool === "stdio",
    allowed: rules(list("--allowedTools", "--allowed-tools")),
    disallowed: rules(list("--disallowedTools", "--disallowed-tools")),
    ...(systemPrompt !== undefined ? { systemPrompt } : {}),
    ...(appendSystemPrompt !== undefined ? { appendSystemPrompt } : {}),
    ...(resume !== undefined && resume !== "" && resumeProblem === undefined ? { resume } : {}),
    continueLast: switches.has("--continue") || switches.has("-c"),
    forkSession: switches.has("--fork-session"),
    ...(sessionId !== undefined && sessionId !== "" ? { sessionId } : {}),
    includePartialMessages: switches.has("--include-partial-messages"),
    mcpConfigs: values.get("--mcp-config") ?? [],
    agents: values.get("--agents") ?? [],
    pluginDirs: [...(values.get("--plugin-dir") ?? []), ...(values.get("--plugin-dir-no-mcp") ?? [])],
    ...(jsonSchema !== undefined ? { jsonSchema } : {}),
    autoAllowSandboxed: settings.autoAllowSandboxed,
    ...(thinking.thinking !== undefined ? { thinking: thinking.thinking } : {}),
    ...(values.has("--setting-sources") ? { settingSources: list("--setting-sources") } : {}),
    ...(toolsText !== undefined && toolsText !== "default" ? { tools: withCompanions(splitToolList(toolsText).map(anvilName)) } : {}),
    limits,
    strictMcpConfig: switches.has("--strict-mcp-config"),
    persistSession: !switches.has("--no-session-persistence"),
    prompt: words.join(" ").trim(),
    ...(switches.has("--debug") || values.has("--debug-file") ? { debug: values.has("--debug-file") ? { file: one("--debug-file")! } : {} } : {}),
    ignored: [...new Set(ignored)],
    errors,
  }
}

/** Whether the program's settingSources name the project (unset: every source): CLAUDE.md and `.claude/agents` are read then. */
export const projectSettings = (flags: Pick<PrintFlags, "settingSources">): boolean => flags.settingSources === undefined || flags.settingSources.includes("project")
