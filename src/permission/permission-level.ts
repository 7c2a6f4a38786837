/** What a call may do without asking: run, ask the user first, or never run. */
export type PermissionLevel = "allow" | "ask" | "deny"

/** One pattern of a tool's rules in anvil.json `permission` (see rules.ts). */
export interface PatternRule {
  readonly pattern: string
  readonly level: PermissionLevel
  /** The entry the rule is written under when it is another tool's (`edit`'s rules hold for write: edit-covers.ts). */
  readonly from?: string
}

export interface ToolRules {
  /** The tool-wide level (a string entry or the "*" key). */
  readonly level?: PermissionLevel
  /** The entry the level is written under when it is another tool's. */
  readonly levelFrom?: string
  readonly patterns: ReadonlyArray<PatternRule>
}

const RANK: Record<PermissionLevel, number> = { allow: 0, ask: 1, deny: 2 }

/** The most restrictive of some levels (deny > ask > allow); allow for none. */
export const strictest = (levels: ReadonlyArray<PermissionLevel>): PermissionLevel =>
  levels.reduce<PermissionLevel>((a, b) => (RANK[b] > RANK[a] ? b : a), "allow")
