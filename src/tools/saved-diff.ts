import type { FileDiff } from "../edit/diff.ts"
import type { ToolResult } from "../tool-framework/definition.ts"

/** A cut diff saved whole beside a write/edit result (the tool's status stays what the change was). */
export const savedDiff = (diff: FileDiff, display: string): Pick<ToolResult, "full"> =>
  diff.whole !== undefined ? { full: { text: diff.whole, what: `the diff of ${display} (${diff.totalLines} lines)`, keepStatus: true } } : {}
