import { parseFrontMatter, type FrontMatterResult, type FrontMatterValue } from "./front-matter.ts"

/**
 * Front matter whose value runs on over unindented lines, as many published Claude Code agents write a long
 * `description:` (examples with `Context:`, `user:` and `assistant:` lines, blank lines, `<example>` tags) before
 * `model:` or `color:`. YAML refuses such a file; Claude Code's plugin loader then drops the whole front matter
 * (name, description, tools) and its `.claude/agents/` loader drops the agent. Here, when the strict reading fails,
 * the front matter is cut at the lines that begin with a field the caller knows (given twice, it is refused), each
 * part is read alone, and a part YAML still refuses is taken as the text written: its first line's value and the lines
 * after it. A note says which field was read so and how to write it; what is still refused keeps its reason and line.
 */

/** The fields of a Claude Code subagent's front matter (docs: sub-agents, "Supported frontmatter fields"). */
export const AGENT_FIELDS: ReadonlySet<string> = new Set([
  "name", "description", "tools", "disallowedTools", "model", "color", "permissionMode", "skills", "hooks",
  "mcpServers", "memory", "maxTurns", "effort", "background", "isolation", "initialPrompt",
])

/** The fields of a SKILL.md or a slash command (Agent Skills' and Claude Code's). */
export const SKILL_FIELDS: ReadonlySet<string> = new Set([
  "name", "description", "license", "compatibility", "metadata", "allowed-tools", "disallowed-tools", "argument-hint",
  "arguments", "when_to_use", "version", "user-invocable", "disable-model-invocation", "model", "effort", "context",
  "agent", "hooks", "paths", "shell", "hide-from-slash-command-tool",
])

/** A field line as YAML reads one at the margin: the key bare or quoted, spaces allowed before the colon. */
const FIELD_LINE = /^(["']?)([A-Za-z_][\w-]*)\1[ \t]*:(?:[ \t]|$)/

/** A line that would be a field were it not indented: read as part of a value, it could hide a restriction (`tools:`). */
const INDENTED_FIELD_LINE = /^[ \t]+(["']?)([A-Za-z_][\w-]*)\1[ \t]*:(?:[ \t]|$)/

/** One field's lines: its key, its 1-based line in the file, and the lines (the first holds `key:`). */
interface Part {
  readonly key: string
  readonly line: number
  readonly lines: ReadonlyArray<string>
}

/** The parts of `source` (the front matter between the `---` lines), or undefined when the first line is no known field or one is given twice. */
const partsOf = (source: string, fields: ReadonlySet<string>): Array<Part> | undefined => {
  const parts: Array<{ key: string; line: number; lines: Array<string> }> = []
  const seen = new Set<string>()
  const lines = source.split("\n")
  for (const [i, text] of lines.entries()) {
    const key = FIELD_LINE.exec(text)?.[2]
    if (key !== undefined && fields.has(key)) {
      // A field given twice is a mistake YAML names (a duplicate key), not a value running on.
      if (seen.has(key)) return undefined
      seen.add(key)
      parts.push({ key, line: i + 2, lines: [text] })
    } else if (parts.length > 0) parts[parts.length - 1]!.lines.push(text)
    else if (text.trim() !== "" && !text.trimStart().startsWith("#")) return undefined
  }
  return parts
}

/** Whether every line that holds text is indented. */
const indented = (lines: ReadonlyArray<string>): boolean => lines.every((l) => l.trim() === "" || /^[ \t]/.test(l))

/**
 * A part YAML refuses, as the text written: the first line's value, then the other lines, trailing blank lines
 * dropped. Lines all indented are folded as YAML folds a plain value (one space between lines, a blank line a line
 * break); unindented ones (examples, tags) keep their line breaks.
 */
const asWritten = (part: Part): string => {
  const first = part.lines[0]!.slice(part.key.length + 1).trim()
  const rest = part.lines.slice(1)
  if (!indented(rest)) return [first, ...rest].join("\n").trim()
  return [first, ...rest.map((l) => l.trim())]
    .join("\n")
    .trim()
    .replace(/([^\n])\n(?=[^\n])/g, "$1 ")
    .replace(/\n\n/g, "\n")
}

/**
 * Reads `text`'s front matter as {@link parseFrontMatter} does; when that fails, reads it part by part (see the module
 * comment) with the fields `fields` names. The first refusal is returned when the parts cannot be read either.
 */
export const parseContinuedFrontMatter = (text: string, fields: ReadonlySet<string>): FrontMatterResult => {
  const strict = parseFrontMatter(text)
  if (strict.ok) return strict
  const all = text.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n").split("\n")
  const close = all.findIndex((line, j) => j > 0 && (line.trimEnd() === "---" || line.trimEnd() === "..."))
  if (all[0]?.trimEnd() !== "---" || close < 0) return strict
  const parts = partsOf(all.slice(1, close).join("\n"), fields)
  if (parts === undefined || parts.length === 0) return strict
  const out: Record<string, FrontMatterValue> = {}
  const notes: Array<string> = []
  const continued: Array<string> = []
  for (const part of parts) {
    const alone = parseFrontMatter(`---\n${part.lines.join("\n")}\n---\n`)
    // Alone it may read as YAML with more keys (`Context: …` under the description): those lines are the value's.
    if (alone.ok && Object.keys(alone.fields).length === 1 && part.key in alone.fields) {
      out[part.key] = alone.fields[part.key]!
      notes.push(...alone.notes.map((n) => n.replace(/^line (\d+)/, (_, l: string) => `line ${Number(l) + part.line - 2}`)))
      continue
    }
    const runsOn = part.lines.slice(1).some((l) => l.trim() !== "")
    // Taking such a line as the value's text would drop the field it may be (an agent's `tools:` then gave every tool):
    // refused, so that a lenient reading never widens what the file allows.
    const hidden = part.lines.findIndex((l, k) => k > 0 && fields.has(INDENTED_FIELD_LINE.exec(l)?.[2] ?? ""))
    if (hidden > 0) {
      const key = INDENTED_FIELD_LINE.exec(part.lines[hidden]!)![2]!
      return {
        ok: false,
        reason:
          `the value of '${part.key}' is not valid YAML and runs on over a line that reads as the field '${key}' indented; ` +
          `it cannot be told whether '${key}' is meant, so the front matter is not read: quote the value of '${part.key}' ` +
          `(or write it under '${part.key}: |') and put '${key}:' at the start of its line if it is a field`,
        line: part.line + hidden,
      }
    }
    // One line YAML refuses even as prose (an unclosed quote, a bad escape): that is the reason, with its line.
    if (!runsOn) return alone.ok ? strict : { ok: false, reason: alone.reason, line: part.line }
    out[part.key] = asWritten(part)
    continued.push(part.key)
    const last = part.line + part.lines.findLastIndex((l) => l.trim() !== "")
    const how = indented(part.lines.slice(1)) ? "holds ': ' and runs on over several lines unquoted" : "continues on unindented lines"
    notes.push(
      `lines ${part.line}-${last}: the value of '${part.key}' ${how}, which YAML does not allow (Claude Code drops this front matter); ` +
        `it was read as the text written, up to the next field (indent the lines under '${part.key}: |' for other YAML readers)`,
    )
  }
  return { ok: true, fields: out, body: all.slice(close + 1).join("\n"), notes, continued }
}
