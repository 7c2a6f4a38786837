import { Effect, Schema } from "effect"
import { fileTypeName, readAllFd } from "../workspace/checked-fs.ts"
import { openCheckedScoped } from "../workspace/checked-open.ts"
import type { LspEngine, NoProvider } from "../lsp/engine.ts"
import type { LspError } from "../lsp/errors.ts"
import { Lsp } from "../lsp/service.ts"
import { hint } from "../protocol/hint.ts"
import { invalidParam, toolError, type ToolError } from "../protocol/tool-error.ts"
import type { ToolResult } from "../tool-framework/definition.ts"
import { Workspace } from "../workspace/workspace.ts"
import type { Config } from "../config/config.ts"
import { refuseHiddenRoot } from "./hidden-search.ts"
import { refuseEmptyPath } from "../workspace/file-path.ts"
import { inTheWayNote, pathStop } from "../workspace/file-in-the-way.ts"

/** Larger files are not sent to a server. */
const MAX_SOURCE_BYTES = 8 * 1024 * 1024

export const PathParam = Schema.String.annotate({ description: "The file." })
export const LineParam = Schema.Int.annotate({ description: "1-based, as read shows it." })
export const CharacterParam = Schema.Int.annotate({
  description: "1-based character in the line (a tab counts 1).",
})

/** What lsp_definition and lsp_hover share: read-only, allowed, a position in a file. */
export const positionTool = {
  parameterAliases: { file_path: "path", filePath: "path", file: "path", column: "character", col: "character" },
  permission: "allow",
  readOnly: true,
  parameters: Schema.Struct({ path: PathParam, line: LineParam, character: CharacterParam }),
} as const

/**
 * An LSP tool's precheck: a file read denies or asks about is refused as read refuses it (a server's answer about
 * a file shows what it holds). Typed with the tools' services, which `run` needs too.
 */
export const lspPrecheck =
  (tool: string) =>
  (params: { readonly path: string }): Effect.Effect<void, ToolError, Config | Workspace | Lsp> =>
    refuseHiddenRoot(tool, params.path)

/** A file an LSP tool asks about: checked against the project, read as text. */
export interface Source {
  readonly absolute: string
  readonly display: string
  readonly text: string
}

/** `line` (1-based, when the call names one) places the Read offered instead for a file too large for a server. */
export const readSource = (path: string, line?: number) =>
  Effect.gen(function* () {
    const workspace = yield* Workspace
    yield* refuseEmptyPath(path)
    const resolved = yield* workspace.resolve(path, "path")
    const missing = () => {
      const stop = pathStop(resolved.absolute, resolved.display)
      return toolError("NOT_FOUND", `File not found: ${resolved.display}${inTheWayNote(stop?.inTheWay)}`, {
        hints: [...(stop?.inTheWay !== undefined ? [hint("LS", "medium", { path: stop.folder })] : []), hint("Glob", "medium", { pattern: `**/${resolved.display.split("/").pop()}` })],
      })
    }
    if (!resolved.exists) return yield* missing()
    // Opened first (without blocking) and its real place checked: a link swapped in after resolve() or a FIFO
    // named like a source file can neither lead outside nor hang the call.
    return yield* Effect.scoped(
      Effect.gen(function* () {
        const opened = yield* openCheckedScoped(workspace.contains, resolved.absolute, path, resolved.display)
        if (opened === undefined) return yield* missing()
        if (opened.stat.isDirectory()) return yield* toolError("IS_DIRECTORY", `${resolved.display} is a directory, not a file. Use LS to list it.`)
        if (!opened.stat.isFile()) return yield* invalidParam("path", `${resolved.display} is not a regular file (${fileTypeName(opened.stat)}); language servers read source files.`)
        const size = Number(opened.stat.size)
        if (size > MAX_SOURCE_BYTES) {
          // The path is right and naming it again fares the same: the next step is grep or read on this very file.
          const near = line === undefined ? {} : { offset: Math.max(0, line - 11), limit: 21 }
          return yield* invalidParam("path", `${resolved.display} is ${size} bytes; LSP tools take files up to ${MAX_SOURCE_BYTES} bytes. Use grep or read.`, [
            hint("Grep", "high", { pattern: "<symbol>", path: resolved.display }),
            hint("Read", "medium", { path: resolved.display, ...near }),
          ])
        }
        const bytes = readAllFd(opened.fd, size)
        if (bytes.includes(0)) return yield* toolError("BINARY_FILE", `${resolved.display} is a binary file; language servers read source text.`)
        return { absolute: opened.real, display: resolved.display, text: new TextDecoder().decode(bytes) } satisfies Source
      }),
    )
  })

/** Runs `f` on the engine with the tool's file, translating LSP failures into envelope errors. */
export const withEngine = <A>(source: Source, f: (engine: LspEngine) => Promise<A>): Effect.Effect<A, ToolError, Lsp> =>
  Effect.gen(function* () {
    const lsp = yield* Lsp
    return yield* lsp.use(f).pipe(Effect.mapError((e) => translate(e, source.display)))
  })

const translate = (e: LspError, display: string): ToolError => {
  const fallback = [hint("Grep", "medium", { pattern: "<symbol>", path: display }), hint("Read", "medium", { path: display })]
  switch (e._tag) {
    case "LspPositionError":
      return invalidParam(e.field, e.message, [hint("Read", "high", { path: display })])
    case "LspRequestError":
      return toolError(e.timedOut ? "TIMEOUT" : "EXECUTION_ERROR", e.message, { hints: fallback, retryable: e.final !== true })
    case "LspStartError":
      return toolError("EXECUTION_ERROR", `${e.message} Check the server's command in anvil.json (lsp section) or use grep/read meanwhile.`, { hints: fallback })
    case "LspCrashedError":
      return toolError("EXECUTION_ERROR", e.message, { hints: fallback, retryable: false })
  }
}

/**
 * The degraded answer: no server for this file's language. Says
 * what was looked for, how to install one (in full the first time in a
 * session), and points at grep and read, which always work.
 */
export const noProvider = (np: NoProvider, source: Source, tool: string, header: string): ToolResult => {
  const crashed = np.crashed
  const what = np.language === undefined
    ? `No language server is configured for ${source.display} (no known extension or #! line).`
    : crashed !== undefined
      ? `The ${np.language} language server ${crashed.server} kept crashing: it failed ${crashed.crashes} times (last: ${crashed.lastFailure}), more than lsp.max_restarts (${crashed.maxRestarts}) allows, so it is not started again in this session.`
    : np.untrusted !== undefined
      ? `The ${np.language} language server was not started: ${np.untrusted}`
    : np.disabled === "all"
      ? "Language servers are turned off in anvil.json (lsp)."
      : np.disabled === "language"
      ? `The ${np.language} language server is disabled in anvil.json (lsp.${np.language}).`
      : `No ${np.language} language server is installed (looked for ${np.tried.join(", ")} on PATH).`
  const install = crashed !== undefined
    ? `Its log: ${crashed.stderr ? "the end of its stderr is in data.server_stderr" : "it wrote nothing to stderr"}; to see more, run it by hand in the project: ${crashed.command} (it waits for LSP messages on stdin). Once it is fixed, or lsp.max_restarts raised, a new anvil session starts it again.`
    : np.install && !np.disabled
    ? np.firstHint
      ? `Install one: ${np.install}`
      : `(Install hint given earlier in this session: ${np.install.split(" (")[0]}.)`
    : np.language === undefined
      ? `Add a server for it in anvil.json: "lsp": { "<language>": { "command": ["<server>", "--stdio"], "extensions": [".ext"] } }.`
      : undefined
  return {
    status: "partial",
    header,
    data: {
      path: source.display,
      freshness: "no_provider",
      language: np.language ?? null,
      server: crashed?.server ?? null,
      ...(crashed !== undefined
        ? {
            crashed: { crashes: crashed.crashes, max_restarts: crashed.maxRestarts, last_failure: crashed.lastFailure, command: crashed.command },
            ...(crashed.stderr ? { server_stderr: crashed.stderr } : {}),
          }
        : {}),
      ...(np.install ? { install_hint: np.install } : {}),
      ...(np.problems.length > 0 ? { config_problems: np.problems } : {}),
      ...(np.untrusted !== undefined ? { untrusted: np.untrusted } : {}),
    },
    text: [what, ...(install ? [install] : []), ...np.problems.map((p) => `anvil.json: ${p}`), `${tool} needs a language server; use grep to find symbols and read to look at the code meanwhile.`].join("\n"),
    hints: [hint("Grep", "high", { pattern: "<symbol>", path: source.display }), hint("Read", "medium", { path: source.display })],
    context: { path_resolved: source.display },
  }
}

/** The word at a 1-based position, for messages ("no definition for `helper`"). */
export const wordAt = (text: string, line: number, character: number): string | undefined => {
  const points = [...(text.split(/\r\n|\r|\n/)[line - 1] ?? "")]
  const isWord = (c: string | undefined) => c !== undefined && /[\p{L}\p{N}_$]/u.test(c)
  let start = character - 1
  let end = character - 1
  if (!isWord(points[start])) return undefined
  while (start > 0 && isWord(points[start - 1])) start--
  while (isWord(points[end + 1])) end++
  return points.slice(start, end + 1).join("")
}
