import type { CustomAgent } from "../agent/agent-runtime.ts"
import { isRecord } from "../protocol/is-record.ts"
import { anvilName } from "../tool-framework/claude-tools.ts"

/**
 * The program's own subagents (the SDK's `agents` option: `initialize.agents`,
 * or `--agents` as JSON on the command line), `{name: {description, prompt,
 * tools?, disallowedTools?}}` with Claude's tool names, as anvil's custom
 * agents for the task tool. A definition without a description or a prompt is
 * reported and left out; `model` and the rest are not used (the session's
 * model runs every subagent), which is said once per agent for the fields that ask for something.
 */

/** The fields of an agent definition anvil uses; `model: "inherit"` is what anvil does anyway. */
const USED = new Set(["description", "prompt", "tools", "disallowedTools", "name"])
const unusedFields = (def: Record<string, unknown>): Array<string> =>
  Object.entries(def)
    .filter(([k, v]) => !USED.has(k) && v !== undefined && v !== null && v !== false && !(k === "model" && v === "inherit") && !(Array.isArray(v) && v.length === 0))
    .map(([k]) => k)
export const sdkAgents = (sources: ReadonlyArray<unknown>, onProblem: (message: string) => void): Array<CustomAgent> => {
  const out = new Map<string, CustomAgent>()
  for (const source of sources) {
    let value = source
    if (typeof source === "string") {
      try {
        value = JSON.parse(source)
      } catch (e) {
        onProblem(`--agents is not valid JSON (${(e as Error).message}); its agents were left out`)
        continue
      }
    }
    if (!isRecord(value)) continue
    for (const [name, def] of Object.entries(value)) {
      if (!isRecord(def) || typeof def.description !== "string" || typeof def.prompt !== "string") {
        onProblem(`the agent '${name}' needs a description and a prompt; it was left out`)
        continue
      }
      const unused = unusedFields(def)
      if (unused.length > 0) onProblem(`the agent '${name}': ${unused.join(", ")} not acted on (anvil runs every subagent with the session's model and settings, its prompt and tools only)`)
      const names = (list: unknown) => (Array.isArray(list) ? list.filter((t): t is string => typeof t === "string").map((t) => anvilName(t.replace(/\(.*\)$/, ""))) : undefined)
      const tools = names(def.tools)
      const disallowedTools = names(def.disallowedTools)
      out.set(name, { name, description: def.description, prompt: def.prompt, ...(tools ? { tools } : {}), ...(disallowedTools ? { disallowedTools } : {}) })
    }
  }
  return [...out.values()]
}
