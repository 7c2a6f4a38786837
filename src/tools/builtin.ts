import type { Tool } from "../tool/definition.ts"
import { bashTool } from "./bash.ts"
import { calculatorTool } from "./calculator.ts"
import { globTool } from "./glob.ts"
import { grepTool } from "./grep.ts"
import { editTool } from "./edit.ts"
import { listTool } from "./list.ts"
import { multieditTool } from "./multiedit.ts"
import { readTool } from "./read.ts"
import { taskTool } from "./task.ts"
import { todoreadTool } from "./todoread.ts"
import { todowriteTool } from "./todowrite.ts"
import { patchTool } from "./patch.ts"
import { writeTool } from "./write.ts"

/** Every built-in tool, in the order `anvil tools` lists them. */
export const builtinTools: ReadonlyArray<Tool> = [readTool, listTool, calculatorTool, globTool, grepTool, patchTool, writeTool, editTool, multieditTool, bashTool, todoreadTool, todowriteTool, taskTool]
