import { Effect } from "effect"
import { hint } from "../protocol/hint.ts"
import { Lsp } from "../lsp/service.ts"
import { defineTool } from "../tool-framework/definition.ts"
import { noProvider, positionTool, readSource, withEngine, wordAt, lspPrecheck } from "./lsp-common.ts"
import description from "./lsp_definition.md" with { type: "text" }
import { withWorkspaceErrors } from "./workspace-errors.ts"
import { searchHidden } from "./hidden-search.ts"

/** lsp_definition: where the symbol at a position is defined, with the defining line's text. */
export const lspDefinitionTool = defineTool({
  name: "lsp_definition",
  requires: [Lsp],
  title: "LspDefinition",
  description,
  aliases: ["definition", "goto_definition"],
  ...positionTool,
  run: ({ path, line, character }) =>
    withWorkspaceErrors(Effect.gen(function* () {
      const source = yield* readSource(path, line)
      const header = `LspDefinition: ${source.display}:${line}:${character}`
      const answer = yield* withEngine(source, (engine) =>
        engine.atPosition(source.absolute, source.text, line, character, "textDocument/definition").then((r) =>
          r.kind === "no_provider" ? r : { ...r, locations: engine.locations(r.result) },
        ),
      )
      if (answer.kind === "no_provider") return noProvider(answer, source, "lsp_definition", header)
      const symbol = wordAt(source.text, line, character)
      // A definition in a file read denies or asks about is named, without its line (that is the file's content).
      const hidden = yield* searchHidden("lsp_definition")
      const locations = hidden ? answer.locations.map((l) => (l.text !== null && hidden.hides(l.path, false) ? { ...l, text: null } : l)) : answer.locations
      const shown = symbol ? `\`${symbol}\`` : `the position ${line}:${character}`
      const text =
        locations.length === 0
          ? `${answer.server} found no definition for ${shown} (freshness: current). Check the position with read, or search with grep.`
          : [
              `${locations.length === 1 ? "Definition" : `${locations.length} definitions`} of ${shown} (${answer.server}, freshness: current):`,
              ...locations.map((l) => `${l.path}:${l.line}:${l.character}${l.text !== null ? `: ${l.text.trim()}` : ""}`),
            ].join("\n")
      const first = locations[0]
      return {
        header,
        data: {
          path: source.display,
          language: answer.language,
          server: answer.server,
          freshness: "current",
          symbol: symbol ?? null,
          location: first ?? null,
          locations,
        },
        text,
        stats: { locations: locations.length },
        context: { path_resolved: source.display },
        hints: first
          ? [hint("Read", "high", { path: first.path, offset: Math.max(0, first.line - 3), limit: 20 })]
          : symbol
            ? [hint("Grep", "medium", { pattern: `\\b${symbol}\\b` })]
            : [],
      }
    })),
  precheck: lspPrecheck("lsp_definition"),
})
