import { createHash } from "node:crypto"
import { Effect, Schema } from "effect"
import { Config } from "../config/config.ts"
import type { ParsedPatch } from "../patch/model.ts"
import { parsePatch } from "../patch/parse.ts"
import { PatchProblem } from "../patch/patch-problem.ts"
import { planPatch, type FileReport } from "../patch/plan.ts"
import { hint, type RetrievalHint } from "../protocol/hint.ts"
import { counted } from "../protocol/plural.ts"
import { PatchTargetError } from "../patch/patch-target-error.ts"
import { problemToError, targetToError } from "./patch-errors.ts"
import { hardLinkNote } from "../edit/report.ts"
import { defineTool } from "../tool-framework/definition.ts"
import { toolError } from "../protocol/tool-error.ts"
import { FileLedger } from "../workspace/file-ledger.ts"
import { commitChanges } from "../workspace/file-transaction.ts"
import { Workspace } from "../workspace/workspace.ts"
import description from "./patch.md" with { type: "text" }
import { DEFAULT_MAX_FILE_BYTES } from "../config/sections/tools.ts"
import { withWorkspaceErrors } from "./workspace-errors.ts"
import { refuseProtectedPath } from "../sandbox/protected-write.ts"
import { protectionInPrecheck, protectionInRun } from "./call-protection.ts"


type PatchParams = { readonly patch: string; readonly strip?: number }

/**
 * A call's patch, parsed once for its precheck, its permission question and its run (keyed by the parameters
 * object the runner hands all three; parameters an approver replaced are a new object, parsed anew): the parsed
 * patch, or what parsing threw.
 */
const parsedPatches = new WeakMap<PatchParams, { readonly patch: ParsedPatch } | { readonly thrown: unknown }>()
const parsedOnce = (params: PatchParams): { readonly patch: ParsedPatch } | { readonly thrown: unknown } => {
  let parsed = parsedPatches.get(params)
  if (parsed === undefined) {
    try {
      parsed = { patch: parsePatch(params.patch, params.strip === undefined ? {} : { strip: params.strip }) }
    } catch (thrown) {
      parsed = { thrown }
    }
    parsedPatches.set(params, parsed)
  }
  return parsed
}

/** The paths a patch names (old and new names), or none when it does not parse. */
const parsedPaths = (params: PatchParams): ReadonlyArray<string> => {
  const parsed = parsedOnce(params)
  if (!("patch" in parsed)) return []
  return [...new Set(parsed.patch.files.flatMap((f) => [f.oldPath, f.newPath].filter((p): p is string => p !== undefined)))]
}

/** patch: apply a unified diff or a `*** Begin Patch` envelope to many files, all or nothing. */
export const patchTool = defineTool({
  name: "patch",
  title: "Patch",
  description,
  aliases: ["apply_patch", "apply_diff", "applypatch"],
  parameterAliases: { diff: "patch", input: "patch", patch_text: "patch", patchText: "patch", dryRun: "dry_run", p: "strip" },
  permission: "ask",
  // The files the patch touches as the patch itself names them (renames, copies, quoted names included); a patch
  // that does not parse fails before it touches anything.
  permissionSubjects: (params) => {
    const paths = parsedPaths(params)
    return paths.length === 0 ? undefined : { kind: "path", values: paths }
  },
  readOnly: false,
  parameters: Schema.Struct({
    patch: Schema.String.annotate({
      description: "The patch text.",
    }),
    dry_run: Schema.optionalKey(
      Schema.Boolean.annotate({ description: "Check and report without writing." }),
    ),
    strip: Schema.optionalKey(
      Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)).annotate({
        description: "Like `patch -p` (default: detect a/ b/).",
      }),
    ),
  }),
  // Every path the patch names that is protected (git hooks, anvil.json, .vscode/…) is refused before anyone is
  // asked to approve it; a patch that does not parse is left for the run to report.
  precheck: (params) =>
    withWorkspaceErrors(
      Effect.forEach(
        parsedPaths(params),
        (p) => refuseProtectedPath(p, "patch", " Nothing was changed."),
        { discard: true },
      ),
    ).pipe(protectionInPrecheck(params)),
  run: (params) =>
    withWorkspaceErrors(Effect.gen(function* () {
      const config = yield* Config
      const workspace = yield* Workspace
      const ledger = yield* FileLedger
      const dryRun = params.dry_run === true
      const maxFileBytes = config.get("tools.patch.max_file_bytes", DEFAULT_MAX_FILE_BYTES)

      const once = parsedOnce(params)
      if ("thrown" in once) {
        const e = once.thrown
        return yield* e instanceof PatchProblem ? problemToError(e) : toolError("INTERNAL_ERROR", `Could not parse the patch: ${String(e)}`)
      }
      const parsed = once.patch
      const plan = yield* planPatch(parsed, { maxFileBytes }).pipe(
        Effect.mapError((e) => (e instanceof PatchProblem ? problemToError(e) : e instanceof PatchTargetError ? targetToError(e) : e)),
      )
      if (!dryRun && plan.changes.length > 0) {
        const committed = yield* commitChanges(plan.changes, {
          root: workspace.root,
          contains: workspace.contains,
          journalDir: workspace.stateDir("journal"),
        })
        for (const [i, c] of plan.changes.entries()) {
          const done = committed[i]
          if (!c.after || done?.size === undefined) continue
          yield* ledger.record(done.real, {
            mtimeMs: done.mtimeMs ?? 0,
            size: done.size,
            sha256: createHash("sha256").update(c.after.bytes).digest("hex"),
          })
        }
      }

      // A dry run leaves every name of a file as it was.
      const reports = dryRun ? plan.reports.map(({ hard_links_kept_old: _, ...r }) => r) : plan.reports
      const additions = reports.reduce((n, r) => n + r.additions, 0)
      const deletions = reports.reduce((n, r) => n + r.deletions, 0)
      const hunks = reports.reduce((n, r) => n + r.hunks, 0)
      // A file the patch names in several sections (git format-patch series, one diff after another) is one file.
      const fileCount = new Set(reports.map((r) => r.path)).size
      const files = fileCount === 1 ? "1 file" : `${fileCount} files`
      // A hunk placed only by ignoring differences, or at the nearest of several equal places, may not be where its
      // author meant: the result is usable but discounted, as for an edit found by a loose match.
      const loose = reports.reduce((n, r) => n + (r.fuzz?.length ?? 0) + (r.offsets ?? []).filter((o) => o.other_matches).length, 0)
      const summary = dryRun
        ? `Dry run: the patch applies ${loose > 0 ? "" : "cleanly "}to ${files} (+${additions} -${deletions}). Dry-run only, no actual write performed.`
        : plan.changes.length === 0
          ? `The patch applied to ${files} but left every file as it was (nothing to write).`
          : `Applied the patch to ${files} (+${additions} -${deletions}).`
      const caution = loose > 0 ? [`Not an exact match: ${counted(loose, "hunk")} placed loosely (see below); check ${loose === 1 ? "it" : "them"}.`] : []
      const hints: Array<RetrievalHint> = dryRun ? [hint("Patch", "high", { patch: "<the same patch>", dry_run: false })] : []
      // The check the caution asks for: a Read of each loosely placed hunk (the first three).
      const looseAt = reports.flatMap((r) => [...(r.fuzz ?? []), ...(r.offsets ?? []).filter((o) => o.other_matches)].map((h) => ({ path: r.path, line: h.line })))
      for (const h of looseAt.slice(0, 3)) hints.push(hint("Read", dryRun ? "medium" : "high", { path: h.path, offset: Math.max(0, h.line - 6), limit: 20 }))
      return {
        status: dryRun || loose > 0 ? ("partial" as const) : ("success" as const),
        header: fileCount === 1 ? `Patch: ${reports[0]!.path}` : `Patch: ${files}`,
        data: { applied: !dryRun, dry_run: dryRun, format: parsed.format, files: reports },
        text: [summary, ...caution, "", ...reports.flatMap(describeFile)].join("\n"),
        stats: { files: fileCount, hunks, additions, deletions },
        hints,
        meta: {
          file_ops: reports.map((r) => ({ file_path: r.path, operation: r.operation, ...(r.old_path ? { old_path: r.old_path } : {}) })),
        },
      }
    })).pipe(protectionInRun(params)),
})

const LETTER: Record<FileReport["operation"], string> = { modify: "M", create: "A", delete: "D", rename: "R", copy: "C", mode: "M" }

/** "M src/a.ts (+3 -1, 2 hunks)" and notes on modes, moved hunks and loose matches. */
const describeFile = (r: FileReport): Array<string> => {
  const name = r.old_path ? `${r.old_path} -> ${r.path}` : r.path
  const counts =
    r.hunks === 0
      ? r.operation === "delete" && r.deletions > 0
        ? ` (+0 -${r.deletions})`
        : r.operation === "delete" || r.operation === "create"
          ? " (empty)"
          : ""
      : ` (+${r.additions} -${r.deletions}, ${r.hunks} hunk${r.hunks === 1 ? "" : "s"})`
  const lines = [`${LETTER[r.operation]} ${name}${counts}`]
  if (r.new_mode) lines.push(r.old_mode ? `  mode ${r.old_mode} -> ${r.new_mode}` : `  mode ${r.new_mode}`)
  for (const o of r.offsets ?? []) {
    const others = o.other_matches ? `; its lines also match ${o.other_matches} other place${o.other_matches === 1 ? "" : "s"}, the nearest was taken: check it` : ""
    lines.push(`  hunk ${o.hunk} applied at line ${o.line} (its header said ${o.expected_line}${others})`)
  }
  for (const f of r.fuzz ?? []) lines.push(`  hunk ${f.hunk} matched at line ${f.line} only when ignoring ${f.tolerance.replace("_", " ")} differences`)
  if (r.hard_links_kept_old !== undefined) lines.push(`  ${hardLinkNote(r.hard_links_kept_old)}`)
  return lines
}
