import type { Tool } from "../tool/definition.ts"
import { calculatorTool } from "./calculator.ts"
import { listTool } from "./list.ts"
import { readTool } from "./read.ts"
import { patchTool } from "./patch.ts"

/** Every built-in tool, in the order `anvil tools` lists them. */
export const builtinTools: ReadonlyArray<Tool> = [readTool, listTool, calculatorTool, patchTool]
