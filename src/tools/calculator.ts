import { Effect, Schema } from "effect"
import { defineTool } from "../tool-framework/definition.ts"
import { invalidParam } from "../protocol/tool-error.ts"
import description from "./calculator.md" with { type: "text" }
import { evaluate } from "./calculator/evaluate.ts"
import { CalcError, formatValue } from "./calculator/value.ts"

/** calculator: safe arithmetic with Python's number semantics. */
export const calculatorTool = defineTool({
  name: "calculator",
  title: "Calculator",
  description,
  aliases: ["python_calculator", "calc"],
  parameterAliases: { input: "expression", expr: "expression" },
  readOnly: true,
  parameters: Schema.Struct({
    expression: Schema.String.annotate({ description: "e.g. `2+3*4`." }),
  }),
  run: ({ expression }) =>
    Effect.try({
      try: () => formatValue(evaluate(expression)),
      catch: (e) =>
        invalidParam("expression", e instanceof CalcError ? e.message : String(e), [
          { action: "Calculator", priority: "high", args: { expression: "<corrected expression>" } },
        ]),
    }).pipe(
      Effect.map((result) => ({
        header: `Calculator: ${expression}`,
        data: { expression, result },
        text: `Result: ${result}`,
      })),
    ),
})
