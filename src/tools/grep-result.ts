import { hint, shellQuote, type RetrievalHint } from "../protocol/hint.ts"
import type { GrepResult, ShownFile } from "../search/grep.ts"
import { matchLines } from "../search/grep-report.ts"
import type { OutputMode } from "../search/search-types.ts"
import type { ToolResult } from "../tool-framework/definition.ts"
import { counted } from "../protocol/plural.ts"
import type { GrepSettings } from "./grep-settings.ts"
import { ASKED_NEXT_STEP, askedNote } from "./hidden-search.ts"

/** What of the call the rendering repeats. */
interface GrepCall {
  readonly pattern: string
  readonly include?: string | undefined
  readonly max_matches?: number | undefined
}

/** The call as the search ran it: mode, case, the match limits and the context (capped). */
export interface Shape {
  readonly mode: OutputMode
  readonly caseSensitive: boolean
  readonly requestedMax: number
  readonly maxMatches: number
  readonly capNote: string | undefined
  readonly before: number
  readonly after: number
}

/** What was found as the model reads it: matching lines (with context), files, or counts; newest files first. */
export const grepResult = (
  params: GrepCall,
  settings: GrepSettings,
  { mode, caseSensitive, requestedMax, maxMatches, capNote, before, after }: Shape,
  r: GrepResult,
): ToolResult => {
  const hasInclude = params.include !== undefined && params.include.trim() !== ""
  const { shown, shownFiles, stopped, totalLines, engine, fallbackReason } = r
  const totalFiles = r.found.length
  const lowerBound = stopped !== undefined
  // The data holds max_matches (default 200) as before; the model reads fewer unless the call asked for a number.
  const textMax = params.max_matches === undefined ? Math.min(maxMatches, settings.shownMatches) : maxMatches
  const listed = mode === "content" ? shownFiles : shownFiles.slice(0, maxMatches)

  let data: Record<string, unknown>
  let render: (max: number) => ReadonlyArray<string>
  // The saved complete list: every file with the number of its matching lines.
  let renderAll: () => ReadonlyArray<string> = () => render(Number.MAX_SAFE_INTEGER)
  let shownCount: number
  let totalUnits: number
  if (mode === "content") {
    const report = (max: number, countsInHeaders = false) =>
      matchLines(shownFiles, { maxMatches: max, before, after, maxLineLength: settings.maxLineLength, countsInHeaders })
    const { matches } = report(maxMatches)
    render = (max) => report(max).lines
    renderAll = () => report(Number.MAX_SAFE_INTEGER, true).lines
    shownCount = matches.length
    totalUnits = totalLines
    data = { matches, total_matches: totalLines, total_files: totalFiles }
  } else {
    const line = mode === "count" ? (s: ShownFile) => `${s.display}: ${s.f.matchedLines}` : (s: ShownFile) => `${s.display} (${s.f.matchedLines})`
    render = (max) => shownFiles.slice(0, max).map(line)
    shownCount = listed.length
    totalUnits = totalFiles
    data =
      mode === "count"
        ? { counts: listed.map((s) => ({ file: s.display, count: s.f.matchedLines })), total_files: totalFiles, total_matches: totalLines }
        : { files: listed.map((s) => s.display), total_files: totalFiles, total_matches: totalLines }
  }
  const body = render(textMax)
  const textCount = mode === "content" ? body.filter((l) => l.startsWith("  ") && !l.startsWith("  --") && /^ {2}\d+:/.test(l)).length : body.length
  const truncated = shownCount < totalUnits
  const cutInText = textCount < totalUnits
  const status = truncated || stopped !== undefined || fallbackReason !== undefined || r.failed.length > 0 ? "partial" : "success"

  const atLeast = lowerBound ? "at least " : ""
  const totals =
    mode === "content"
      ? `${atLeast}${counted(totalLines, "match", "matches")} in ${counted(totalFiles, "file")}`
      : `${atLeast}${counted(totalFiles, "file")} (${counted(totalLines, "matching line")})`
  const head: Array<string> = []
  if (shown !== "." || hasInclude) head.push(`Path: ${shown}${hasInclude ? ` (include: ${params.include})` : ""}`)
  if (totalFiles === 0) {
    head.push(`No matches for '${params.pattern}' (${caseSensitive ? "case-sensitive" : "case-insensitive"})${stopped ? " before the search stopped" : ""}.`)
  } else {
    const files = mode === "content" ? new Set(body.filter((l) => !l.startsWith("  "))).size : textCount
    head.push(`${totals[0]!.toUpperCase()}${totals.slice(1)}, newest files first${cutInText ? `; shown: ${mode === "content" ? `${textCount} in ${counted(files, "file")}` : textCount}` : ""}.`)
  }
  if (fallbackReason !== undefined) head.push(`(${fallbackReason}; used the slower built-in search instead.)`)
  if (stopped === "timeout") head.push(`(Search stopped at the ${settings.timeoutMs} ms timeout; results and totals are incomplete.)`)
  if (stopped === "collect_limit") head.push(`(Search stopped after ${settings.maxStoredLines} matching lines; totals are lower bounds.)`)
  if (stopped === "max_entries") head.push(`(Search stopped after visiting ${settings.maxEntries} entries; results are incomplete.)`)
  for (const note of [requestedMax > maxMatches ? `(max_matches ${requestedMax} capped at ${settings.maxMatchesLimit})` : undefined, capNote]) if (note) head.push(note)
  if (r.failed.length > 0) head.push(`(${counted(r.failed.length, "file or folder", "files or folders")} could not be read and ${r.failed.length === 1 ? "is" : "are"} left out: ${r.failed.slice(0, 5).join(", ")}${r.failed.length > 5 ? ", … (data.failed_items)" : ""}.)`)
  const denied = settings.hidden ? ", files the permission rules deny reading" : ""
  if (totalFiles === 0) head.push(`Searched: hidden files included; .git, binary files, ignored files (.gitignore/.ignore)${denied} and node_modules/build/dist/… skipped.`)
  // What read asks about is not searched (hidden-paths.ts): the answer says by which rules, and that read asks.
  const asked = settings.hidden?.askRulesIn(shown) ?? []
  if (asked.length > 0) head.push(askedNote(asked))
  if (r.warnings.length > 0) head.push(`Warnings: ${r.warnings.slice(0, 5).join("; ")}${r.warnings.length > 5 ? `; and ${r.warnings.length - 5} more (data.warnings)` : ""}`)
  const text = body.length > 0 ? `${head.join("\n")}\n\n${body.join("\n")}` : head.join("\n")

  const hints: Array<RetrievalHint> = []
  if ((truncated || cutInText || lowerBound) && mode === "content") {
    hints.push(hint("Grep", "medium", { pattern: params.pattern, path: shown, ...(params.include ? { include: params.include } : {}), output_mode: "files_with_matches" }))
  } else if (truncated || lowerBound) {
    hints.push(hint("Grep", "medium", { pattern: params.pattern, path: shown, ...(params.include ? { include: params.include } : {}), output_mode: mode, max_matches: settings.maxMatchesLimit }))
  }
  // What could not be read: its owner and mode say why.
  if (r.failed.length > 0) hints.push(hint("Bash", "low", { command: `ls -ld ${r.failed.slice(0, 3).map(shellQuote).join(" ")}` }))

  const result: ToolResult = {
    status,
    header: mode === "content" ? `Grep: ${params.pattern}` : `Grep (${mode}): ${params.pattern}`,
    data: {
      ...data,
      truncated,
      total_matches_is_lower_bound: lowerBound,
      engine,
      ...(fallbackReason !== undefined ? { fallback: "builtin", fallback_reason: fallbackReason } : {}),
      ...(stopped ? { aborted_reason: stopped } : {}),
      ...(r.warnings.length > 0 ? { warnings: r.warnings } : {}),
      ...(r.failed.length > 0 ? { failed_items: r.failed } : {}),
      ...(capNote ? { context_capped: { before_context: before, after_context: after, max_context: settings.maxContext } } : {}),
      search_path: shown,
      ...(asked.length > 0 ? { not_searched: { rules: asked, next_step: ASKED_NEXT_STEP } } : {}),
    },
    text,
    stats: {
      total_matches: totalLines,
      total_files: totalFiles,
      returned: shownCount,
      ...(r.filesSearched !== undefined ? { files_searched: r.filesSearched } : {}),
      engine,
    },
    context: { path_resolved: shown, sorted_by: "mtime_desc" },
    hints,
    ...(truncated || lowerBound
      ? { truncation: { reason: [truncated ? "match_limit" : "", stopped ?? ""].filter(Boolean).join(","), total_estimate: totalUnits } }
      : {}),
    // What the text leaves out is saved whole (lines each file kept, every file), and the text says where.
    ...(cutInText
      ? {
          full: {
            text: renderAll().join("\n"),
            what: totals,
            shownLines: body.length,
            data: { counts: shownFiles.map((s) => ({ file: s.display, count: s.f.matchedLines })) },
          },
        }
      : {}),
  }
  return result
}
