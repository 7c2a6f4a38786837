/**
 * File names as diffs write them: git's C-style quoting ("a/t\tab",
 * "\303\274" octal bytes of UTF-8), the trailing TAB git adds after names
 * with spaces, `diff -u` timestamps after a TAB, and `-p` prefix stripping.
 */
import { decodePath, unquoteBytesAt } from "../workspace/path-bytes.ts"

/**
 * Decodes a C-quoted name starting at `start` (which must be `"`). Returns the
 * name and the index just past the closing quote, or undefined when it is not
 * a well-formed quoted name.
 */
export const unquoteAt = (s: string, start: number): { readonly name: string; readonly end: number } | undefined => {
  const quoted = unquoteBytesAt(s, start)
  // Bytes that are not UTF-8 stay escaped (path-bytes.ts), naming the file the other tools name, not one with U+FFFD.
  return quoted === undefined ? undefined : { name: decodePath(quoted.bytes), end: quoted.end }
}

/**
 * The name on a `--- ` / `+++ ` line (the text after the marker): quoted or
 * bare; a bare name ends at a TAB (git's trailing TAB, a `diff -u` timestamp).
 * Also returns the timestamp, used to spot `diff -N`'s epoch-dated empty side.
 */
export const parseHeaderName = (rest: string): { readonly name: string; readonly timestamp?: string } => {
  const quoted = rest.startsWith('"') ? unquoteAt(rest, 0) : undefined
  if (quoted) {
    const after = rest.slice(quoted.end).replace(/^\t/, "").trim()
    return after === "" ? { name: quoted.name } : { name: quoted.name, timestamp: after }
  }
  const tab = rest.indexOf("\t")
  if (tab >= 0) {
    const timestamp = rest.slice(tab + 1).trim()
    return timestamp === "" ? { name: rest.slice(0, tab) } : { name: rest.slice(0, tab), timestamp }
  }
  // Without a TAB a name cannot be told from a space-separated timestamp; diff(1) always uses a TAB.
  return { name: rest.replace(/\s+$/, "") }
}

/** True when a `diff -N` timestamp marks a side that did not exist (the Unix epoch in any zone). */
export const isEpochTimestamp = (timestamp: string | undefined): boolean =>
  timestamp !== undefined && /^(1970-01-01|1969-12-31)[ T]\d\d:\d\d:\d\d(\.0+)?( [+-]\d{4})?$/.test(timestamp.trim())

/** Removes `n` leading path components ("a/src/x.ts", 1 → "src/x.ts"); undefined when there are not enough. */
export const stripComponents = (name: string, n: number): string | undefined => {
  if (n === 0) return name
  const parts = name.split("/")
  let removed = 0
  let i = 0
  // Repeated slashes count as one separator, as in patch(1).
  while (removed < n && i < parts.length - 1) {
    if (parts[i] !== "" || i === 0) removed++
    i++
    while (i < parts.length - 1 && parts[i] === "") i++
  }
  if (removed < n) return undefined
  const rest = parts.slice(i).join("/")
  return rest === "" ? undefined : rest
}

/**
 * The two names of a `diff --git <a> <b>` line. Quoted names are decoded;
 * unquoted ones may contain spaces, so the split is the one that makes both
 * names equal once their first component is dropped (or equal outright, for
 * `--no-prefix` diffs). Renames get their names from `rename from/to` instead,
 * so an ambiguous split there does no harm.
 */
export const parseDiffGitNames = (rest: string): { readonly a: string; readonly b: string } | undefined => {
  if (rest.startsWith('"')) {
    const first = unquoteAt(rest, 0)
    if (!first) return undefined
    const tail = rest.slice(first.end).replace(/^ /, "")
    const second = tail.startsWith('"') ? unquoteAt(tail, 0)?.name : tail
    return second === undefined ? undefined : { a: first.name, b: second }
  }
  const lastQuote = rest.endsWith('"') ? rest.lastIndexOf(' "') : -1
  if (lastQuote > 0) {
    const second = unquoteAt(rest, lastQuote + 1)
    if (second) return { a: rest.slice(0, lastQuote), b: second.name }
  }
  const candidates: Array<{ a: string; b: string }> = []
  for (let i = rest.indexOf(" "); i >= 0; i = rest.indexOf(" ", i + 1)) {
    const a = rest.slice(0, i)
    const b = rest.slice(i + 1)
    if (a === b) return { a, b }
    const sa = stripComponents(a, 1)
    const sb = stripComponents(b, 1)
    if (sa !== undefined && sa === sb) candidates.push({ a, b })
  }
  if (candidates.length > 0) return candidates[0]
  // No equal split (a rename with edits): split in the middle space if there is only one.
  const spaces = [...rest.matchAll(/ /g)]
  if (spaces.length === 1) {
    const i = spaces[0]!.index
    return { a: rest.slice(0, i), b: rest.slice(i + 1) }
  }
  return undefined
}
