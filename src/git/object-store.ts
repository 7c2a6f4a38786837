import type { GitFsClient } from "./git-fs.ts"

/** An object read from the store: its type and content. */
export interface GitObject {
  readonly type: "commit" | "tree" | "blob" | "tag"
  readonly content: Uint8Array
}

const TYPES = ["", "commit", "tree", "blob", "tag"] as const

/** node:zlib, loaded when an object is first read: the git tools that run git itself never need it. */
const zlib = () => require("node:zlib") as typeof import("node:zlib")

/** One pack's index (version 2): object ids in order and their offsets in the pack. */
interface PackIndex {
  readonly pack: string
  readonly names: Uint8Array
  readonly count: number
  readonly offsets: (i: number) => number
  fd?: number
}

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString("hex")

/**
 * A reader of git's object store that knows both object formats (SHA-1 and
 * SHA-256: ids of 40 or 64 hex digits), loose objects and packs (version 2
 * indexes, offset and reference deltas) in the repository's own folder and
 * in its alternates. isomorphic-git reads SHA-1 repositories only; this is
 * what git_log reads commits with when there is no git.
 */
export const objectStore = (fs: GitFsClient, objectDirs: ReadonlyArray<string>, hashBytes: 20 | 32) => {
  let packs: Array<PackIndex> | undefined
  const loadPacks = (): Array<PackIndex> => {
    const out: Array<PackIndex> = []
    for (const dir of objectDirs) {
      let names: Array<string>
      try {
        names = fs.readdirSync(`${dir}/pack`)
      } catch {
        continue
      }
      for (const name of names.filter((n) => n.endsWith(".idx")).sort()) {
        const bytes = new Uint8Array(fs.readFileSync(`${dir}/pack/${name}`))
        const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
        // Version 2: "\377tOc", 2, a fan-out table of 256 counts, ids, CRCs, 31-bit offsets, then 64-bit ones.
        if (view.getUint32(0) !== 0xff744f63 || view.getUint32(4) !== 2) continue
        const count = view.getUint32(8 + 255 * 4)
        const namesAt = 8 + 256 * 4
        const offsetsAt = namesAt + count * hashBytes + count * 4
        const largeAt = offsetsAt + count * 4
        out.push({
          pack: `${dir}/pack/${name.slice(0, -4)}.pack`,
          names: bytes.subarray(namesAt, namesAt + count * hashBytes),
          count,
          offsets: (i) => {
            const v = view.getUint32(offsetsAt + i * 4)
            return v & 0x80000000 ? Number(view.getBigUint64(largeAt + (v & 0x7fffffff) * 8)) : v
          },
        })
      }
    }
    return out
  }

  /** The index of `id` among a pack's sorted ids, or -1. */
  const find = (p: PackIndex, id: Uint8Array): number => {
    let lo = 0
    let hi = p.count - 1
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1
      const at = mid * hashBytes
      let cmp = 0
      for (let k = 0; k < hashBytes && cmp === 0; k++) cmp = p.names[at + k]! - id[k]!
      if (cmp === 0) return mid
      if (cmp < 0) lo = mid + 1
      else hi = mid - 1
    }
    return -1
  }

  const readAt = (p: PackIndex, offset: number, length: number): Uint8Array => {
    p.fd ??= fs.openSync(p.pack, "r")
    const buf = Buffer.alloc(length)
    const n = fs.readSync(p.fd, buf, 0, length, offset)
    return buf.subarray(0, n)
  }

  /** The entry at `offset` of a pack, deltas resolved. */
  const packEntry = (p: PackIndex, offset: number, depth = 0): GitObject => {
    if (depth > 4096) throw new Error(`delta chain too deep in ${p.pack}`)
    let head = readAt(p, offset, 32 + hashBytes)
    let c = head[0]!
    const type = (c >> 4) & 7
    let size = c & 15
    let at = 1
    for (let shift = 4; c & 0x80; shift += 7) {
      c = head[at++]!
      size += (c & 0x7f) * 2 ** shift
    }
    let base: GitObject | undefined
    if (type === 6) {
      c = head[at++]!
      let back = c & 0x7f
      while (c & 0x80) {
        c = head[at++]!
        back = (back + 1) * 128 + (c & 0x7f)
      }
      base = packEntry(p, offset - back, depth + 1)
    } else if (type === 7) {
      base = read(hex(head.subarray(at, at + hashBytes)), depth + 1)
      at += hashBytes
    }
    // Deflated data is at most a little larger than what it holds; zlib ignores what follows the stream.
    head = readAt(p, offset + at, size + 64 + (size >>> 3))
    const data = new Uint8Array(zlib().inflateSync(head))
    if (base === undefined) {
      const name = TYPES[type]
      if (name === undefined || name === "") throw new Error(`unknown object type ${type} in ${p.pack}`)
      return { type: name, content: data }
    }
    return { type: base.type, content: applyDelta(base.content, data) }
  }

  const loose = (oid: string): GitObject | undefined => {
    for (const dir of objectDirs) {
      let bytes: Uint8Array
      try {
        bytes = new Uint8Array(zlib().inflateSync(fs.readFileSync(`${dir}/${oid.slice(0, 2)}/${oid.slice(2)}`)))
      } catch {
        continue
      }
      const nul = bytes.indexOf(0)
      const [type] = new TextDecoder().decode(bytes.subarray(0, nul)).split(" ")
      return { type: type as GitObject["type"], content: bytes.subarray(nul + 1) }
    }
    return undefined
  }

  /** The object `oid`; throws when it is in none of the object folders. */
  const read = (oid: string, depth = 0): GitObject => {
    const found = loose(oid)
    if (found) return found
    packs ??= loadPacks()
    const id = Buffer.from(oid, "hex")
    for (const p of packs) {
      const i = find(p, id)
      if (i >= 0) return packEntry(p, p.offsets(i), depth)
    }
    throw new Error(`Could not find ${oid}`)
  }

  /** Closes the pack files opened. */
  const close = () => {
    for (const p of packs ?? []) {
      if (p.fd !== undefined) fs.closeSync(p.fd)
      p.fd = undefined
    }
  }

  return { read: (oid: string) => read(oid), close }
}

/** A size in a delta's header: 7 bits a byte, low bits first. */
const deltaSize = (delta: Uint8Array, at: { i: number }): number => {
  let size = 0
  let shift = 0
  let c: number
  do {
    c = delta[at.i++]!
    size += (c & 0x7f) * 2 ** shift
    shift += 7
  } while (c & 0x80)
  return size
}

/** Rebuilds an object from its base and a git delta (copy-from-base and insert instructions). */
export const applyDelta = (base: Uint8Array, delta: Uint8Array): Uint8Array => {
  const at = { i: 0 }
  deltaSize(delta, at)
  const out = new Uint8Array(deltaSize(delta, at))
  let n = 0
  while (at.i < delta.length) {
    const op = delta[at.i++]!
    if (op & 0x80) {
      let offset = 0
      let size = 0
      for (let b = 0; b < 4; b++) if (op & (1 << b)) offset += delta[at.i++]! * 2 ** (8 * b)
      for (let b = 0; b < 3; b++) if (op & (0x10 << b)) size += delta[at.i++]! << (8 * b)
      if (size === 0) size = 0x10000
      out.set(base.subarray(offset, offset + size), n)
      n += size
    } else if (op > 0) {
      out.set(delta.subarray(at.i, at.i + op), n)
      n += op
      at.i += op
    } else throw new Error("invalid delta instruction")
  }
  return out
}
