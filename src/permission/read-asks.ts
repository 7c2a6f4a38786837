import type { ConfigShape } from "../config/config.ts"
import { denyRuleSource } from "./deny-source.ts"
import { withRootTwins } from "./root-twins.ts"
import { toolRules } from "./rules.ts"

/** `read`'s own level as written and where it is set (`"read": "ask" in "permission" of /repo/anvil.json …`). */
export const wholeRule = (config: ConfigShape, level: "deny" | "ask"): string => {
  const source = denyRuleSource(config, "read", undefined, level)
  return source ? `${source.rule} in "permission" of ${source.where}` : `"read": "${level}"`
}

/**
 * The rule, as written and where it is set, when `read` asks about every file (`"read": "ask"`, `{"*": "ask", …}`):
 * the sandbox cannot hide every file from a command, so a confined command is not approved without asking
 * (permissions.ts), and one approved may read them (rule-masks.ts). Undefined otherwise.
 */
export const readAsksEverything = (config: ConfigShape, root: string | undefined): string | undefined =>
  toolRules(withRootTwins(config.get("permission", {} as Record<string, unknown>), root, config.env.HOME), "read")?.level === "ask" ? wholeRule(config, "ask") : undefined
