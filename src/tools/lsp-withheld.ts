import { Effect } from "effect"
import { Buffer } from "node:buffer"
import { readdirSync } from "node:fs"
import { extname, join, posix } from "node:path"
import { Config } from "../config/config.ts"
import type { Diagnostic } from "../lsp/engine.ts"
import type { DenyingRule } from "../permission/deny-source.ts"
import type { HiddenPaths } from "../permission/hidden-paths.ts"
import { readRuleMasks } from "../permission/read-masks.ts"
import { counted } from "../protocol/plural.ts"
import { readCheckedFile } from "../workspace/checked-fs.ts"
import { Workspace } from "../workspace/workspace.ts"
import { searchHidden } from "./hidden-search.ts"

/** Quoted text shorter than this is a name or a keyword, too common to tell anything. */
const MIN_QUOTE = 4
/** Files read to look for quoted text, and the bytes read of each: a check of a few diagnostics stays cheap. */
const MAX_FILES = 200
const MAX_BYTES = 256 * 1024

/** A file the read rules hide, read when the search for quoted text reaches it. */
export interface HiddenFile {
  readonly display: string
  readonly bytes: Uint8Array
}

/** What a server's diagnostics showed of files read may not open (or asks about): how many were left out, and why. */
export interface DiagnosticsWithheld {
  readonly count: number
  readonly rules: ReadonlyArray<DenyingRule>
}

/** Text a message quotes: '…', "…", `…`, “…” and ‘…’. */
const quotes = (message: string): ReadonlyArray<string> =>
  [...message.matchAll(/'([^']+)'|"([^"]+)"|`([^`]+)`|“([^”]+)”|‘([^’]+)’/g)].map((m) => m.slice(1).find((g) => g !== undefined)!).filter((q) => q.length >= MIN_QUOTE)

/** Words of a message that may name a file: quoted, or with a slash or a dot in them (`'./secret'`, `conf.keys`, `/abs/x.py`). */
const pathWords = (message: string): ReadonlyArray<string> => {
  const quoted = [...message.matchAll(/['"`‘“]([^'"`’”\s]+)['"`’”]/g)].map((m) => m[1]!)
  const dotted = [...message.matchAll(/[\w@~.\-/]+/g)].map((m) => m[0]).filter((w) => /[./]/.test(w))
  return [...new Set([...quoted, ...dotted].map((w) => w.replace(/^\.\/|[.\-/:]+$/g, "")).filter((w) => w.length > 1))]
}

/**
 * The root-relative paths a word may name, seen from the file `display` (root-relative) with extension `ext`: as
 * written, from the file's folder, and as a module or a module's member (`conf.keys.KEY` may be `conf.py`,
 * `conf/keys.py` or `conf/keys/KEY.py`; `./secret` is `secret.ts`).
 */
const pathForms = (word: string, display: string, ext: string): ReadonlyArray<string> => {
  const dir = posix.dirname(display)
  const parts = word.split(".")
  const modules = ext === "" ? [] : parts.map((_, i) => `${parts.slice(0, i + 1).join("/")}${ext}`)
  const names = [word, `${word}${ext}`, ...modules]
  return [...new Set(names.flatMap((n) => [posix.normalize(n), posix.normalize(posix.join(dir, n))]))].filter((p) => !p.startsWith("../") && p !== ".")
}

/**
 * Splits a server's diagnostics for the file `display` into those shown and those withheld because they show what
 * the read rules hide: a message naming a file read denies or asks about, or quoting text (four characters or more)
 * that such a file holds and the diagnosed file does not (TypeScript quotes an imported constant's value). Hidden
 * files are read only when a message quotes something the file itself does not hold, one at a time, and no further
 * than until every such message has found the file that holds its text.
 */
export const splitDiagnostics = (
  list: ReadonlyArray<Diagnostic>,
  source: { readonly display: string; readonly text: string },
  hidden: Pick<HiddenPaths, "hidingRule">,
  hiddenFiles: () => Iterable<HiddenFile>,
): { readonly kept: ReadonlyArray<Diagnostic>; readonly withheld: ReadonlyArray<Diagnostic>; readonly rules: ReadonlyArray<DenyingRule> } => {
  const ext = extname(source.display)
  const ruleOf: Array<DenyingRule | undefined> = []
  // The messages that quote text the diagnosed file does not hold, with those quotes as bytes to look for.
  let open: Array<{ readonly index: number; readonly needles: ReadonlyArray<Buffer> }> = []
  list.forEach((d, index) => {
    ruleOf[index] = pathWords(d.message).flatMap((w) => pathForms(w, source.display, ext)).map((p) => hidden.hidingRule(p, false)).find((r) => r !== undefined)
    if (ruleOf[index] !== undefined) return
    const foreign = quotes(d.message).filter((q) => !source.text.includes(q))
    if (foreign.length > 0) open.push({ index, needles: foreign.map((q) => Buffer.from(q)) })
  })
  if (open.length > 0) {
    for (const file of hiddenFiles()) {
      const haystack = Buffer.from(file.bytes.buffer, file.bytes.byteOffset, file.bytes.byteLength)
      open = open.filter(({ index, needles }) => {
        if (!needles.some((n) => haystack.includes(n))) return true
        ruleOf[index] = hidden.hidingRule(file.display, false) ?? { rule: "a read rule", where: "the settings in force" }
        return false
      })
      if (open.length === 0) break
    }
  }
  const rules = new Map<string, DenyingRule>()
  const kept: Array<Diagnostic> = []
  const withheld: Array<Diagnostic> = []
  list.forEach((d, index) => {
    const rule = ruleOf[index]
    if (rule === undefined) return void kept.push(d)
    rules.set(`${rule.rule}\0${rule.where}`, { rule: rule.rule, where: rule.where })
    withheld.push(d)
  })
  return { kept, withheld, rules: [...rules.values()] }
}

/**
 * The files the read rules hide in the project (a folder's files, not deeper than needed), at most MAX_FILES, each
 * read (up to MAX_BYTES) only when the caller asks for the next one.
 */
function* hiddenFiles(places: ReadonlyArray<string>, ws: Pick<Workspace["Service"], "contains" | "display">): Generator<HiddenFile> {
  const queue = [...places]
  let files = 0
  while (queue.length > 0 && files < MAX_FILES) {
    const p = queue.shift()!
    try {
      for (const e of readdirSync(p, { withFileTypes: true })) queue.push(join(p, e.name))
      continue
    } catch {
      files++
    }
    const bytes = readCheckedFile(ws.contains, p, MAX_BYTES)
    if (bytes !== undefined) yield { display: ws.display(p), bytes }
  }
}

/**
 * The filter an LSP tool applies to a file's diagnostics (see splitDiagnostics), from the rules in force; undefined
 * when no read rule hides anything.
 */
export const diagnosticsFilter = Effect.gen(function* () {
  const hidden = yield* searchHidden("lsp_diagnostics")
  if (hidden === undefined) return undefined
  const ws = yield* Workspace
  const config = yield* Config
  const files = () => {
    const places = readRuleMasks(config, ws.root)?.().places.map((p) => p.path) ?? []
    return hiddenFiles(places.filter((p) => ws.contains(p)), ws)
  }
  return (list: ReadonlyArray<Diagnostic>, source: { readonly display: string; readonly text: string }) => splitDiagnostics(list, source, hidden, files)
})

/** The sentence for withheld diagnostics: how many, and the rules; never what they said. */
export const withheldSentence = (w: DiagnosticsWithheld): string =>
  `${counted(w.count, "diagnostic")} not shown: ${w.count === 1 ? "it names or quotes" : "they name or quote"} a file that ${w.rules
    .map((r) => `the rule ${r.rule} in "permission" of ${r.where}`)
    .join(" or ")} keeps read from (denied, or asked about first). To see ${w.count === 1 ? "it" : "them"}, change that rule.`
