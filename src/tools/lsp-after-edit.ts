import { Effect, Layer } from "effect"
import { Path } from "effect/Path"
import type { DiagnosticsResult, NoProvider } from "../lsp/engine.ts"
import { diagnosticLine } from "../lsp/diagnostic-text.ts"
import { Lsp } from "../lsp/service.ts"
import { AfterChange, type AfterChangeNote } from "../tool-framework/after-change.ts"
import { Workspace } from "../workspace/workspace.ts"
import { readCheckedFile } from "../workspace/checked-fs.ts"
import { DEFAULT_MAX_FILE_BYTES } from "../config/sections/tools.ts"
import { diagnosticsFilter, withheldSentence, type DiagnosticsWithheld } from "./lsp-withheld.ts"

/** Errors shown per file; the rest are counted and left to lsp_diagnostics. */
const SHOWN_ERRORS = 5
/** Files checked per change (a large patch is not checked file by file). */
const CHECKED_FILES = 5

type Checked =
  | { readonly path: string; readonly result: DiagnosticsResult | NoProvider; readonly withheld?: DiagnosticsWithheld }
  | { readonly path: string; readonly failure: string }

/**
 * After write/edit/multiedit/patch: the new errors of each changed file that
 * has a language server, so a broken edit shows in the same answer. Files of
 * languages without a server pass silently (the install hint is given once).
 * `lsp.after_edit: false` turns it off.
 */
export const makeLspAfterChange = Effect.gen(function* () {
  const lsp = yield* Lsp
  const workspace = yield* Workspace
  const path = yield* Path
  const filter = yield* diagnosticsFilter
  const checkOne = (file: string): Effect.Effect<Checked | undefined> =>
    Effect.gen(function* () {
      const absolute = path.resolve(workspace.root, file)
      // Read as the file tools read (checked, without blocking): another process may have put a link to a file
      // outside, or a FIFO, in its place since the change, and a plain read would follow it or hang on it.
      const bytes = readCheckedFile(workspace.contains, absolute, DEFAULT_MAX_FILE_BYTES)
      if (bytes === undefined) return undefined
      const text = new TextDecoder().decode(bytes)
      if (!lsp.covers(absolute, text.slice(0, 200).split("\n")[0])) return undefined
      const result = yield* lsp.use((engine) => engine.diagnostics(absolute, text))
      if (result.kind === "no_provider") return { path: file, result }
      // What the errors show of files read may not open is left out and counted, as lsp_diagnostics does.
      const split = filter?.(result.diagnostics, { display: file, text })
      if (split === undefined || split.withheld.length === 0) return { path: file, result }
      // Only errors are shown here, so only the errors withheld are counted.
      const errors = split.withheld.filter((d) => d.severity === "error").length
      return { path: file, result: { ...result, diagnostics: split.kept }, ...(errors > 0 ? { withheld: { count: errors, rules: split.rules } } : {}) }
    }).pipe(Effect.catch((e) => Effect.succeed({ path: file, failure: e.message })))
  return AfterChange.of({
    check: (files) =>
      !lsp.afterEdit
        ? Effect.succeed(undefined)
        : Effect.gen(function* () {
            const checked = (yield* Effect.forEach(files.slice(0, CHECKED_FILES), checkOne)).filter((c) => c !== undefined)
            return note(checked, files.slice(CHECKED_FILES))
          }),
  })
})

/** {@link makeLspAfterChange} as a layer. */
export const lspAfterChange = Layer.effect(AfterChange, makeLspAfterChange)

const note = (checked: ReadonlyArray<Checked>, unchecked: ReadonlyArray<string>): AfterChangeNote | undefined => {
  const lines: Array<string> = []
  const data: Array<Record<string, unknown>> = []

  for (const c of checked) {
    if ("failure" in c) {
      lines.push(`LSP check of ${c.path} failed: ${c.failure}`)
      data.push({ path: c.path, freshness: "error", message: c.failure })
      continue
    }
    const r = c.result
    if (r.kind === "no_provider") {
      if (r.crashed !== undefined) {
        lines.push(`Edits to ${c.path} are not checked: ${r.crashed.server} kept crashing (${r.crashed.crashes} times) and is not started again in this session; lsp_diagnostics(path="${c.path}") says how to see its log.`)
        data.push({ path: c.path, server: r.crashed.server, freshness: "no_provider" })
      } else if (r.firstHint && r.untrusted !== undefined) lines.push(`Edits to ${c.path} are not checked: the ${r.language} language server was not started: ${r.untrusted}`)
      else if (r.firstHint && r.install) lines.push(`No ${r.language} language server is installed, so edits to ${c.path} are not checked. Install one: ${r.install}`)
      continue
    }
    const errors = r.diagnostics.filter((d) => d.severity === "error")
    data.push({ path: c.path, server: r.server, freshness: r.freshness, errors: errors.length, diagnostics: errors.slice(0, SHOWN_ERRORS), ...(c.withheld ? { withheld: c.withheld } : {}) })
    if (c.withheld) lines.push(`${c.path}: ${withheldSentence(c.withheld)}`)
    const more = `lsp_diagnostics(path="${c.path}")`
    if (r.freshness !== "current") {
      lines.push(`${r.server} had not finished checking ${c.path} (freshness: ${r.freshness}); call ${more} to see its errors.`)
    } else if (errors.length > 0) {
      lines.push(
        `${r.server} reports ${errors.length === 1 ? "1 error" : `${errors.length} errors`} in ${c.path} after this change:`,
        ...errors.slice(0, SHOWN_ERRORS).map((d) => diagnosticLine(c.path, d)),
        errors.length > SHOWN_ERRORS ? `… and ${errors.length - SHOWN_ERRORS} more: call ${more} for all of them.` : `Warnings are not shown here: call ${more} for them.`,
      )
    } else if (r.missingHelpers.length > 0) {
      lines.push(`${c.path} was not fully checked: ${r.missingHelpers.map((h) => `${h.name} is not installed (${h.install})`).join("; ")}.`)
    }
  }
  if (unchecked.length > 0 && checked.length > 0) {
    // Said when a server covers the change at all; the files left are named so each can be checked.
    lines.push(`Only the first ${CHECKED_FILES} changed files were checked; ${unchecked.length} not checked (call lsp_diagnostics on each): ${unchecked.join(", ")}.`)
    for (const path of unchecked) data.push({ path, freshness: "not_checked" })
  }
  if (data.length === 0 && lines.length === 0) return undefined
  return { key: "lsp", data, text: lines.join("\n") }
}
