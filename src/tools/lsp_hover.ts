import { Effect } from "effect"
import { hoverMarkdown } from "../lsp/answer-text.ts"
import { Lsp } from "../lsp/service.ts"
import { defineTool } from "../tool-framework/definition.ts"
import { noProvider, positionTool, readSource, withEngine, wordAt, lspPrecheck } from "./lsp-common.ts"
import description from "./lsp_hover.md" with { type: "text" }
import { withWorkspaceErrors } from "./workspace-errors.ts"
import { searchHidden } from "./hidden-search.ts"

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
      const source = yield* readSource(path, line)
      const header = `LspHover: ${source.display}:${line}:${character}`
      // With files read denies or asks about, the hover of a symbol defined in one is its documentation: withheld.
      const hidden = yield* searchHidden("lsp_hover")
      const answer = yield* withEngine(source, async (engine) => {
        const hover = await engine.atPosition(source.absolute, source.text, line, character, "textDocument/hover")
        if (!hidden || hover.kind === "no_provider") return { ...hover, from: undefined }
        // Where it is defined cannot be told (the request failed): withheld, as it may be such a file.
        const definition = await engine.atPosition(source.absolute, source.text, line, character, "textDocument/definition").catch(() => undefined)
        const from =
          definition === undefined ? "a file the server could not name" : definition.kind === "no_provider" ? undefined : engine.locations(definition.result).find((l) => hidden.hides(l.path, false))?.path
        return { ...hover, from }
      })
      if (answer.kind === "no_provider") return noProvider(answer, source, "lsp_hover", header)
      if (answer.from !== undefined) {
        return {
          header,
          data: { path: source.display, language: answer.language, server: answer.server, freshness: "current", symbol: wordAt(source.text, line, character) ?? null, contents: "", withheld_from: answer.from },
          text: `The symbol is defined in ${answer.from}, which the permission rules keep from reading: its type and documentation are not shown. Read it with read (the rules decide).`,
          stats: { characters: 0 },
          context: { path_resolved: source.display },
        }
      }
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
  precheck: lspPrecheck("lsp_hover"),
})
