import type { Diagnostic } from "./engine.ts"

/** `a.py:3:5: error: undefined name 'x' [pyflakes F821]` */
export const diagnosticLine = (display: string, d: Diagnostic): string =>
  `${display}:${d.line}:${d.character}: ${d.severity}: ${d.message}${d.source || d.code ? ` [${[d.source, d.code].filter(Boolean).join(" ")}]` : ""}`
