/** What a call may do without asking: run, ask the user first, or never run. */
export type PermissionLevel = "allow" | "ask" | "deny"
