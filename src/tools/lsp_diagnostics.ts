import { Effect, Schema } from "effect"
import type { Diagnostic, DiagnosticsResult } from "../lsp/engine.ts"
import { diagnosticLine } from "../lsp/diagnostic-text.ts"
import { Lsp } from "../lsp/service.ts"
import { hint } from "../protocol/hint.ts"
import { defineTool } from "../tool-framework/definition.ts"
import { noProvider, PathParam, readSource, withEngine, lspPrecheck } from "./lsp-common.ts"
import description from "./lsp_diagnostics.md" with { type: "text" }
import { withWorkspaceErrors } from "./workspace-errors.ts"
import { counted } from "../protocol/plural.ts"
import { diagnosticsFilter, withheldSentence } from "./lsp-withheld.ts"


/** Counts per severity, most severe first: "1 error, 2 warnings". */
export const severityCounts = (list: ReadonlyArray<Diagnostic>) => {
  const counts = { error: 0, warning: 0, information: 0, hint: 0 }
  for (const d of list) counts[d.severity]++
  return counts
}

/** The freshness sentence every answer carries. */
export const freshnessText = (r: DiagnosticsResult, waitMs: number): string =>
  r.freshness === "current"
    ? `${r.server} analysed this version of the file (freshness: current).`
    : r.freshness === "stale"
      ? `${r.server} has not answered for this version yet (waited ${waitMs} ms); these diagnostics are ${Math.round((r.ageMs ?? 0) / 1000)} s old, from an earlier version (freshness: stale).`
      : `${r.server} has not finished analysing the file (waited ${waitMs} ms), so nothing is known yet (freshness: pending).`

/**
 * At most this many diagnostics are listed, errors first: a file with thousands (a generated file, a wrong
 * language setting) would otherwise be cut by the output limit, and the answer lose its freshness and counts.
 */
const MAX_LISTED = 200
const SEVERITY_ORDER = { error: 0, warning: 1, information: 2, hint: 3 } as const

/** lsp_diagnostics: a file's errors and warnings from its language server, with how fresh they are. */
export const lspDiagnosticsTool = defineTool({
  name: "lsp_diagnostics",
  requires: [Lsp],
  title: "LspDiagnostics",
  description,
  aliases: ["diagnostics"],
  parameterAliases: { file_path: "path", filePath: "path", file: "path" },
  permission: "allow",
  readOnly: true,
  parameters: Schema.Struct({ path: PathParam }),
  run: ({ path }) =>
    withWorkspaceErrors(Effect.gen(function* () {
      const source = yield* readSource(path)
      const header = `LspDiagnostics: ${source.display}`
      const result = yield* withEngine(source, (engine) => engine.diagnostics(source.absolute, source.text))
      if (result.kind === "no_provider") return noProvider(result, source, "lsp_diagnostics", header)
      const wait = (yield* Lsp).settings.diagnosticsWaitMs
      // What the diagnostics show of files read may not open is left out and counted (lsp-withheld.ts).
      const split = (yield* diagnosticsFilter)?.(result.diagnostics, source)
      const list = split?.kept ?? result.diagnostics
      const withheld = split && split.withheld.length > 0 ? { count: split.withheld.length, rules: split.rules } : undefined
      const counts = severityCounts(list)
      const missing = result.missingHelpers
      const clean = list.length === 0 && withheld === undefined && result.freshness === "current" && missing.length === 0 && result.dropped === 0
      const lines: Array<string> = [`Server: ${result.server} (${result.language})`, freshnessText(result, wait)]
      if (result.dropped > 0) {
        lines.push(`${counted(result.dropped, "diagnostic")} ${result.server} sent could not be read (not LSP's shape: a range and a message) and ${result.dropped === 1 ? "is" : "are"} left out; the list below is not complete.`)
      }
      if (withheld) lines.push(withheldSentence(withheld))
      for (const h of missing) {
        lines.push(`${h.name} is not installed, so ${result.server} cannot report ${h.lost}; an empty list does not mean the file is clean. Install: ${h.install}`)
      }
      const listed = list.length > MAX_LISTED ? [...list].sort((a, b) => SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity]).slice(0, MAX_LISTED) : list
      if (list.length > 0) {
        const summary = (["error", "warning", "information", "hint"] as const).filter((s) => counts[s] > 0).map((s) => counted(counts[s], s))
        lines.push("", `${counted(list.length, "diagnostic")} (${summary.join(", ")}):`, ...listed.map((d) => diagnosticLine(source.display, d)))
        if (listed.length < list.length) lines.push(`… and ${list.length - listed.length} more (the first ${MAX_LISTED} are listed, errors first): fix these and call lsp_diagnostics again.`)
      } else if (clean) {
        lines.push("", "No diagnostics: the file is clean.")
      } else {
        lines.push("", "No diagnostics reported.")
      }
      return {
        status: clean || (result.freshness === "current" && missing.length === 0 && result.dropped === 0) ? ("success" as const) : ("partial" as const),
        header,
        data: {
          path: source.display,
          language: result.language,
          server: result.server,
          freshness: result.freshness,
          ...(result.ageMs !== undefined ? { age_ms: result.ageMs } : {}),
          clean,
          diagnostics: listed,
          ...(listed.length < list.length ? { omitted: list.length - listed.length } : {}),
          ...(result.dropped > 0 ? { unreadable: result.dropped } : {}),
          ...(withheld ? { withheld } : {}),
          counts,
          ...(missing.length > 0 ? { missing_helpers: missing.map((h) => ({ name: h.name, install: h.install })) } : {}),
        },
        text: lines.join("\n"),
        stats: { diagnostics: list.length, errors: counts.error, warnings: counts.warning },
        context: { path_resolved: source.display },
        hints:
          result.freshness === "current"
            ? list.length > 0
              ? [hint("Read", "high", { path: source.display, offset: Math.max(0, list[0]!.line - 3), limit: 10 })]
              : []
            : [hint("LspDiagnostics", "high", { path: source.display })],
      }
    })),
  precheck: lspPrecheck("lsp_diagnostics"),
})
