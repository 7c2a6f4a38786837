import { nearestWord } from "../config/nearest.ts"
import { ToolError } from "../protocol/tool-error.ts"
import type { Tool } from "./definition.ts"
import { renamedCallHint } from "./fallback-hints.ts"
import { acceptedNames } from "./params.ts"
import { placeholderFor, WHOLE } from "./placeholder.ts"

/**
 * A call of a tool no one has: the tools there are, and a next step as every error has one. A name close to a
 * tool's (`raed`, `grpe`) is most likely that tool, so the step is the same call under its name; any other name
 * gets the step in words, since which tool fits is the caller's to judge.
 */
export const unknownToolError = (name: string, tools: ReadonlyArray<Tool>, given: unknown): ToolError => {
  const known = tools.map((t) => t.name)
  const near = nearestWord(name, known)
  const tool = near?.likely ? tools.find((t) => t.name === near.word) : undefined
  const hints = tool ? [renamedCallHint(tool.title, acceptedNames(tool), given, placeholderFor(tool, WHOLE) as Record<string, unknown>)] : []
  return new ToolError({
    code: "INVALID_PARAM",
    message: `Unknown tool '${name}'. Available tools: ${known.join(", ")}.`,
    fieldErrors: [{ field: "name", message: tool ? `unknown tool (did you mean ${tool.name}?)` : "unknown tool" }],
    ...(tool ? { hints } : { nextStep: "call one of the available tools named above, by that name, with the parameters it describes." }),
  })
}
