import { commandParts } from "./command-parts.ts"
import { matchesValue } from "./rules.ts"
import type { Subjects } from "./subjects.ts"

/** An approval rule given on the command line or answered in a prompt: `tool` or `tool:pattern`. */
export interface AllowRule {
  readonly tool: string
  readonly pattern?: string
}

/** Parses `--allow` values: `bash`, `bash:git status*`, `edit:src/**`, `fetch:example.com`, `bash(npm test)`. */
export const parseAllowRule = (text: string): AllowRule | undefined => {
  const t = text.trim()
  const paren = /^([\w.-]+)\((.*)\)$/.exec(t)
  if (paren) return { tool: paren[1]!.toLowerCase(), pattern: paren[2]! }
  const colon = t.indexOf(":")
  if (colon < 0) return /^[\w.-]+$/.test(t) ? { tool: t.toLowerCase() } : undefined
  const tool = t.slice(0, colon).trim().toLowerCase()
  const pattern = t.slice(colon + 1).trim()
  return /^[\w.-]+$/.test(tool) && pattern !== "" ? { tool, pattern } : undefined
}

/** Whether an approval rule covers every subject of a call (a compound command: every part). */
export const allowCovers = (rule: AllowRule, toolName: string, subjects: Subjects | undefined): boolean => {
  if (rule.tool !== "*" && rule.tool !== toolName.toLowerCase()) return false
  if (rule.pattern === undefined || rule.pattern === "*") return true
  if (!subjects || subjects.values.length === 0) return false
  const values = subjects.kind === "command" ? subjects.values.flatMap(commandParts) : subjects.values
  return values.length > 0 && values.every((v) => matchesValue(subjects, rule.pattern!, v))
}

/** A rule's display form, as `--allow` takes it. */
export const showAllowRule = (rule: AllowRule): string => (rule.pattern === undefined ? rule.tool : `${rule.tool}:${rule.pattern}`)
