import { anvilName, ruleToolName } from "../tool-framework/claude-tools.ts"
import { commandGlob } from "./path-patterns.ts"

/**
 * Which key of `permission` names a tool. Tools are found without regard to case and under Claude Code's names,
 * so a rule is too: `"Bash": "deny"` or `"BASH": "deny"` holds for `bash`, `"WebFetch"` for `fetch`, and
 * `"mcp__GitHub__create_issue"` for `mcp__github__create_issue` — a deny rule written so must never be ignored
 * in silence. A key without `*` of the form `mcp__SERVER` covers every tool of that server, as it does in Claude
 * Code, as `mcp__SERVER__*` would.
 */

/** The key written for this very tool: its own name, else the same name in another case or Claude Code's name for it. */
export const sameToolKey = (permission: Record<string, unknown>, toolName: string): string | undefined => {
  if (Object.hasOwn(permission, toolName)) return toolName
  const lower = toolName.toLowerCase()
  const keys = Object.keys(permission).filter((key) => !key.includes("*"))
  return (
    keys.find((key) => anvilName(key) === toolName) ??
    keys.find((key) => ruleToolName(key) === lower)
  )
}

/** How closely a key that covers several tools covers this one (longer is closer), or undefined when it does not. */
const coverage = (key: string, lowerName: string): number | undefined => {
  const lowerKey = key.toLowerCase()
  if (key.includes("*")) return key.length > 1 && commandGlob(lowerKey).test(lowerName) ? key.length : undefined
  // `mcp__github` stands for `mcp__github__*`.
  if (/^mcp__.+$/.test(lowerKey) && !lowerKey.slice(5).includes("__") && lowerName.startsWith(`${lowerKey}__`)) return key.length + 3
  return undefined
}

/**
 * The key of `permission` that holds a tool's rules: the one written for it (above), else the closest key that
 * covers several tools — the longest with `*` matching the whole name (`"mcp__github__*"`), or `"mcp__github"`.
 */
export const entryKeyFor = (permission: Record<string, unknown>, toolName: string): string | undefined => {
  const own = sameToolKey(permission, toolName)
  if (own !== undefined) return own
  const lowerName = toolName.toLowerCase()
  let best: string | undefined
  let bestLength = 0
  for (const key of Object.keys(permission)) {
    const length = coverage(key, lowerName)
    if (length !== undefined && length > bestLength) (best = key), (bestLength = length)
  }
  return best
}
