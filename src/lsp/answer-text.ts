import type { RawDiagnostic } from "./client.ts"
import { fromLspPosition } from "./positions.ts"

/** A server's answers as tools show them: diagnostics with 1-based positions, hovers as Markdown. */

/** One diagnostic as tools show it: 1-based lines and characters (code points). */
export interface Diagnostic {
  readonly severity: "error" | "warning" | "information" | "hint"
  readonly line: number
  readonly character: number
  readonly end_line: number
  readonly end_character: number
  readonly message: string
  readonly source: string | null
  readonly code: string | null
}

const SEVERITIES = ["error", "error", "warning", "information", "hint"] as const

export const toDiagnostic = (d: RawDiagnostic, lines: ReadonlyArray<string>): Diagnostic => {
  const start = fromLspPosition(lines, d.range.start)
  const end = fromLspPosition(lines, d.range.end)
  const code = typeof d.code === "object" && d.code !== null ? d.code.value : d.code
  return {
    severity: SEVERITIES[d.severity ?? 1] ?? "error",
    line: start.line,
    character: start.character,
    end_line: end.line,
    end_character: end.character,
    message: d.message,
    source: d.source ?? null,
    code: code === undefined || code === null ? null : String(code),
  }
}

/** Hover contents (MarkupContent, MarkedString or MarkedString[]) as Markdown. */
export const hoverMarkdown = (result: unknown): string => {
  const contents = (result as { contents?: unknown } | null)?.contents
  const one = (c: unknown): string => {
    if (typeof c === "string") return c
    if (c && typeof c === "object") {
      const r = c as { kind?: string; language?: string; value?: string }
      if (typeof r.language === "string") return `\`\`\`${r.language}\n${r.value ?? ""}\n\`\`\``
      if (typeof r.value === "string") return r.value
    }
    return ""
  }
  const parts = Array.isArray(contents) ? contents.map(one) : [one(contents)]
  return parts
    .map((p) => p.trim().replace(/\n{3,}/g, "\n\n"))
    .filter((p) => p !== "")
    .join("\n\n---\n\n")
}
