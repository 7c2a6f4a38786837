import { definePlugin, defineTool, Files, type ToolFailure } from "anvil/plugin"
import { Context, Effect, Layer, Schema } from "effect"

/**
 * Example plugin using Effect services: the tool's `run` returns an Effect
 * that needs two services — anvil's `Files` (checked file access, provided by
 * the host) and this plugin's own `TextStats`, provided here with a Layer.
 */
interface Stats {
  readonly lines: number
  readonly words: number
  readonly markers: number
}

/** Counts lines, words and TODO/FIXME markers of a text. */
class TextStats extends Context.Service<TextStats, { readonly count: (text: string) => Stats }>()("text-stats/TextStats") {
  static readonly layer = Layer.succeed(TextStats, {
    count: (text: string): Stats => ({
      lines: text === "" ? 0 : text.split("\n").length - (text.endsWith("\n") ? 1 : 0),
      words: text.split(/\s+/).filter(Boolean).length,
      markers: (text.match(/\b(TODO|FIXME)\b/g) ?? []).length,
    }),
  })
}

const textStats = defineTool({
  name: "text_stats",
  description: "Counts lines, words and TODO/FIXME markers in project files. Read-only.",
  parameters: Schema.Struct({
    paths: Schema.Array(Schema.String).annotate({ description: "Files to count, relative to the project root." }),
  }),
  readOnly: true,
  run: ({ paths }) =>
    Effect.gen(function* () {
      const files = yield* Files
      const stats = yield* TextStats
      const rows = yield* Effect.forEach(paths, (path) =>
        Effect.map(
          // files.read rejects with a ToolFailure (NOT_FOUND, ACCESS_DENIED…): failing with it gives the call that code.
          Effect.tryPromise({ try: () => files.read(path), catch: (e) => e as ToolFailure }),
          (text) => ({ path, ...stats.count(text) }),
        ),
      )
      const total = rows.reduce((t, r) => ({ lines: t.lines + r.lines, words: t.words + r.words, markers: t.markers + r.markers }), {
        lines: 0,
        words: 0,
        markers: 0,
      })
      return {
        text: [...rows.map((r) => `${r.path}: ${r.lines} lines, ${r.words} words, ${r.markers} markers`), `total: ${total.lines} lines, ${total.words} words, ${total.markers} markers`].join("\n"),
        data: { files: rows, total },
      }
    }).pipe(Effect.provide(TextStats.layer)),
})

export default definePlugin({ name: "text-stats", api: 1, description: "File statistics through Effect services.", tools: [textStats] })
