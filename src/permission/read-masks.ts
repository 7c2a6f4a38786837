import { rootGlob, toolRules } from "./rules.ts"

/**
 * The places `read` deny rules name literally, for the command sandbox to hide from commands too: bash can `cat`
 * what read refuses. Root-relative (or absolute) paths, a trailing `/` for a folder: `./secret.txt`, `config/prod.env`
 * and `/srv/keys` as written, `secret/` and `secret/**` as the folder, and a bare name (`.env`, which the rule
 * denies at any depth) as the one at the root only — the sandbox hides places, it cannot follow a pattern into
 * every folder. Patterns with other wildcards (`*.pem`, `**` inside) name no place and are left to the rules.
 */
export const readDenyMasks = (permission: unknown): ReadonlyArray<string> => {
  const rules = toolRules(permission, "read")
  if (!rules) return []
  const out = new Set<string>()
  for (const { pattern, level } of rules.patterns) {
    if (level !== "deny") continue
    let p = rootGlob(pattern)
    if (p.startsWith("**/") && !p.slice(3).includes("/")) p = p.slice(3)
    const folder = p.endsWith("/**")
    if (folder) p = p.slice(0, -3)
    if (p === "" || p === "." || p.startsWith("~") || /[*?[\]{}]/.test(p) || p.split("/").includes("..")) continue
    out.add(folder ? `${p}/` : p)
  }
  return [...out]
}
