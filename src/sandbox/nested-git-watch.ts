import type { SandboxRefusal } from "./diagnose.ts"
import { classifyPath, mayKeepState, type SandboxPolicy } from "./policy.ts"
import { snapshotNestedGit, undoNestedGit, type NestedGitSnapshot } from "./nested-git.ts"
import { nestedGitFile, nestedGitStore, type NestedGitStore } from "./nested-git-store.ts"

/**
 * The nested git repositories across one session's confined commands (nested-git.ts): a snapshot taken before the
 * first command that may write the project, compared after each command (what it planted is undone) and kept as
 * the command left the tree. Its folders are stored for the next anvil process in the project's state folder, where
 * neither commands nor anvil's file tools can write (mayKeepState).
 */
export const nestedGitWatch = (root: () => string, stateFolder: () => string | undefined) => {
  let snapshot: NestedGitSnapshot | undefined
  let checks = 0
  // Undefined where commands or anvil's tools could write it.
  let store: NestedGitStore | undefined
  // The snapshot's folders differ from what the store holds.
  let unsaved = false
  return {
    /** Before a command that may write the project: the snapshot to compare with, taken once. */
    before: (p: SandboxPolicy): void => {
      if (snapshot) return
      const real = stateFolder()
      const at = root()
      store = real !== undefined && mayKeepState(real, at, p.writable) ? nestedGitStore(nestedGitFile(real), at) : undefined
      snapshot = snapshotNestedGit(at, true, store?.load())
      unsaved = snapshot.read > 0
    },
    /** After the command: what it planted in a nested repository undone, as refusals (none before any snapshot). */
    after: (p: SandboxPolicy, rootGitMissing: boolean): ReadonlyArray<SandboxRefusal> => {
      if (!snapshot) return []
      const checked = undoNestedGit(root(), snapshot, checks++ === 0, (path) => classifyPath(p, path) === "writable", undefined, rootGitMissing)
      snapshot = checked.after
      if (unsaved || snapshot.read > 0) store?.save(snapshot)
      unsaved = false
      return checked.refusals
    },
  }
}
