import type { Tool } from "../tool/definition.ts"
import { calculatorTool } from "./calculator.ts"

/** Every built-in tool, in the order `anvil tools` lists them. */
export const builtinTools: ReadonlyArray<Tool> = [calculatorTool]
