import { Effect } from "effect"
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
 * that such a file holds and the diagnosed file does not (TypeScript quotes an imported constant's value). The
 * hidden files' text is read only when a message quotes something the file itself does not hold.
 */
export const splitDiagnostics = (
  list: ReadonlyArray<Diagnostic>,
  source: { readonly display: string; readonly text: string },
  hidden: Pick<HiddenPaths, "hidingRule">,
  hiddenTexts: () => ReadonlyArray<{ readonly display: string; readonly text: string }>,
): { readonly kept: ReadonlyArray<Diagnostic>; readonly withheld: ReadonlyArray<Diagnostic>; readonly rules: ReadonlyArray<DenyingRule> } => {
  const ext = extname(source.display)
  const rules = new Map<string, DenyingRule>()
  const note = (r: DenyingRule) => rules.set(`${r.rule}\0${r.where}`, { rule: r.rule, where: r.where })
  let texts: ReadonlyArray<{ readonly display: string; readonly text: string }> | undefined
  const kept: Array<Diagnostic> = []
  const withheld: Array<Diagnostic> = []
  for (const d of list) {
    const named = pathWords(d.message).flatMap((w) => pathForms(w, source.display, ext)).map((p) => hidden.hidingRule(p, false)).find((r) => r !== undefined)
    let rule: DenyingRule | undefined = named
    if (rule === undefined) {
      const foreign = quotes(d.message).filter((q) => !source.text.includes(q))
      if (foreign.length > 0) {
        texts ??= hiddenTexts()
        const holder = texts.find((t) => foreign.some((q) => t.text.includes(q)))
        rule = holder && (hidden.hidingRule(holder.display, false) ?? { rule: "a read rule", where: "the settings in force" })
      }
    }
    if (rule === undefined) kept.push(d)
    else {
      note(rule)
      withheld.push(d)
    }
  }
  return { kept, withheld, rules: [...rules.values()] }
}

/** The files the read rules hide in the project (a folder's files, not deeper than needed), at most MAX_FILES. */
const hiddenFiles = (places: ReadonlyArray<string>): ReadonlyArray<string> => {
  const out: Array<string> = []
  const queue = [...places]
  while (queue.length > 0 && out.length < MAX_FILES) {
    const p = queue.shift()!
    try {
      for (const e of readdirSync(p, { withFileTypes: true })) queue.push(join(p, e.name))
    } catch {
      out.push(p)
    }
  }
  return out
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
  const texts = () => {
    const places = readRuleMasks(config, ws.root)?.().places.map((p) => p.path) ?? []
    return hiddenFiles(places.filter((p) => ws.contains(p))).flatMap((abs) => {
      const bytes = readCheckedFile(ws.contains, abs, MAX_BYTES)
      return bytes === undefined ? [] : [{ display: ws.display(abs), text: new TextDecoder().decode(bytes) }]
    })
  }
  return (list: ReadonlyArray<Diagnostic>, source: { readonly display: string; readonly text: string }) => splitDiagnostics(list, source, hidden, texts)
})

/** The sentence for withheld diagnostics: how many, and the rules; never what they said. */
export const withheldSentence = (w: DiagnosticsWithheld): string =>
  `${counted(w.count, "diagnostic")} not shown: ${w.count === 1 ? "it names or quotes" : "they name or quote"} a file that ${w.rules
    .map((r) => `the rule ${r.rule} in "permission" of ${r.where}`)
    .join(" or ")} keeps read from (denied, or asked about first). To see ${w.count === 1 ? "it" : "them"}, change that rule.`
