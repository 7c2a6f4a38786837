import { ruleToolName } from "../tool-framework/claude-tools.ts"
import { commandParts } from "./command-parts.ts"
import { matchesValue } from "./rules.ts"
import type { Subjects } from "./subjects.ts"

/** An approval rule given on the command line or answered in a prompt: `tool` or `tool:pattern`. */
export interface AllowRule {
  readonly tool: string
  readonly pattern?: string
}

/**
 * Parses `--allow` values: `bash`, `bash:git status*`, `edit:src/**`, `fetch:example.com`, `bash(npm test)`, and
 * Claude Code's forms (`WebFetch`, `LS`, `Bash(npm test:*)`, whose `:*` prefix marker is a trailing `*`).
 */
export const parseAllowRule = (text: string): AllowRule | undefined => {
  const t = text.trim()
  const paren = /^([\w.-]+)\((.*)\)$/.exec(t)
  if (paren) return { tool: ruleToolName(paren[1]!), pattern: paren[2]!.replace(/:\*$/, "*") }
  const colon = t.indexOf(":")
  if (colon < 0) return /^[\w.-]+$/.test(t) ? { tool: ruleToolName(t) } : undefined
  const tool = ruleToolName(t.slice(0, colon).trim())
  const pattern = t.slice(colon + 1).trim()
  return /^[\w.-]+$/.test(tool) && pattern !== "" ? { tool, pattern } : undefined
}

/** A call's values as rules judge them: a compound command's simple commands, each on its own. */
export const ruleValues = (subjects: Subjects): ReadonlyArray<string> =>
  subjects.kind === "command" ? subjects.values.flatMap(commandParts) : subjects.values

/**
 * Whether approval rules together cover every subject of a call: each value (a compound command: each of its
 * simple commands) matched by one of them, as config rules judge it. `--allow bash:a --allow bash:b` covers `a; b`.
 */
export const rulesCover = (rules: ReadonlyArray<AllowRule>, toolName: string, subjects: Subjects | undefined): boolean => {
  const own = rules.filter((rule) => rule.tool === "*" || rule.tool === toolName.toLowerCase())
  if (own.some((rule) => rule.pattern === undefined || rule.pattern === "*")) return true
  if (own.length === 0 || !subjects || subjects.values.length === 0) return false
  const values = ruleValues(subjects)
  return values.length > 0 && values.every((v) => own.some((rule) => matchesValue(subjects, rule.pattern!, v)))
}

/** Whether one approval rule covers every subject of a call (a compound command: every part). */
export const allowCovers = (rule: AllowRule, toolName: string, subjects: Subjects | undefined): boolean => rulesCover([rule], toolName, subjects)

/** A rule's display form, as `--allow` takes it. */
export const showAllowRule = (rule: AllowRule): string => (rule.pattern === undefined ? rule.tool : `${rule.tool}:${rule.pattern}`)

/** Characters a shell leaves alone outside quotes. */
const SHELL_PLAIN = /^[\w@%+=:,./-]+$/

/** `--allow RULE` as a person pastes it into a shell: the rule single-quoted unless it needs no quotes. */
export const allowFlag = (rule: AllowRule): string => {
  const text = showAllowRule(rule)
  return `--allow ${SHELL_PLAIN.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`}`
}
