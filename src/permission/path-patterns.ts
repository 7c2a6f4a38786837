import { simpleWildcard, type TextMatcher, type Wildcard } from "../workspace/wildcard.ts"
import type { SubjectKind } from "./subjects.ts"

/** The folders a path lies in, outermost first: `a/b/c.txt` → `a`, `a/b`; `/x/y/z` (a place outside the project) → `/x`, `/x/y`. */
export const foldersOf = (path: string): ReadonlyArray<string> => {
  const out: Array<string> = []
  for (let i = path.indexOf("/", path.startsWith("/") ? 1 : 0); i > 0; i = path.indexOf("/", i + 1)) out.push(path.slice(0, i))
  return out
}

/** A command glob: `*` is any text (spaces and slashes included), `?` one character; the whole command must match. Linear time. */
export const commandGlob = (pattern: string): TextMatcher => simpleWildcard(pattern.trim(), { paths: false })

/** Path globs made so far: a search judges every path it finds against the same few patterns. */
const pathGlobs = new Map<string, Wildcard>()

/**
 * A path pattern as the root-relative glob it stands for: a pattern without a slash is a name matched at any depth
 * (under `**`); `./name` is that name at the root only (the `./` anchors it, as in `./src`); a trailing `/` is the
 * folder with all it holds. Every use of a path pattern (rules, search exclusions, folder denials) reads it so.
 */
export const rootGlob = (pattern: string): string => {
  const trimmed = pattern.trim()
  const anchored = trimmed.startsWith("./")
  let p = trimmed.replace(/^(?:\.\/)+/, "")
  if (!anchored && !p.includes("/")) p = `**/${p}`
  if (p.endsWith("/")) p += "**"
  return p
}

/** A path glob: `**` crosses folders, `*` and `?` do not; see {@link rootGlob} for the pattern's anchoring. Linear time. */
export const pathGlob = (pattern: string): Wildcard => {
  const known = pathGlobs.get(pattern)
  if (known) return known
  const made = simpleWildcard(rootGlob(pattern).normalize("NFC"), { paths: true })
  // Patterns come from the settings: a few dozen at most, but a long session must not keep every one ever seen.
  if (pathGlobs.size >= 256) pathGlobs.clear()
  pathGlobs.set(pattern, made)
  return made
}

/**
 * A host pattern: `example.com` exactly, `*.example.com` its subdomains; a pattern with a `/` is a glob on the whole
 * URL. A pattern written with the root's dot (`evil.com.`) names the host as subjects.ts reads it, without the dot.
 */
const hostMatches = (pattern: string, host: string): boolean => {
  const p = pattern.trim().toLowerCase()
  if (p.includes("/")) return commandGlob(p).test(host)
  return commandGlob(p.replace(/\.+$/, "")).test(host.toLowerCase())
}

export const subjectMatches = (kind: SubjectKind, pattern: string, value: string): boolean => {
  if (pattern === "*") return true
  switch (kind) {
    case "command":
      return commandGlob(pattern).test(value.trim())
    case "path":
      // A name is judged as people read it: `café` composed or decomposed (as macOS writes it) is the same name.
      return pathGlob(pattern).test(value.normalize("NFC"))
    case "host":
      return hostMatches(pattern, value)
    case "name":
      return commandGlob(pattern).test(value)
  }
}
