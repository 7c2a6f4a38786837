import { Effect } from "effect"
import { hoverMarkdown } from "../lsp/engine.ts"
import { Lsp } from "../lsp/service.ts"
import { defineTool } from "../tool-framework/definition.ts"
import { noProvider, positionTool, readSource, withEngine, wordAt } from "./lsp-common.ts"
import description from "./lsp_hover.md" with { type: "text" }
import { withWorkspaceErrors } from "./workspace-errors.ts"

/** lsp_hover: the type and documentation of the symbol at a position, as Markdown. */
export const lspHoverTool = defineTool({
  name: "lsp_hover",
  requires: [Lsp],
  title: "LspHover",
  description,
  aliases: ["hover"],
  ...positionTool,
  run: ({ path, line, character }) =>
    withWorkspaceErrors(Effect.gen(function* () {
      const source = yield* readSource(path)
      const header = `LspHover: ${source.display}:${line}:${character}`
      const answer = yield* withEngine(source, (engine) =>
        engine.atPosition(source.absolute, source.text, line, character, "textDocument/hover"),
      )
      if (answer.kind === "no_provider") return noProvider(answer, source, "lsp_hover", header)
      const contents = hoverMarkdown(answer.result)
      const symbol = wordAt(source.text, line, character)
      const shown = symbol ? `\`${symbol}\`` : `the position ${line}:${character}`
      return {
        header,
        data: { path: source.display, language: answer.language, server: answer.server, freshness: "current", symbol: symbol ?? null, contents },
        text: contents === "" ? `${answer.server} has no hover information for ${shown} (freshness: current).` : contents,
        stats: { characters: contents.length },
        context: { path_resolved: source.display },
      }
    })),
})
