import { shownValue } from "../protocol/shown-value.ts"
import { sessionIdProblem } from "../agent/session-id.ts"
import type { AgentSessionOptions } from "../agent/agent-session.ts"
import { parseAllowRule, showAllowRule, type AllowRule } from "../permission/allow-rule.ts"
import type { Tool } from "../tool-framework/definition.ts"
import { editDistance } from "../workspace/similar-paths.ts"
import type { CliIO } from "./output.ts"
import { UsageError } from "./args.ts"
import { SANDBOX_MODES } from "../sandbox/settings.ts"
import { profileNames } from "../agent/profiles.ts"

/** The options `anvil run` and `anvil chat` share. */
export interface AgentArgs {
  readonly model?: string
  readonly yes: boolean
  /** Trust the project's plugins for this run (`--trust-plugins`). */
  readonly trustPlugins: boolean
  /** Start the project's untrusted MCP servers for this run (`--trust-mcp`). */
  readonly trustMcp: boolean
  readonly allow: ReadonlyArray<AllowRule>
  readonly continueLast: boolean
  readonly sessionId?: string
  readonly maxSteps?: number
  readonly profile?: string
  readonly engine?: string
  readonly showRaw: boolean
  /** undefined: anvil.json `verify`; false: --no-verify; a string: --verify CMD. */
  readonly verify?: string | false
  readonly format: "text" | "json" | "stream-json"
  /** `--sandbox MODE`: workspace-write, read-only, off or require. */
  readonly sandbox?: string
  /** stream-json: user messages arrive as JSON lines on standard input (run). */
  readonly inputFormat: "text" | "stream-json"
  /** --timeout: seconds for both model deadlines (the request's headers, the stream's silences). */
  readonly timeoutSec?: number
  /** The prompt words (run). */
  readonly words: ReadonlyArray<string>
}

const FORMATS = ["text", "json", "stream-json"] as const

/** Parses the agent options; anything unknown is a usage error (exit code 2). */
export const parseAgentArgs = (argv: ReadonlyArray<string>, command: string): AgentArgs => {
  let model: string | undefined
  let yes = false
  let trustPlugins = false
  let trustMcp = false
  const allow: Array<AllowRule> = []
  let continueLast = false
  let sessionId: string | undefined
  let maxSteps: number | undefined
  let profile: string | undefined
  let engine: string | undefined
  let showRaw = false
  let verify: string | false | undefined
  let format: AgentArgs["format"] = "text"
  let sandbox: string | undefined
  let inputFormat: AgentArgs["inputFormat"] = "text"
  let timeoutSec: number | undefined
  const words: Array<string> = []
  for (let i = 0; i < argv.length; i++) {
    const raw = argv[i]!
    if (raw === "--") {
      words.push(...argv.slice(i + 1))
      break
    }
    const eq = raw.startsWith("--") ? raw.indexOf("=") : -1
    const flag = eq > 0 ? raw.slice(0, eq) : raw
    const value = (): string => {
      if (eq > 0) return raw.slice(eq + 1)
      const v = argv[++i]
      if (v === undefined) throw new UsageError(`anvil ${command}: ${flag} needs a value`, "missing_value")
      // `--session -f json`: the next word is an option, so the value was left out (a value that starts with a
      // dash can still be given as --flag=-value).
      if (/^-(-?[A-Za-z])/.test(v)) throw new UsageError(`anvil ${command}: ${flag} needs a value, not the option ${shownValue(v)} (write ${flag}=VALUE for a value that starts with '-')`, "missing_value")
      return v
    }
    switch (flag) {
      case "--model":
      case "-m":
        model = value()
        break
      case "--yes":
      case "-y":
        yes = true
        break
      case "--trust-plugins":
        trustPlugins = true
        break
      case "--trust-mcp":
        trustMcp = true
        break
      case "--allow": {
        const text = value()
        const rule = parseAllowRule(text)
        if (!rule) throw new UsageError(`anvil ${command}: --allow takes TOOL or TOOL:PATTERN (e.g. bash:"git status*"), not ${shownValue(text)}`, "bad_value")
        allow.push(rule)
        break
      }
      case "--continue":
      case "-c":
        continueLast = true
        break
      case "--session": {
        sessionId = value()
        // Checked here, as a usage error: an id no session file can have is a mistyped command, not a missing session.
        const problem = sessionIdProblem(flag, sessionId)
        if (problem !== undefined) throw new UsageError(`anvil ${command}: ${problem}`, "bad_value")
        break
      }
      case "--max-steps":
        maxSteps = parseMaxSteps(value(), command)
        break
      case "--profile":
      case "--agent":
        profile = parseProfile(value(), command, flag)
        break
      case "--plan":
        profile = "plan"
        break
      case "--engine":
        engine = parseEngine(value(), command)
        break
      case "--react":
        engine = "react"
        break
      case "--show-raw":
        showRaw = true
        break
      case "--verify":
        verify = value()
        break
      case "--no-verify":
        verify = false
        break
      case "--sandbox":
        sandbox = parseSandboxFlag(value(), command)
        break
      case "--format":
      case "-f": {
        const v = value()
        if (!(FORMATS as ReadonlyArray<string>).includes(v)) throw new UsageError(`anvil ${command}: --format is text, json or stream-json, not ${shownValue(v)}`, "bad_value")
        format = v as AgentArgs["format"]
        break
      }
      case "--output-format":
        format = value() as AgentArgs["format"]
        if (!(FORMATS as ReadonlyArray<string>).includes(format)) throw new UsageError(`anvil ${command}: --output-format is text, json or stream-json`, "bad_value")
        break
      case "--input-format": {
        const v = value()
        if (v !== "text" && v !== "stream-json") throw new UsageError(`anvil ${command}: --input-format is text or stream-json, not ${shownValue(v)}`, "bad_value")
        inputFormat = v
        break
      }
      case "--timeout": {
        const v = value()
        const n = parseSeconds(v)
        if (n === undefined) throw new UsageError(`anvil ${command}: --timeout takes seconds (90, 90s, 5m), not ${shownValue(v)}`, "bad_value")
        timeoutSec = n
        break
      }
      default:
        if (raw.startsWith("-") && raw !== "-") throw new UsageError(`anvil ${command}: unknown option ${shownValue(raw)}`, "unknown_option")
        words.push(raw)
    }
  }
  if (continueLast && sessionId !== undefined) throw new UsageError(`anvil ${command}: use --continue or --session ID, not both`, "conflicting_options")
  if (inputFormat === "stream-json" && format !== "stream-json") {
    throw new UsageError(`anvil ${command}: --input-format stream-json needs --format stream-json`, "conflicting_options")
  }
  return {
    ...(model !== undefined ? { model } : {}),
    yes,
    trustPlugins,
    trustMcp,
    allow,
    continueLast,
    ...(sessionId !== undefined ? { sessionId } : {}),
    ...(maxSteps !== undefined ? { maxSteps } : {}),
    ...(profile !== undefined ? { profile } : {}),
    ...(engine !== undefined ? { engine } : {}),
    showRaw,
    ...(verify !== undefined ? { verify } : {}),
    format,
    ...(sandbox !== undefined ? { sandbox } : {}),
    inputFormat,
    ...(timeoutSec !== undefined ? { timeoutSec } : {}),
    words,
  }
}

/** Checks a `--sandbox` value (usage error otherwise). */
/** --max-steps: a positive whole number (anvil run, anvil chat, and anvil config showing what they would use). */
export const parseMaxSteps = (text: string, command: string): number => {
  const n = Number(text)
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`anvil ${command}: --max-steps needs a positive whole number, not ${shownValue(text)}`, "bad_value")
  return n
}

/** --profile: one of the profiles, checked as --engine is (a mistyped word is the command line's mistake, exit 2). */
const parseProfile = (text: string, command: string, flag: string): string => {
  if (!(profileNames as ReadonlyArray<string>).includes(text)) throw new UsageError(`anvil ${command}: ${flag} is ${profileNames.join(", ")}, not ${shownValue(text)}`, "bad_value")
  return text
}

/** --engine: native or react. */
export const parseEngine = (text: string, command: string): "native" | "react" => {
  if (text !== "native" && text !== "react") throw new UsageError(`anvil ${command}: --engine is native or react, not ${shownValue(text)}`, "bad_value")
  return text
}

export const parseSandboxFlag = (value: string, command: string): string => {
  const accepted = [...SANDBOX_MODES, "require"]
  if (!accepted.includes(value)) throw new UsageError(`anvil ${command}: --sandbox is ${accepted.join(", ")}, not ${shownValue(value)}`, "bad_value")
  return value
}

/** "90", "90s", "1.5m", "2h" as seconds; undefined when it is not a positive duration. */
export const parseSeconds = (text: string): number | undefined => {
  const m = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h)?$/.exec(text.trim())
  if (!m) return undefined
  const n = Number(m[1]) * ({ ms: 0.001, s: 1, m: 60, h: 3600 } as Record<string, number>)[m[2] ?? "s"]!
  return n > 0 ? n : undefined
}

/**
 * Rejects --allow rules that name no tool this session has, with the nearest
 * name: a typo would otherwise approve nothing and every call would be denied.
 */
export const checkAllowRules = (rules: ReadonlyArray<AllowRule>, tools: ReadonlyArray<string>, command: string): void => {
  const known = new Set(tools.map((t) => t.toLowerCase()))
  for (const rule of rules) {
    if (rule.tool === "*" || known.has(rule.tool) || rule.tool.startsWith("mcp__")) continue
    const near = nearest(rule.tool, [...known])
    throw new UsageError(
      `anvil ${command}: --allow ${showAllowRule(rule)} names no tool ${shownValue(rule.tool)}${near ? ` (did you mean '${near}'?)` : ""}. Tools: ${[...known].sort().join(", ")}.`,
      "bad_value",
    )
  }
}

const nearest = (name: string, candidates: ReadonlyArray<string>): string | undefined => {
  let best: string | undefined
  let bestD = Infinity
  for (const c of candidates) {
    const d = editDistance(name, c)
    if (d < bestD) [best, bestD] = [c, d]
  }
  return bestD <= Math.max(2, Math.floor(name.length / 3)) ? best : undefined
}

/** The session options `anvil run` and `anvil chat` take straight from their arguments. */
export const sessionOptionsOf = (
  args: AgentArgs,
  io: CliIO,
  root: string | undefined,
  tools: ReadonlyArray<Tool>,
): Omit<AgentSessionOptions, "onAsk"> => ({
  cwd: io.cwd,
  env: io.env,
  root,
  modelFlag: args.model,
  profile: args.profile,
  engine: args.engine,
  continueLast: args.continueLast,
  sessionId: args.sessionId,
  maxSteps: args.maxSteps,
  verify: args.verify,
  allTools: tools,
  allow: args.allow,
  plugins: { trustProject: args.trustPlugins, onProblem: (m) => io.err(`anvil: ${m}\n`) },
  sandboxMode: args.sandbox,
  ...(args.timeoutSec !== undefined ? { configOverrides: { model_timeout: { request_sec: args.timeoutSec, idle_sec: args.timeoutSec } } } : {}),
})
