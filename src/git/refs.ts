import type { Repository } from "./repository.ts"

/** The commit a ref names, from its loose file or packed-refs (symbolic refs followed), or undefined. */
export const resolveRef = (repo: Repository, name: string, depth = 0): string | undefined => {
  if (depth > 5) return undefined
  // HEAD and the per-worktree refs live in the worktree's own gitdir; branches in the common one.
  const own = name === "HEAD" || name.startsWith("refs/worktree/") || name.startsWith("refs/bisect/")
  const text = readGitFile(repo, `${own ? repo.gitdir : repo.commondir}/${name}`)?.trim()
  if (text !== undefined) return text.startsWith("ref:") ? resolveRef(repo, text.slice(4).trim(), depth + 1) : text
  const packed = readGitFile(repo, `${repo.commondir}/packed-refs`) ?? ""
  for (const line of packed.split("\n")) {
    const [oid, ref] = line.split(" ")
    if (ref === name && oid !== undefined && /^[0-9a-f]+$/.test(oid)) return oid
  }
  return undefined
}

/** A file of the repository's git folders as text, or undefined when it cannot be read. */
export const readGitFile = (repo: Repository, path: string): string | undefined => {
  try {
    return String(repo.fs.readFileSync(path, "utf8"))
  } catch {
    return undefined
  }
}
