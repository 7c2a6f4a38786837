import { defineTool, ToolFailure } from "anvil/plugin"
import { camelCase, constantCase, kebabCase, pascalCase, snakeCase } from "change-case"
import { Schema } from "effect"

/**
 * Example plugin: a tool with an npm dependency. `change-case` comes from this
 * folder's own node_modules (npm install here); anvil bundles the folder when
 * it loads it, so the package's `exports` are honoured in the compiled binary.
 */
const converters = { camel: camelCase, constant: constantCase, kebab: kebabCase, pascal: pascalCase, snake: snakeCase }

export default defineTool({
  name: "change_case",
  description: "Converts identifiers between naming styles: camel, pascal, snake, kebab or constant case. Use it to rename consistently.",
  parameters: Schema.Struct({
    words: Schema.Array(Schema.String).annotate({ description: "The identifiers or phrases to convert." }),
    to: Schema.Literals(["camel", "pascal", "snake", "kebab", "constant"]).annotate({ description: "The naming style to convert to." }),
  }),
  readOnly: true,
  run: ({ words, to }) => {
    if (words.length === 0) throw new ToolFailure({ code: "INVALID_PARAM", message: "give at least one word to convert" })
    const converted = words.map((w) => converters[to](w))
    return { text: converted.map((c, i) => `${words[i]} → ${c}`).join("\n"), data: { to, converted } }
  },
})
