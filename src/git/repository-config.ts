import type { UntrackedMode } from "./git-command.ts"

/**
 * What the git tools read from a repository's git config settings, as git reads them. Apart from
 * repository-place.ts (which reads files): `anvil tool git_*` plans its early git from these without loading node:fs.
 */

/** A git config value git reads as boolean false. */
export const FALSE = /^(false|no|off|0)$/i

/** Whether git detects renames in `git diff` (diff.renames) or `git status` (status.renames, else diff.renames); on by default. */
export const detectsRenames = (settings: ReadonlyMap<string, string>, command: "diff" | "status"): boolean => {
  const setting = (command === "status" ? settings.get("status.renames") : undefined) ?? settings.get("diff.renames")
  return setting === undefined || !FALSE.test(setting)
}

/** Whether renames found are copies too (diff.renames or status.renames = copies, as git -C). */
export const detectsCopies = (settings: ReadonlyMap<string, string>, command: "diff" | "status"): boolean => {
  const setting = (command === "status" ? settings.get("status.renames") : undefined) ?? settings.get("diff.renames")
  return setting !== undefined && /^cop(y|ies)$/i.test(setting)
}

/** status.showUntrackedFiles read as git reads it (a boolean false is "no", true and anything unknown "normal"). */
export const untrackedMode = (settings: ReadonlyMap<string, string>): UntrackedMode => {
  const setting = settings.get("status.showuntrackedfiles")
  return setting === undefined ? "normal" : FALSE.test(setting) ? "no" : setting.toLowerCase() === "all" ? "all" : "normal"
}
