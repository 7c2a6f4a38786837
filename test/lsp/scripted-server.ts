/**
 * A scripted language server for the cases no installed server shows on
 * demand. `bun scripted-server.ts MODE`:
 * - pull: offers pull diagnostics (textDocument/diagnostic) and never pushes;
 * - push-once: pushes diagnostics for version 1 only, so later versions go stale;
 * - silent: never reports anything and never answers hover, so answers stay pending and hovers time out.
 * - loading: like a server still loading its project: hover answers "**loading**" until, 300 ms after a file is
 *   opened, it pushes that file's diagnostics; then "**loaded**".
 * - chatty: like pull, but prints log lines on stdout between its LSP messages (a banner, a line before each answer);
 * - broken: like pull, but its diagnostics answer mixes one valid diagnostic with items that are not LSP's shape;
 * - dies: like pull, but exits with code 9 (a traceback on stderr) when asked for diagnostics.
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

const pulls = ["pull", "chatty", "broken", "dies"].includes(mode)
if (mode === "chatty") process.stdout.write("scripted server 1.0 starting\n")
connection.onRequest("initialize", () => {
  if (mode === "chatty") process.stdout.write("INFO: initializing\r\n\r\n")
  return { capabilities: { textDocumentSync: 1, ...(pulls ? { diagnosticProvider: { interFileDependencies: false, workspaceDiagnostics: false } } : {}) } }
})
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
connection.onRequest("textDocument/diagnostic", (p: any) => {
  const one = diagnostic(texts.get(p.textDocument.uri) ?? "")
  if (mode === "chatty") process.stdout.write("DEBUG: diagnostics requested")
  if (mode === "dies") {
    process.stderr.write("Traceback: KeyError: 'uri'\n")
    process.exit(9)
  }
  if (mode === "broken") return { kind: "full", items: [{ nonsense: true }, one, { range: "0:0", message: 5 }, { ...one, severity: "high", code: { v: 1 } }] }
  return { kind: "full", items: [one] }
})
connection.onRequest("textDocument/hover", () =>
  mode === "silent"
    ? new Promise(() => {})
    : { contents: { kind: "markdown", value: mode === "loading" ? (loaded ? "**loaded**" : "**loading**") : "**scripted**" } },
)
connection.listen()
