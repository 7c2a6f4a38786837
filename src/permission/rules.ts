import type { PermissionLevel } from "./permission-level.ts"
import { simpleWildcard, type TextMatcher, type Wildcard } from "../workspace/wildcard.ts"
import { isRecord } from "../protocol/is-record.ts"

/**
 * Permission rules in anvil.json:
 *
 * ```jsonc
 * "permission": {
 *   "read": "allow",                                        // a whole tool
 *   "bash": { "*": "ask", "git status*": "allow", "npm test": "allow", "rm *": "deny" },
 *   "edit": { "src/**": "allow", "*.lock": "deny" },       // file tools: paths (root-relative globs)
 *   "fetch": { "docs.python.org": "allow", "*.internal": "deny" }   // fetch: hosts
 * }
 * ```
 *
 * A string is the tool's level; in an object `"*"` is the tool's level and the
 * other keys are patterns on the call's subject: the command for bash, the
 * file paths for file tools, the URL's host for fetch, and whatever a tool's
 * own `permissionSubjects` names (the skill's name for skill, e.g.
 * `"skill": { "*": "allow", "deploy-*": "ask" }`). Among the patterns that
 * match, the most restrictive wins (deny > ask > allow); with none matching,
 * the tool's level applies (`"*"`, else the tool's own default). A compound
 * command (`a && b`, `a | b`, `$(b)`) is judged part by part, and a call with
 * several paths path by path: the strictest part decides, so `git status*`
 * never approves `git status; rm -rf /`.
 */
export interface PatternRule {
  readonly pattern: string
  readonly level: PermissionLevel
}

export interface ToolRules {
  /** The tool-wide level (a string entry or the "*" key). */
  readonly level?: PermissionLevel
  readonly patterns: ReadonlyArray<PatternRule>
}

/** `name`: a plain name matched whole with `*` and `?` (a tool's own subject, e.g. a skill's name). */
export type SubjectKind = "command" | "path" | "host" | "name"

/** What a call's patterns are matched against. */
export interface Subjects {
  readonly kind: SubjectKind
  readonly values: ReadonlyArray<string>
  /**
   * Paths: where a value really leads when a link on it points elsewhere in the project. A rule matches a value
   * when it matches the value or that place, so a rule about a file holds whatever link names it.
   */
  readonly leadsTo?: Readonly<Record<string, string>>
}

/** What a rule may match for one value: the value and, for a path through a link, where it leads. */
export const matchedForms = (subjects: Subjects, value: string): ReadonlyArray<string> => {
  const real = subjects.leadsTo?.[value]
  return real === undefined ? [value] : [value, real]
}

/** A call's subjects as its messages name them: ` (alias.txt -> secret.txt, b.txt)`; "" without subjects. */
export const describeSubjects = (subjects: Subjects | undefined): string =>
  subjects ? ` (${subjects.values.map((v) => (subjects.leadsTo?.[v] === undefined ? v : `${v} -> ${subjects.leadsTo[v]}`)).join(", ")})` : ""

/** Whether a rule's pattern matches one value of a call (or where that value leads). */
const matchesValue = (subjects: Subjects, pattern: string, value: string): boolean =>
  matchedForms(subjects, value).some((form) => subjectMatches(subjects.kind, pattern, form))

/** The folders a root-relative path lies in, outermost first: `a/b/c.txt` → `a`, `a/b`. */
export const foldersOf = (path: string): ReadonlyArray<string> => {
  const out: Array<string> = []
  for (let i = path.indexOf("/"); i > 0; i = path.indexOf("/", i + 1)) out.push(path.slice(0, i))
  return out
}

/**
 * Whether a pattern rule matches one value of a call. A deny or ask rule on paths also matches what lies in a
 * folder it matches, as an ignore rule leaves out a folder's contents: `"secret": "deny"` refuses `secret/a.txt`
 * (and the search tools never show it), `"secret": "ask"` asks before it. Allow rules match only what they name.
 */
export const ruleMatches = (subjects: Subjects, rule: PatternRule, value: string): boolean =>
  matchesValue(subjects, rule.pattern, value) ||
  (rule.level !== "allow" &&
    subjects.kind === "path" &&
    rule.pattern !== "*" &&
    matchedForms(subjects, value).some((form) => foldersOf(form.normalize("NFC")).some((folder) => pathGlob(rule.pattern).test(folder))))

const RANK: Record<PermissionLevel, number> = { allow: 0, ask: 1, deny: 2 }
export const strictest = (levels: ReadonlyArray<PermissionLevel>): PermissionLevel =>
  levels.reduce<PermissionLevel>((a, b) => (RANK[b] > RANK[a] ? b : a), "allow")

const isLevel = (v: unknown): v is PermissionLevel => v === "allow" || v === "ask" || v === "deny"

/**
 * The key of `permission` that holds a tool's rules: its own name, else the longest key with
 * `*` that matches the whole name (`"mcp__github__*"` covers every tool of one
 * MCP server).
 */
export const entryKeyFor = (permission: Record<string, unknown>, toolName: string): string | undefined => {
  if (Object.hasOwn(permission, toolName)) return toolName
  let best: string | undefined
  for (const key of Object.keys(permission)) {
    if (key.length > 1 && key.includes("*") && (best === undefined || key.length > best.length) && commandGlob(key).test(toolName)) best = key
  }
  return best
}

const entryFor = (permission: Record<string, unknown>, toolName: string): unknown => {
  const key = entryKeyFor(permission, toolName)
  return key === undefined ? undefined : permission[key]
}

/** The rules configured for one tool (`permission.<name>` or a matching `permission.<prefix>*`), or undefined when there are none. */
export const toolRules = (permission: unknown, toolName: string): ToolRules | undefined => {
  if (!isRecord(permission)) return undefined
  const entry = entryFor(permission, toolName)
  if (isLevel(entry)) return { level: entry, patterns: [] }
  if (!isRecord(entry)) return undefined
  const patterns: Array<PatternRule> = []
  let level: PermissionLevel | undefined
  for (const [pattern, value] of Object.entries(entry)) {
    if (!isLevel(value)) continue
    if (pattern === "*") level = value
    else patterns.push({ pattern, level: value })
  }
  return { ...(level ? { level } : {}), patterns }
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

/** A host pattern: `example.com` exactly, `*.example.com` its subdomains; a pattern with a `/` is a glob on the whole URL. */
const hostMatches = (pattern: string, host: string): boolean => {
  const p = pattern.trim().toLowerCase()
  if (p.includes("/")) return commandGlob(p).test(host)
  return commandGlob(p).test(host.toLowerCase())
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

/**
 * Splits a shell command into the simple commands it runs: at `;`, `&&`,
 * `||`, `|`, `&`, newlines, and into `$( … )` and backtick substitutions.
 * Quotes are respected.
 */
export const commandParts = (command: string): ReadonlyArray<string> => {
  const parts: Array<string> = []
  let current = ""
  let quote: string | undefined
  const push = () => {
    if (current.trim() !== "") parts.push(current.trim())
    current = ""
  }
  for (let i = 0; i < command.length; i++) {
    const c = command[i]!
    if (quote) {
      if (c === "\\" && quote === '"' && i + 1 < command.length) {
        current += c + command[++i]
        continue
      }
      if (c === quote) quote = undefined
      else if (quote === '"' && c === "$" && command[i + 1] === "(") {
        // A substitution runs even inside double quotes: its commands are parts of their own.
        let depth = 1
        let j = i + 2
        while (j < command.length && depth > 0) {
          if (command[j] === "(") depth++
          else if (command[j] === ")") depth--
          j++
        }
        parts.push(...commandParts(command.slice(i + 2, depth === 0 ? j - 1 : j)))
        current += "$(…)"
        i = j - 1
        continue
      }
      current += c
      continue
    }
    if (c === "'" || c === '"') {
      quote = c
      current += c
    } else if (c === "\\" && i + 1 < command.length) current += c + command[++i]
    else if (c === ";" || c === "\n" || c === "|" || c === "&" || c === "`" || c === ")") push()
    else if (c === "$" && command[i + 1] === "(") {
      push()
      i++
    } else if (c === "(") push()
    else current += c
  }
  push()
  return parts
}

/**
 * The level for one call: per subject value, the strictest matching pattern
 * or else the tool level or default; then the strictest over the values.
 */
export const levelFor = (rules: ToolRules | undefined, fallback: PermissionLevel, subjects: Subjects | undefined): PermissionLevel => {
  const base = rules?.level ?? fallback
  if (!rules || rules.patterns.length === 0) return base
  const values = subjects ? (subjects.kind === "command" ? subjects.values.flatMap(commandParts) : subjects.values) : []
  const judge = (value: string | undefined): PermissionLevel => {
    const matching = rules.patterns.filter((r) => (value === undefined ? r.pattern === "*" : ruleMatches(subjects!, r, value)))
    return matching.length > 0 ? strictest(matching.map((r) => r.level)) : base
  }
  return values.length === 0 ? judge(undefined) : strictest(values.map(judge))
}

/** An approval rule given on the command line or answered in a prompt: `tool` or `tool:pattern`. */
export interface AllowRule {
  readonly tool: string
  readonly pattern?: string
}

/** Parses `--allow` values: `bash`, `bash:git status*`, `edit:src/**`, `fetch:example.com`, `bash(npm test)`. */
export const parseAllowRule = (text: string): AllowRule | undefined => {
  const t = text.trim()
  const paren = /^([\w.-]+)\((.*)\)$/.exec(t)
  if (paren) return { tool: paren[1]!.toLowerCase(), pattern: paren[2]! }
  const colon = t.indexOf(":")
  if (colon < 0) return /^[\w.-]+$/.test(t) ? { tool: t.toLowerCase() } : undefined
  const tool = t.slice(0, colon).trim().toLowerCase()
  const pattern = t.slice(colon + 1).trim()
  return /^[\w.-]+$/.test(tool) && pattern !== "" ? { tool, pattern } : undefined
}

/** Whether an approval rule covers every subject of a call (a compound command: every part). */
export const allowCovers = (rule: AllowRule, toolName: string, subjects: Subjects | undefined): boolean => {
  if (rule.tool !== "*" && rule.tool !== toolName.toLowerCase()) return false
  if (rule.pattern === undefined || rule.pattern === "*") return true
  if (!subjects || subjects.values.length === 0) return false
  const values = subjects.kind === "command" ? subjects.values.flatMap(commandParts) : subjects.values
  return values.length > 0 && values.every((v) => matchesValue(subjects, rule.pattern!, v))
}

/** A rule's display form, as `--allow` takes it. */
export const showAllowRule = (rule: AllowRule): string => (rule.pattern === undefined ? rule.tool : `${rule.tool}:${rule.pattern}`)

/**
 * What a call's patterns are matched against, read from its parameters:
 * `command`/`args` (bash), `url` (fetch: the host), `path`/`file_path`/
 * `paths`/`edits[].path` (file tools; patch names its files itself). `normalizePath`
 * makes each path root-relative; `leadsTo` tells where a path whose links lead elsewhere really is.
 */
export const subjectsOf = (
  params: unknown,
  normalizePath: (p: string) => string = (p) => p,
  leadsTo: (path: string) => string | undefined = () => undefined,
): Subjects | undefined => {
  if (!isRecord(params)) return undefined
  if (typeof params.command === "string") return { kind: "command", values: [params.command] }
  if (Array.isArray(params.args) && params.args.every((a) => typeof a === "string")) return { kind: "command", values: [params.args.join(" ")] }
  if (typeof params.url === "string") {
    try {
      return { kind: "host", values: [new URL(params.url).hostname] }
    } catch {
      return { kind: "host", values: [params.url] }
    }
  }
  const paths = new Set<string>()
  for (const key of ["path", "file_path", "target", "destination"]) if (typeof params[key] === "string") paths.add(params[key] as string)
  if (Array.isArray(params.paths)) for (const p of params.paths) if (typeof p === "string") paths.add(p)
  if (Array.isArray(params.edits)) for (const e of params.edits) if (isRecord(e) && typeof e.path === "string") paths.add(e.path)
  return pathSubjects(paths, normalizePath, leadsTo)
}

/** File paths as subjects: each made root-relative by `normalizePath`, with where its links lead when that differs. */
export const pathSubjects = (
  paths: Iterable<string>,
  normalizePath: (p: string) => string = (p) => p,
  leadsTo: (path: string) => string | undefined = () => undefined,
): Subjects | undefined => {
  const values = [...new Set([...paths].map(normalizePath))]
  if (values.length === 0) return undefined
  const links = values.flatMap((v) => {
    const real = leadsTo(v)
    return real === undefined || real === v ? [] : [[v, real] as const]
  })
  return { kind: "path", values, ...(links.length > 0 ? { leadsTo: Object.fromEntries(links) } : {}) }
}
