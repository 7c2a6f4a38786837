import { IgnorePatterns } from "../workspace/gitignore.ts"

/**
 * Which untracked paths git leaves out of status, judged as git's dir.c
 * does: a path is excluded when it, or a folder above it, is; each is
 * tested against the .gitignore files from its own folder up to the top
 * (the deepest file with a matching pattern decides, its last matching
 * pattern wins, so `!pattern` re-includes), then `info/exclude`, then the
 * user's excludes file (core.excludesFile, by default
 * $XDG_CONFIG_HOME/git/ignore). `read` gives a file's text or undefined;
 * every file is read once.
 */
export const excludeJudge = (
  read: (path: string) => string | undefined,
  where: { readonly dir: string; readonly commondir: string; readonly excludesFile: string | undefined },
) => {
  const parse = (text: string | undefined) => (text === undefined ? undefined : IgnorePatterns.parse(text))
  const shared = [parse(read(`${where.commondir}/info/exclude`)), where.excludesFile === undefined ? undefined : parse(read(where.excludesFile))]
  const folders = new Map<string, IgnorePatterns | undefined>()
  const folder = (rel: string) => {
    if (!folders.has(rel)) folders.set(rel, parse(read(rel === "" ? `${where.dir}/.gitignore` : `${where.dir}/${rel}/.gitignore`)))
    return folders.get(rel)
  }
  const verdicts = new Map<string, boolean>()
  /** Whether `path` by itself (not its folders) is excluded. */
  const own = (path: string, isDir: boolean): boolean => {
    const key = isDir ? `${path}/` : path
    const known = verdicts.get(key)
    if (known !== undefined) return known
    let verdict: boolean | undefined
    const parts = path.split("/")
    for (let k = parts.length - 1; k >= 0 && verdict === undefined; k--) {
      const base = parts.slice(0, k).join("/")
      const v = folder(base)?.judge(base === "" ? path : path.slice(base.length + 1), isDir)
      if (v !== undefined) verdict = v === "ignored"
    }
    for (const list of shared) {
      if (verdict !== undefined) break
      const v = list?.judge(path, isDir)
      if (v !== undefined) verdict = v === "ignored"
    }
    verdicts.set(key, verdict === true)
    return verdict === true
  }
  /** Whether the repository-relative `path` (a folder when `isDir`) is excluded, by itself or through a folder above it. */
  const excluded = (path: string, isDir: boolean): boolean => {
    const parts = path.split("/")
    for (let k = 1; k < parts.length; k++) if (own(parts.slice(0, k).join("/"), true)) return true
    return own(path, isDir)
  }
  return { excluded }
}
