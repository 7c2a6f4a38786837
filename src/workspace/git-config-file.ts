/**
 * A git config file (~/.gitconfig, .git/config) as a map from
 * "section.key" / "section.subsection.key" (section and key lowercased) to
 * the last value set. Enough of git's syntax for identity and hook settings:
 * sections with quoted subsections, comments, quoted values with escapes,
 * line continuations, and bare keys meaning true. `include` is not followed.
 */
export const parseGitConfig = (text: string): ReadonlyMap<string, string> => new Map(gitConfigEntries(text))

/**
 * Every `include.path` and `includeIf.<condition>.path` of a git config file,
 * in order, whatever the condition (the files git may read as config too).
 */
export const gitConfigIncludes = (text: string): ReadonlyArray<string> =>
  gitConfigEntries(text)
    .filter(([key]) => key === "include.path" || (key.startsWith("includeif.") && key.endsWith(".path")))
    .map(([, v]) => v)

/** The entries of a git config file in order, repeated keys kept (see parseGitConfig for the keys). */
const gitConfigEntries = (text: string): Array<[string, string]> => {
  const values: Array<[string, string]> = []
  let section = ""
  const lines = text.replace(/\\\r?\n/g, "").split(/\r?\n/)
  for (const raw of lines) {
    const line = raw.trim()
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue
    const header = /^\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]/.exec(line)
    if (header) {
      const name = header[1]!.toLowerCase()
      section = header[2] !== undefined ? `${name}.${header[2].replace(/\\(.)/g, "$1")}` : name
      continue
    }
    const entry = /^([A-Za-z][A-Za-z0-9-]*)\s*(?:=\s*(.*))?$/.exec(line)
    if (!entry || section === "") continue
    const key = `${section}.${entry[1]!.toLowerCase()}`
    values.push([key, entry[2] === undefined ? "true" : value(entry[2])])
  }
  return values
}

const ESC: Record<string, string> = { n: "\n", t: "\t", b: "\b", '"': '"', "\\": "\\" }

const value = (raw: string): string => {
  let out = ""
  let quoted = false
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!
    if (c === "\\" && i + 1 < raw.length) {
      out += ESC[raw[++i]!] ?? raw[i]!
    } else if (c === '"') quoted = !quoted
    else if (!quoted && (c === "#" || c === ";")) break
    else out += c
  }
  return quoted ? out : out.replace(/\s+$/, "")
}

/** The git config files that apply, in the order git reads them (XDG, global, the repository's); later files win. */
export const gitConfigFiles = (gitdir: string, env: Readonly<Record<string, string | undefined>>): ReadonlyArray<string> => {
  const home = env.HOME ?? env.USERPROFILE
  const xdg = env.XDG_CONFIG_HOME || (home ? `${home}/.config` : undefined)
  return [...(xdg ? [`${xdg}/git/config`] : []), ...(env.GIT_CONFIG_GLOBAL ? [env.GIT_CONFIG_GLOBAL] : home ? [`${home}/.gitconfig`] : []), `${gitdir}/config`]
}
