import { isAbsolute, resolve } from "node:path"
import { isRecord } from "../protocol/is-record.ts"
import { claudeName, toClaudeInput } from "../tool-framework/claude-tools.ts"

/**
 * A tool call as Claude Code hands it to a hook (`tool_input`, and after the
 * call `tool_response`), so that a hook script written for Claude Code finds
 * what it reads. Claude Code's file tools take only absolute paths, and its
 * hook scripts rely on that (`jq -r .tool_input.file_path | xargs prettier`,
 * a guard that checks the path starts with `$CLAUDE_PROJECT_DIR`): the path
 * fields are absolute here, whatever the model wrote. `tool_response` has the
 * fields Claude Code's tools answer with where anvil's result carries them
 * (Read, Write, Edit, MultiEdit, Bash, Glob), beside anvil's own `text`,
 * `data` and `status`.
 */

type Input = Record<string, unknown>

/** The fields that name a file or folder, by Claude tool. */
const PATH_FIELDS: Readonly<Record<string, ReadonlyArray<string>>> = {
  Read: ["file_path"],
  Write: ["file_path"],
  Edit: ["file_path"],
  MultiEdit: ["file_path"],
  Glob: ["path"],
  Grep: ["path"],
  LS: ["path"],
}

const absolute = (root: string, p: unknown) => (typeof p === "string" && p !== "" && !isAbsolute(p) ? resolve(root, p) : p)

/** `tool_input`: Claude's fields with absolute paths, anvil's own names kept beside (scripts written for anvil read those). */
export const hookToolInput = (tool: string, params: Readonly<Input>, root: string): Input => {
  const claude: Input = { ...params, ...toClaudeInput(tool, { ...params }) }
  for (const field of PATH_FIELDS[claudeName(tool)] ?? []) if (claude[field] !== undefined) claude[field] = absolute(root, claude[field])
  return claude
}

/** Claude Code's `structuredPatch`: the hunks of a unified diff. */
export const structuredPatch = (diff: unknown) => {
  const hunks: Array<{ oldStart: number; oldLines: number; newStart: number; newLines: number; lines: Array<string> }> = []
  if (typeof diff !== "string") return hunks
  for (const line of diff.split("\n")) {
    const head = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(line)
    if (head) hunks.push({ oldStart: +head[1]!, oldLines: +(head[2] ?? 1), newStart: +head[3]!, newLines: +(head[4] ?? 1), lines: [] })
    else if (hunks.length > 0 && /^[ +\-\\]/.test(line)) hunks.at(-1)!.lines.push(line)
  }
  return hunks
}

/** Read's content without anvil's line numbers (`     1\t`), as Claude Code's Read answers it. */
const plainLines = (content: string) => content.replace(/^ *\d+\t/gm, "")

/** Claude Code's answer fields for the tools whose mapping is clear; none for the others. */
const claudeResponse = (tool: string, params: Readonly<Input>, data: Readonly<Input>, root: string): Input => {
  const filePath = absolute(root, data.path ?? params.path)
  switch (tool) {
    case "read":
      if (typeof data.content !== "string") return {}
      return {
        type: "text",
        file: { filePath, content: plainLines(data.content), numLines: data.lines_returned, startLine: data.start_line, totalLines: data.total_lines },
      }
    case "write":
      // Claude Code's `originalFile` (the whole former content) is kept only for a new file, where it is null.
      return { type: data.created === true ? "create" : "update", filePath, content: params.content, structuredPatch: structuredPatch(data.diff), ...(data.created === true ? { originalFile: null } : {}) }
    case "edit":
      return { filePath, oldString: params.old_string, newString: params.new_string, replaceAll: params.replace_all === true, structuredPatch: structuredPatch(data.diff), userModified: false }
    case "multiedit":
      return { filePath, edits: params.edits, structuredPatch: structuredPatch(data.diff), userModified: false }
    case "bash":
      return { stdout: data.stdout, stderr: data.stderr, interrupted: data.timed_out === true || data.killed === true, isImage: false }
    case "glob": {
      const paths = Array.isArray(data.paths) ? data.paths.map((p) => absolute(root, p)) : []
      return { filenames: paths, numFiles: paths.length, truncated: data.truncated === true }
    }
    default:
      return {}
  }
}

/** `tool_response`: Claude Code's fields where the mapping is clear, then anvil's `text`, `data` and `status`. */
export const hookToolResponse = (
  tool: string,
  params: Readonly<Input>,
  result: { readonly text: string; readonly data: Readonly<Input>; readonly status: string },
  root: string,
): Input => ({
  ...(isRecord(result.data) ? claudeResponse(tool, params, result.data, root) : {}),
  text: result.text,
  data: result.data,
  status: result.status,
})
