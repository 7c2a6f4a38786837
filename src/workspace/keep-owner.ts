import { fchownSync, fstatSync } from "node:fs"

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
export const keepOwner = (fd: number, owner: Owner): void => {
  const st = fstatSync(fd)
  if (st.uid === owner.uid && st.gid === owner.gid) return
  try {
    fchownSync(fd, owner.uid, owner.gid)
  } catch {
    try {
      fchownSync(fd, st.uid, owner.gid)
    } catch {
      // Neither: the replacement stays the process's, as a new file would.
    }
  }
}
