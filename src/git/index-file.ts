/**
 * The conflict stages recorded in a git index file (.git/index, versions 2-4):
 * path → the stages (1 base, 2 ours, 3 theirs) present for it. Only unmerged
 * paths appear. isomorphic-git's walkers show one entry per path, so the
 * conflict itself is read here.
 */
export const unmergedStages = (bytes: Uint8Array): ReadonlyMap<string, ReadonlySet<number>> => {
  const out = new Map<string, Set<number>>()
  if (bytes.length < 12 || new TextDecoder().decode(bytes.subarray(0, 4)) !== "DIRC") return out
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const version = view.getUint32(4)
  const count = view.getUint32(8)
  if (version < 2 || version > 4) return out
  const decoder = new TextDecoder()
  let at = 12
  let previous: Uint8Array<ArrayBufferLike> = new Uint8Array(0)
  for (let i = 0; i < count && at + 62 <= bytes.length; i++) {
    const start = at
    const flags = view.getUint16(at + 60)
    at += 62
    if (version >= 3 && flags & 0x4000) at += 2
    const stage = (flags >> 12) & 3
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
      const suffix = bytes.subarray(at, end)
      const kept = previous.subarray(0, previous.length - strip)
      path = new Uint8Array(kept.length + suffix.length)
      path.set(kept)
      path.set(suffix, kept.length)
      at = end + 1
    } else {
      const end = bytes.indexOf(0, at)
      path = bytes.subarray(at, end)
      // Entries are padded with NULs to a multiple of 8 bytes (at least one NUL).
      at = start + Math.ceil((end - start + 1) / 8) * 8
    }
    previous = path
    if (stage !== 0) {
      const name = decoder.decode(path)
      const stages = out.get(name) ?? new Set<number>()
      stages.add(stage)
      out.set(name, stages)
    }
  }
  return out
}

/** The porcelain XY code git prints for an unmerged path, by the stages present. */
export const unmergedCode = (stages: ReadonlySet<number>): string => {
  const base = stages.has(1)
  const ours = stages.has(2)
  const theirs = stages.has(3)
  if (base && ours && theirs) return "UU"
  if (!base && ours && theirs) return "AA"
  if (base && ours) return "UD"
  if (base && theirs) return "DU"
  if (ours) return "AU"
  if (theirs) return "UA"
  return "DD"
}
