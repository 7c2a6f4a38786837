import { readdirSync } from "node:fs"
import { join } from "node:path"
import { privateStateDir } from "./state-dir.ts"

/** The folder of the command sandbox's stand-in ledger: in the project's private state folder, out of the tree commands see. */
export const standInDir = (root: string, env: Parameters<typeof privateStateDir>[1]): string =>
  join(privateStateDir(root, env), "sandbox-stand-ins")

/**
 * Whether the ledger holds any record (a command running now, or one an anvil killed mid-command left).
 * One directory read, usually of a folder that does not exist: cheap enough for every start.
 */
export const hasStandInRecords = (dir: string): boolean => {
  try {
    return readdirSync(dir).some((n) => n.endsWith(".json"))
  } catch {
    return false
  }
}
