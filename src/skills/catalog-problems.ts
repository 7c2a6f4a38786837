/** The parts of a searched folder a problem names (skill-folders.ts SkillFolder). */
interface Searched {
  readonly dir: string
  readonly from: string
}

/**
 * What the catalogue says of a skills folder it cannot search, with the next step: a `skills.paths` entry that
 * names a file (a SKILL.md, say) rather than a folder, or a folder the system will not list.
 */
export const notAFolder = (folder: Searched, type: string): string => {
  const where = folder.from === "skills.paths" ? "skills.paths: " : ""
  const skillFile = /(?:^|[\\/])SKILL\.md$/i.test(folder.dir)
  const next = skillFile
    ? `name the skill's folder (${folder.dir.replace(/[\\/][^\\/]*$/, "")}) instead`
    : "name the folder that holds skills (each skill a folder with a SKILL.md), or one skill's own folder"
  return `${where}${folder.dir} is ${type === "File" ? "a file" : `a ${type.toLowerCase()}`}, not a folder (not_a_folder): ${next}`
}

/** A folder that exists but cannot be listed, said by the system's reason (permission denied, …) and what to do. */
export const unreadableFolder = (folder: Searched, failure: unknown): string => {
  // The platform error's reason (`PermissionDenied`, `BadResource`, …), not its message, which names internals.
  const reason = (failure as { reason?: { _tag?: string } }).reason?._tag
  const where = folder.from === "skills.paths" ? "skills.paths: " : ""
  const why = reason === "PermissionDenied" ? "permission denied (unreadable)" : `the system refused to list it (${reason ?? "unknown"})`
  return `${where}cannot read the skills folder ${folder.dir}: ${why}; give your user read access to it, or take it out of skills.paths`
}

/**
 * `skills.only` entries that name no skill there is (a typo, a skill removed): said once, with the names known, so
 * a list that keeps nothing is not taken for "no skills installed".
 */
export const unknownOnly = (only: ReadonlyArray<string>, known: ReadonlyArray<string>): string | undefined => {
  const names = new Set(known)
  const unknown = [...new Set(only.filter((entry) => !names.has(entry.slice(entry.lastIndexOf(":") + 1))))]
  if (unknown.length === 0) return undefined
  const listed = unknown.map((n) => `'${n}'`).join(", ")
  return (
    `skills.only: ${listed} ${unknown.length === 1 ? "names no skill" : "name no skill"} (unknown_skill), so ${unknown.length === 1 ? "it keeps" : "they keep"} nothing; ` +
    `known skills: ${known.length > 0 ? known.join(", ") : "none"}. Fix the name${unknown.length === 1 ? "" : "s"} in anvil.json, or run 'anvil skills' to see where each is found`
  )
}
