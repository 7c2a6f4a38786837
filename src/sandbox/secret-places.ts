import { join } from "node:path"
import { expandPath, real } from "./protected-paths.ts"
import { BUILTIN_SECRETS, secretsFromEnv } from "./secrets.ts"

/** A secret commands may not read: the entry as written (`~/.ssh/`, a `deny_read` entry) and where it is, absolute. */
export interface SecretPlace {
  readonly entry: string
  readonly path: string
  /** From `sandbox.deny_read` (which `allow_read` does not undo), not the built-in list. */
  readonly denied: boolean
}

/**
 * The secrets a command may not read, as written and absolute: the built-in list (secrets.ts), anvil's settings under
 * `$XDG_CONFIG_HOME`, the places the environment moves secrets to, less `sandbox.allow_read` (as written or where it
 * leads), plus `sandbox.deny_read`, which always applies. The one list both the command sandbox hides (policy.ts)
 * and the file tools keep out of in the folders `sandbox.allow` adds (tool-reach.ts).
 */
export const secretPlaces = (
  lists: { readonly allowRead: ReadonlyArray<string>; readonly denyRead: ReadonlyArray<string> },
  root: string,
  home: string | undefined,
  configHome: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): ReadonlyArray<SecretPlace> => {
  const abs = (entry: string) => expandPath(entry.endsWith("/") ? entry.slice(0, -1) : entry, root, home)
  const allowed = new Set(lists.allowRead.map(abs))
  const builtin = [...BUILTIN_SECRETS, ...(configHome ? [join(configHome, "anvil/")] : []), ...secretsFromEnv(env).hidden]
  const out: Array<SecretPlace> = []
  for (const entry of builtin) {
    const path = abs(entry)
    const at = real(path)
    if (!allowed.has(path) && (at === undefined || !allowed.has(at))) out.push({ entry, path, denied: false })
  }
  for (const entry of lists.denyRead) out.push({ entry, path: abs(entry), denied: true })
  return out
}
