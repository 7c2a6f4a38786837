import { historyStore } from "./history.ts"
import { readGitFile, resolveRef } from "./refs.ts"
import type { Repository } from "./repository.ts"

/** What a detached HEAD was detached from, as `git status` names it: "HEAD detached at v1.0" or "… from main". */
export interface DetachedFrom {
  /** The ref or abbreviated commit the last checkout moved to. */
  readonly name: string
  /** HEAD is still that commit (git says "at"; "from" once commits were made on top). */
  readonly at: boolean
}

const ABBREV = 7

/** The last checkout recorded in HEAD's reflog: what it moved to and the commit it landed on. */
const lastCheckout = (repo: Repository): { target: string; oid: string } | undefined => {
  const log = readGitFile(repo, `${repo.gitdir}/logs/HEAD`)
  if (log === undefined) return undefined
  const lines = log.split("\n")
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!
    const tab = line.indexOf("\t")
    if (tab === -1) continue
    const message = line.slice(tab + 1)
    if (!message.startsWith("checkout: moving from ")) continue
    const to = message.indexOf(" to ", "checkout: moving from ".length)
    if (to === -1) continue
    const oid = line.split(" ")[1] ?? ""
    return { target: message.slice(to + 4), oid }
  }
  return undefined
}

/** A ref's commit, following annotated tags (a tag object names its target on its first line). */
const peel = (repo: Repository, oid: string): string | undefined => {
  const store = historyStore(repo)
  try {
    let at = oid
    for (let depth = 0; depth < 10; depth++) {
      const object = store.read(at)
      if (object.type !== "tag") return object.type === "commit" ? at : undefined
      const m = /^object ([0-9a-f]+)\n/.exec(new TextDecoder().decode(object.content.subarray(0, 100)))
      if (!m) return undefined
      at = m[1]!
    }
    return undefined
  } catch {
    return undefined
  } finally {
    store.close()
  }
}

/**
 * What git status names a detached HEAD by: the last "checkout: moving from A to B" in HEAD's reflog. B is
 * shown as the ref it names when exactly one ref matches it (tried as git tries a short name: as given, refs/,
 * tags, heads, remotes) and that ref still is the commit the checkout landed on, tags/ and remotes/ dropped;
 * otherwise as that commit abbreviated.
 * Undefined when the reflog has no checkout (git then says "Not currently on any branch.").
 */
export const detachedFrom = (repo: Repository, head: string | undefined): DetachedFrom | undefined => {
  const last = lastCheckout(repo)
  if (last === undefined || !/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(last.oid)) return undefined
  let name = last.oid.slice(0, ABBREV)
  if (last.target !== "HEAD") {
    const t = last.target
    // git takes the name as it is only when it is a full ref or all capitals (FETCH_HEAD and the like).
    const rules = [...(/^[A-Z_]+$/.test(t) || t.startsWith("refs/") ? [t] : []), `refs/${t}`, `refs/tags/${t}`, `refs/heads/${t}`, `refs/remotes/${t}`, `refs/remotes/${t}/HEAD`]
    const found = (t.split("/").includes("..") ? [] : rules)
      .map((ref) => ({ ref, oid: resolveRef(repo, ref) }))
      .filter((r): r is { ref: string; oid: string } => r.oid !== undefined && /^[0-9a-f]+$/.test(r.oid))
    const first = found[0]
    if (found.length === 1 && first && (first.oid === last.oid || peel(repo, first.oid) === last.oid)) {
      name = first.ref.replace(/^refs\/(tags|remotes)\//, "")
    }
  }
  return { name, at: head === last.oid }
}
