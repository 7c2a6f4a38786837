import { Ajv, type ErrorObject } from "ajv"
import { Effect, Schema } from "effect"
import { ToolError } from "../protocol/tool-error.ts"
import type { Tool } from "../tool-framework/definition.ts"

/**
 * Structured output (`outputFormat: {type: "json_schema", schema}` in the SDK,
 * `--json-schema` on the command line), done as Claude Code does it: the
 * session gets a `StructuredOutput` tool whose input schema is the program's
 * schema; the model calls it with its final answer, the input is checked
 * against the schema (an invalid one is sent back to the model with what is
 * wrong), and the first valid input ends the turn and becomes the result's
 * `structured_output`.
 */

const STRUCTURED_OUTPUT_TOOL = "StructuredOutput"

/** How often a turn that ended without a valid StructuredOutput call is sent back to the model before it fails. */
const STRUCTURED_OUTPUT_RETRIES = 3

/** What the system prompt adds so the model knows how to answer. */
export const STRUCTURED_OUTPUT_INSTRUCTION =
  `The program that started you needs your final answer as structured data. When you are done, call the ${STRUCTURED_OUTPUT_TOOL} tool ` +
  "exactly once with your answer as its input, matching its schema; do not write the answer as text instead."

/** The reminder sent when a turn ended without the tool being called. */
const STRUCTURED_OUTPUT_REMINDER = `You ended without calling the ${STRUCTURED_OUTPUT_TOOL} tool. Call it now with your final answer, matching its input schema.`

export interface StructuredOutput {
  /** The tool the session gets. */
  readonly tool: Tool<Record<string, unknown>, never>
  /** The valid input of the last call, if one came since `reset`. */
  readonly value: () => { readonly data: unknown } | undefined
  readonly reset: () => void
  /** How often a turn without the answer is sent back with `reminder`, and the error after that. */
  readonly retries: number
  readonly reminder: string
  readonly failure: string
}

const describeErrors = (errors: ReadonlyArray<ErrorObject> | null | undefined): string =>
  (errors ?? []).map((e) => `${e.instancePath || "(root)"} ${e.message ?? "is invalid"}`).join("; ")

/** The tool for `schema`, or an error message when the schema itself cannot be compiled. */
export const makeStructuredOutput = (schema: Readonly<Record<string, unknown>>): StructuredOutput | string => {
  let validate: ReturnType<Ajv["compile"]>
  try {
    validate = new Ajv({ allErrors: true, strict: false }).compile(schema)
  } catch (e) {
    return `the JSON schema for structured output cannot be used: ${(e as Error).message}`
  }
  // Model APIs take an object as a tool's input: another schema is wrapped and unwrapped again.
  const wrapped = schema.type !== "object"
  const jsonSchema = wrapped ? { type: "object", properties: { value: schema }, required: ["value"] } : schema
  let value: { readonly data: unknown } | undefined
  const tool: Tool<Record<string, unknown>, never> = {
    name: STRUCTURED_OUTPUT_TOOL,
    title: STRUCTURED_OUTPUT_TOOL,
    description:
      "Return your final answer in the structured format the program asked for. Call this exactly once, at the end, with the answer as the input" +
      (wrapped ? " (under `value`)." : "."),
    parameters: Schema.Record(Schema.String, Schema.Unknown),
    jsonSchema,
    permission: "allow",
    readOnly: true,
    run: (params) => {
      const data = wrapped ? params.value : params
      if (!validate(data)) {
        const message = `The structured output does not match the schema: ${describeErrors(validate.errors)}. Call ${STRUCTURED_OUTPUT_TOOL} again with a corrected input.`
        return Effect.fail(new ToolError({ code: "INVALID_PARAM", message, fieldErrors: (validate.errors ?? []).map((e) => ({ field: e.instancePath || "(root)", message: e.message ?? "invalid" })) }))
      }
      value = { data }
      return Effect.succeed({ data: { accepted: true }, text: "Structured output provided successfully." })
    },
  }
  return {
    tool,
    value: () => value,
    reset: () => void (value = undefined),
    retries: STRUCTURED_OUTPUT_RETRIES,
    reminder: STRUCTURED_OUTPUT_REMINDER,
    failure: `The model did not give a valid structured answer (the ${STRUCTURED_OUTPUT_TOOL} tool) after ${STRUCTURED_OUTPUT_RETRIES} reminders.`,
  }
}
