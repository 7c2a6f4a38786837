import { Effect, Schema } from "effect"
import { grep, GREP_SERVICES } from "../search/grep.ts"
import { cappedContext } from "../search/grep-report.ts"
import type { OutputMode } from "../search/search-types.ts"
import { defineTool } from "../tool-framework/definition.ts"
import description from "./grep.md" with { type: "text" }
import { withGrepErrors } from "./search-errors.ts"
import { withWorkspaceErrors } from "./workspace-errors.ts"
import { refuseHiddenRoot } from "./hidden-search.ts"
import { grepSettings } from "./grep-settings.ts"
import { grepResult, type Shape } from "./grep-result.ts"

const Parameters = Schema.Struct({
  pattern: Schema.String.annotate({ description: "Rust regex (no look-around or backreferences); escape literal `.(){}[]`." }),
  path: Schema.optionalKey(Schema.String.annotate({ description: 'File or folder (default ".").' })),
  include: Schema.optionalKey(
    Schema.String.annotate({ description: 'Glob of files: "*.ts" (any depth), "src/**/*.py"; "!*.test.ts" leaves files out.' }),
  ),
  case_sensitive: Schema.optionalKey(Schema.Boolean.annotate({ description: "Default false (case-insensitive)." })),
  output_mode: Schema.optionalKey(
    Schema.Literals(["content", "files_with_matches", "count"]).annotate({
      description: "content (default: lines), files_with_matches (paths), count (per file).",
    }),
  ),
  before_context: Schema.optionalKey(
    Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)).annotate({ description: "Lines before each match." }),
  ),
  after_context: Schema.optionalKey(
    Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)).annotate({ description: "Lines after each match." }),
  ),
  context: Schema.optionalKey(
    Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)).annotate({ description: "Lines around each match." }),
  ),
  max_matches: Schema.optionalKey(
    Schema.Int.check(Schema.isGreaterThan(0)).annotate({ description: "Most lines (or files) returned (default: 50 shown, the rest saved)." }),
  ),
})

/** grep: regex search of file contents, ripgrep first. */
export const grepTool = defineTool({
  name: "grep",
  requires: GREP_SERVICES,
  title: "Grep",
  description,
  aliases: ["search_code", "search_content", "rg"],
  parameterAliases: {
    glob: "include",
    file_pattern: "include",
    head_limit: "max_matches",
    limit: "max_matches",
    "-B": "before_context",
    "-A": "after_context",
    "-C": "context",
  },
  readOnly: true,
  parameters: Parameters,
  // What `read` may not open is not searched either: a search rooted there is refused as read refuses it.
  precheck: (params) => refuseHiddenRoot("grep", params.path ?? "."),
  run: (params) =>
    Effect.gen(function* () {
      const settings = yield* grepSettings
      const mode: OutputMode = params.output_mode ?? "content"
      const requestedMax = params.max_matches ?? settings.defaultMaxMatches
      const maxMatches = Math.min(requestedMax, settings.maxMatchesLimit)
      const shape: Shape = {
        mode,
        caseSensitive: params.case_sensitive ?? false,
        requestedMax,
        maxMatches,
        ...cappedContext(mode === "content" ? [params.before_context ?? params.context ?? 0, params.after_context ?? params.context ?? 0] : [0, 0], settings.maxContext),
      }
      const found = yield* withWorkspaceErrors(withGrepErrors(
        // The settings carry the engine, rg, limits, ignored folders and hidden paths under the request's names.
        grep({ ...settings, ...shape, pattern: params.pattern, path: params.path ?? ".", include: params.include, listAll: true }),
        params,
      ))
      return grepResult(params, settings, shape, found)
    }),
})
