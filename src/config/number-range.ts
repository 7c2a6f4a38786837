import { getNodePath, type Node } from "jsonc-parser"

/** A number literal JSON cannot hold as written, and what it reads as. */
export interface OutOfRange {
  /** The key path of the value (array elements by their index). */
  readonly path: ReadonlyArray<string>
  /** The literal as the file has it (`1e400`). */
  readonly written: string
  /** What it reads as: `Infinity`, `-Infinity` or `0`. */
  readonly reads: string
  readonly offset: number
}

/** Digits before the exponent that are not all zero: `1e-400` means something else than 0. */
const nonZero = (literal: string) => /[1-9]/.test(literal.split(/[eE]/)[0]!)

/**
 * Number literals beyond what a number holds: past ±1.8e308 they parse as ±Infinity (which JSON writes back as
 * null), and a non-zero one below 5e-324 as 0. Either way the setting is not what was written, and a check that
 * showed the parsed value would say `null` of a key the user gave a number.
 */
export const numbersOutOfRange = (text: string, tree: Node): ReadonlyArray<OutOfRange> => {
  const out: Array<OutOfRange> = []
  const visit = (node: Node): void => {
    if (node.type === "number") {
      const value = node.value as number
      const written = text.slice(node.offset, node.offset + node.length)
      if (!Number.isFinite(value) || (value === 0 && nonZero(written))) {
        out.push({ path: getNodePath(node).map(String), written, reads: String(value), offset: node.offset })
      }
    }
    for (const child of node.children ?? []) visit(child)
  }
  visit(tree)
  return out
}

/** How a warning says it: `1e400 (too large for a number: it reads as Infinity)`. */
export const describeOutOfRange = (n: OutOfRange): string =>
  `${n.written} (too ${n.reads === "0" ? "small" : "large"} for a number: it reads as ${n.reads})`
