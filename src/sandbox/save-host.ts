import { join } from "node:path"
import { parseJsonc } from "../config/jsonc.ts"
import { readSettingsFile } from "../config/settings-file.ts"
import { isRecord } from "../protocol/is-record.ts"
import { atomicWriteSync } from "../workspace/atomic-write.ts"


/**
 * Adds `host` to `sandbox.network` in `<root>/anvil.json` (an "always" answer
 * in chat), keeping the file's other settings; comments are not kept. A
 * network that was "on" stays on.
 */
export const saveNetworkHost = async (root: string, host: string): Promise<void> => {
  const file = join(root, "anvil.json")
  const read = readSettingsFile(file)
  // Something there that cannot be read is left alone: writing over it would lose the user's settings.
  if (read.kind === "unreadable") throw new Error(`${file} was not changed: ${read.reason}.`)
  const parsed = parseJsonc(read.kind === "text" ? read.text : "{}")
  const data: Record<string, unknown> = isRecord(parsed) ? { ...parsed } : {}
  const sandbox: Record<string, unknown> = isRecord(data.sandbox) ? { ...data.sandbox } : {}
  if (sandbox.network === "on" || sandbox.network === true) return
  const hosts = Array.isArray(sandbox.network) ? sandbox.network.filter((h): h is string => typeof h === "string") : []
  if (!hosts.includes(host)) hosts.push(host)
  sandbox.network = hosts
  data.sandbox = sandbox
  // A temp file made exclusively, never through a link planted under its name; anvil.json keeps its mode and owner.
  atomicWriteSync(file, new TextEncoder().encode(`${JSON.stringify(data, null, 2)}\n`))
}
