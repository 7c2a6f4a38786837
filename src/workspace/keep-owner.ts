import { fchownSync, fstatSync, lchownSync, lstatSync } from "node:fs"

/** Who owns a file: its user and group ids. */
export interface Owner {
  readonly uid: number
  readonly gid: number
}

/**
 * The replaced file's owner and group on its replacement, as far as the process may set them (root: both; others:
 * a group they are in), so that a file edited by anvil running as root (a container, sudo) stays its owner's;
 * otherwise the process's own, as for any new file. Before the mode: a chown clears set-user-ID bits.
 */
const keepOwnerWith = (current: Owner, owner: Owner, chown: (uid: number, gid: number) => void): void => {
  if (current.uid === owner.uid && current.gid === owner.gid) return
  try {
    chown(owner.uid, owner.gid)
  } catch {
    try {
      chown(current.uid, owner.gid)
    } catch {
      // Neither: the replacement stays the process's, as a new file would.
    }
  }
}

/** {@link keepOwnerWith} for the replacement open as `fd`. */
export const keepOwner = (fd: number, owner: Owner): void => keepOwnerWith(fstatSync(fd), owner, (uid, gid) => fchownSync(fd, uid, gid))

/** {@link keepOwnerWith} for the replacement at `path` (never through a link on it). */
export const keepOwnerAt = (path: string, owner: Owner): void =>
  keepOwnerWith(lstatSync(path), owner, (uid, gid) => lchownSync(path, uid, gid))
