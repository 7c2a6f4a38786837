import { IgnorePatterns } from "../workspace/gitignore.ts"
import type { AttributeValue } from "./eol.ts"

/** One line of an attributes file: a pattern and what it assigns, in order (a macro already expanded). */
interface AttributeLine {
  readonly pattern: IgnorePatterns
  readonly assigns: ReadonlyArray<readonly [string, AttributeValue]>
}

/** An attributes file read, relative to its folder ("" for the top or for files that apply everywhere). */
interface AttributeFile {
  readonly base: string
  readonly lines: ReadonlyArray<AttributeLine>
}

type Macros = Map<string, ReadonlyArray<readonly [string, AttributeValue]>>

/** `binary` is git's built-in macro: no diff, no merge, not text. */
const builtinMacros = (): Macros => new Map([["binary", [["diff", false], ["merge", false], ["text", false]] as const]])

const assignment = (token: string): readonly [string, AttributeValue] =>
  token.startsWith("-") ? [token.slice(1), false] : token.startsWith("!") ? [token.slice(1), undefined] : token.includes("=") ? [token.slice(0, token.indexOf("=")), token.slice(token.indexOf("=") + 1)] : [token, true]

/** Assignments with macros expanded in place: a set macro also assigns what it stands for. */
const expand = (tokens: ReadonlyArray<string>, macros: Macros): Array<readonly [string, AttributeValue]> =>
  tokens.flatMap((t) => {
    const a = assignment(t)
    const macro = a[1] === true ? macros.get(a[0]) : undefined
    return macro ? [a, ...macro] : [a]
  })

/**
 * Parses a .gitattributes-style file. `[attr]name …` defines a macro where
 * git allows it (the top-level file, info/attributes, the global file);
 * negative patterns are not allowed in attributes and are skipped, as git
 * skips them.
 */
const parseAttributes = (text: string, base: string, macros: Macros, macrosAllowed: boolean): AttributeFile => {
  const lines: Array<AttributeLine> = []
  for (const raw of text.split("\n")) {
    const line = raw.replace(/\r$/, "").trim()
    if (line === "" || line.startsWith("#")) continue
    const [pattern = "", ...tokens] = line.split(/[ \t]+/)
    if (pattern.startsWith("[attr]")) {
      if (macrosAllowed) macros.set(pattern.slice(6), expand(tokens, macros))
      continue
    }
    if (pattern.startsWith("!")) continue
    lines.push({ pattern: IgnorePatterns.parse(pattern), assigns: expand(tokens, macros) })
  }
  return { base, lines }
}

/**
 * The attributes of working-tree paths, read as git reads them for files
 * going into the repository: the global file (core.attributesFile), then each
 * folder's .gitattributes from the top down to the file's own, then
 * `info/attributes`; a later line wins. Files are read once (`read` gives a
 * file's text or undefined).
 */
export const attributeReader = (
  read: (path: string) => string | undefined,
  where: { readonly dir: string; readonly commondir: string; readonly globalFile: string | undefined },
) => {
  const macros = builtinMacros()
  const global = where.globalFile === undefined ? undefined : read(where.globalFile)
  const first = global === undefined ? [] : [parseAttributes(global, "", macros, true)]
  const topText = read(`${where.dir}/.gitattributes`)
  const top = topText === undefined ? undefined : parseAttributes(topText, "", macros, true)
  const infoText = read(`${where.commondir}/info/attributes`)
  const info = infoText === undefined ? undefined : parseAttributes(infoText, "", macros, true)
  const folders = new Map<string, AttributeFile | undefined>()
  const folder = (rel: string): AttributeFile | undefined => {
    if (rel === "") return top
    if (folders.has(rel)) return folders.get(rel)
    const text = read(`${where.dir}/${rel}/.gitattributes`)
    const file = text === undefined ? undefined : parseAttributes(text, rel, macros, false)
    folders.set(rel, file)
    return file
  }
  /** The values of `names` for `path` (repository-relative). */
  const attributes = (path: string, names: ReadonlyArray<string>): Map<string, AttributeValue> => {
    const out = new Map<string, AttributeValue>(names.map((n) => [n, undefined]))
    const parts = path.split("/")
    const files: Array<AttributeFile | undefined> = [...first]
    for (let k = 0; k < parts.length; k++) files.push(folder(parts.slice(0, k).join("/")))
    files.push(info)
    for (const file of files) {
      if (file === undefined) continue
      const rel = file.base === "" ? path : path.slice(file.base.length + 1)
      for (const line of file.lines) {
        if (line.pattern.test(rel) === undefined) continue
        for (const [name, value] of line.assigns) if (out.has(name)) out.set(name, value)
      }
    }
    return out
  }
  return { attributes }
}
