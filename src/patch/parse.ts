import type { ParsedPatch } from "./model.ts"
import { isBeginPatch, parseBeginPatch } from "./parse-begin-patch.ts"
import { parseUnified } from "./parse-unified.ts"

/**
 * Parses a patch in whichever format it is: a `*** Begin Patch` envelope or
 * unified diff(s). A Markdown code fence around the whole patch is dropped.
 * Throws PatchProblem.
 */
export const parsePatch = (text: string, options: { readonly strip?: number } = {}): ParsedPatch => {
  const body = unfence(text)
  return isBeginPatch(body) ? parseBeginPatch(body) : parseUnified(body, options)
}

/** "```diff\n…\n```" → "…\n": models often fence what they were asked to pass raw. */
const unfence = (text: string): string => {
  const m = /^\s*```[\w-]*[ \t]*\r?\n([\s\S]*?\r?\n)```\s*$/.exec(text)
  return m ? m[1]! : text
}
