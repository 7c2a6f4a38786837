import { lstatSync, readFileSync } from "node:fs"
import { join, relative, sep } from "node:path"

/** What to lay over a repository's `info/exclude` inside the sandbox. */
export interface GitExclude {
  /** The repository's own `info/exclude` (the mount point). */
  readonly path: string
  /** Its text plus the stand-ins' names. */
  readonly text: string
}

/** A root-relative name as a gitignore pattern that matches only itself. */
const literal = (name: string): string => `/${name.replace(/[\\*?[\]!#]/g, (c) => `\\${c}`).replace(/ $/, "\\ ")}`

/**
 * The empty stand-in files a command's sandbox places (anvil.json, .mcp.json…)
 * are untracked files to git inside it: `git add -A && git commit` would put
 * them in the user's history, and they are gone when the command ends. Inside
 * the sandbox the repository's `info/exclude` (under `commonDir`, whose
 * top is `root`) gets their names added, so git passes over them; the real
 * file is not changed. Undefined when there is nothing to add or no such file.
 */
export const standInExclude = (commonDir: string, root: string, standIns: ReadonlyArray<{ readonly path: string; readonly kind: "file" | "dir" }>): GitExclude | undefined => {
  // A stand-in folder is empty, and git does not see empty folders.
  const names = standIns.filter((s) => s.kind === "file" && s.path.startsWith(root + sep)).map((s) => literal(relative(root, s.path)))
  if (names.length === 0) return undefined
  const path = join(commonDir, "info", "exclude")
  let text: string
  try {
    if (!lstatSync(path).isFile()) return undefined
    text = readFileSync(path, "utf8")
  } catch {
    return undefined
  }
  const sepLine = text === "" || text.endsWith("\n") ? "" : "\n"
  return { path, text: `${text}${sepLine}# anvil: the sandbox's stand-ins for missing protected files (gone when the command ends)\n${names.join("\n")}\n` }
}
