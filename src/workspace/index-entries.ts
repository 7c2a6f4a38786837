/** One entry of an index file as {@link eachIndexEntry} visits it. */
export interface RawIndexEntry {
  /** The path's bytes (UTF-8 for names git wrote from UTF-8). */
  readonly path: Uint8Array
  readonly stage: number
  /** The assume-valid flag (0x8000): `git update-index --assume-unchanged`. */
  readonly assumeValid: boolean
  /** The extended flags (version 3 and up): skip-worktree 0x4000, intent-to-add 0x2000. */
  readonly extended: number
  /** Where the entry starts in the file (its object id is 40 bytes in). */
  readonly start: number
  /** Its mode: 0o100644 or 0o100755 a file, 0o120000 a link, 0o160000 a submodule (gitlink). */
  readonly mode: number
}

/**
 * Visits the entries of a git index file (.git/index, versions 2-4) until
 * `visit` returns true; returns how many the file holds (0 when it is not an
 * index file).
 */
export const eachIndexEntry = (bytes: Uint8Array, visit: (entry: RawIndexEntry) => boolean | void): number => {
  if (bytes.length < 12 || new TextDecoder().decode(bytes.subarray(0, 4)) !== "DIRC") return 0
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const version = view.getUint32(4)
  const count = view.getUint32(8)
  if (version < 2 || version > 4) return 0
  let at = 12
  let previous: Uint8Array<ArrayBufferLike> = new Uint8Array(0)
  for (let i = 0; i < count && at + 62 <= bytes.length; i++) {
    const start = at
    const flags = view.getUint16(at + 60)
    at += 62
    let extended = 0
    if (version >= 3 && flags & 0x4000) {
      extended = view.getUint16(at)
      at += 2
    }
    let path: Uint8Array<ArrayBufferLike>
    if (version === 4) {
      // Prefix compression: drop N bytes of the previous path, then a NUL-terminated suffix.
      let strip = 0
      let b: number
      do {
        b = bytes[at++]!
        strip = (strip << 7) | (b & 0x7f)
        if (b & 0x80) strip += 1
      } while (b & 0x80)
      const end = bytes.indexOf(0, at)
      // A cut or corrupt index (no NUL left, more stripped than there is) ends the walk: it must never restart it.
      if (end < 0 || strip > previous.length) break
      const suffix = bytes.subarray(at, end)
      const kept = previous.subarray(0, previous.length - strip)
      path = new Uint8Array(kept.length + suffix.length)
      path.set(kept)
      path.set(suffix, kept.length)
      at = end + 1
    } else {
      const end = bytes.indexOf(0, at)
      if (end < 0) break
      path = bytes.subarray(at, end)
      // Entries are padded with NULs to a multiple of 8 bytes (at least one NUL).
      at = start + Math.ceil((end - start + 1) / 8) * 8
    }
    previous = path
    if (visit({ path, stage: (flags >> 12) & 3, assumeValid: (flags & 0x8000) !== 0, extended, start, mode: view.getUint32(start + 24) }) === true) break
  }
  return count
}

