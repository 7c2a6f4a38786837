/**
 * A scripted language server for the cases no installed server shows on
 * demand. `bun scripted-server.ts MODE`:
 * - pull: offers pull diagnostics (textDocument/diagnostic) and never pushes;
 * - push-once: pushes diagnostics for version 1 only, so later versions go stale;
 * - silent: never reports anything and never answers hover, so answers stay pending and hovers time out.
 * - loading: like a server still loading its project: hover answers "**loading**" until, 300 ms after a file is
 *   opened, it pushes that file's diagnostics; then "**loaded**".
 * Each diagnostic's message names the text's first line, so tests see which version was analysed.
 */
import { createMessageConnection, StreamMessageReader, StreamMessageWriter } from "vscode-jsonrpc/node"

const mode = process.argv[2] ?? "pull"
const connection = createMessageConnection(new StreamMessageReader(process.stdin), new StreamMessageWriter(process.stdout))
const texts = new Map<string, string>()
let loaded = false
const diagnostic = (text: string) => ({
  range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } },
  severity: 1,
  message: `saw: ${text.split("\n")[0]}`,
  source: "scripted",
  code: 7,
})

connection.onRequest("initialize", () => ({
  capabilities: { textDocumentSync: 1, ...(mode === "pull" ? { diagnosticProvider: { interFileDependencies: false, workspaceDiagnostics: false } } : {}) },
}))
connection.onRequest("shutdown", () => null)
connection.onNotification("exit", () => process.exit(0))
connection.onNotification("textDocument/didOpen", (p: any) => {
  texts.set(p.textDocument.uri, p.textDocument.text)
  if (mode === "loading") {
    setTimeout(() => {
      loaded = true
      void connection.sendNotification("textDocument/publishDiagnostics", { uri: p.textDocument.uri, version: 1, diagnostics: [] })
    }, 300)
  }
  if (mode === "push-once") {
    void connection.sendNotification("textDocument/publishDiagnostics", { uri: p.textDocument.uri, version: 1, diagnostics: [diagnostic(p.textDocument.text)] })
  }
})
connection.onNotification("textDocument/didChange", (p: any) => void texts.set(p.textDocument.uri, p.contentChanges[0].text))
connection.onRequest("textDocument/diagnostic", (p: any) => ({ kind: "full", items: [diagnostic(texts.get(p.textDocument.uri) ?? "")] }))
connection.onRequest("textDocument/hover", () =>
  mode === "silent"
    ? new Promise(() => {})
    : { contents: { kind: "markdown", value: mode === "loading" ? (loaded ? "**loaded**" : "**loading**") : "**scripted**" } },
)
connection.listen()
