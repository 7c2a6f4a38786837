import { keepBelowTopTier } from "./jit-tier.ts"

/**
 * A cheap test a directory walk makes on an entry's name while it is still
 * bytes in the kernel's listing: most names of a large tree cannot match a
 * pattern such as `**​/*.py`, and a name that fails here is counted but never
 * decoded, sorted or matched. It is a necessary condition only: a name that
 * passes still goes through the full match.
 */

/** The literal start and end of every name one pattern can match (`exact`: the whole name is `prefix`). */
export interface NameShape {
  readonly prefix: string
  readonly suffix: string
  readonly exact: boolean
}

interface ByteShape {
  readonly prefix: Uint8Array
  readonly suffix: Uint8Array
  readonly exact: boolean
}

const encoder = new TextEncoder()

/** Names matching at least one of several shapes. */
export class NameFilter {
  readonly shapes: ReadonlyArray<NameShape>
  private readonly bytes: ReadonlyArray<ByteShape>

  constructor(shapes: ReadonlyArray<NameShape>) {
    keepAcceptsBelowTopTier()
    this.shapes = shapes
    this.bytes = shapes.map((s) => ({ prefix: encoder.encode(s.prefix), suffix: encoder.encode(s.suffix), exact: s.exact }))
  }

  /** This filter, also accepting these exact names. */
  withNames(names: Iterable<string>): NameFilter {
    return new NameFilter([...this.shapes, ...[...names].map((name) => ({ prefix: name, suffix: "", exact: true }))])
  }

  /**
   * Whether the UTF-8 name in `bytes[start, end)` may match. A name's
   * bytes end with (start with) a string's UTF-8 bytes exactly when the name
   * read as UTF-8 ends with (starts with) that string, even when leniently
   * decoded bytes elsewhere in it are not UTF-8.
   */
  accepts(bytes: Uint8Array, start: number, end: number): boolean {
    const length = end - start
    for (const shape of this.bytes) {
      const prefix = shape.prefix
      const suffix = shape.suffix
      if (shape.exact ? length !== prefix.length : length < prefix.length + suffix.length) continue
      let ok = true
      for (let i = 0; i < prefix.length; i++) {
        if (bytes[start + i] !== prefix[i]) {
          ok = false
          break
        }
      }
      if (!ok) continue
      const from = end - suffix.length
      for (let i = 0; i < suffix.length; i++) {
        if (bytes[from + i] !== suffix[i]) {
          ok = false
          break
        }
      }
      if (ok) return true
    }
    return false
  }
}

// Marked when the first filter is made, not when this module loads: the read rules' walk imports it, and a call
// that walks no folder (a read) does not load bun:jsc for it.
let tiered = false
function keepAcceptsBelowTopTier(): void {
  if (tiered) return
  tiered = true
  keepBelowTopTier(NameFilter.prototype.accepts)
}
