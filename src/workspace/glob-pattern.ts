/**
 * Glob patterns as regular expressions, for matching POSIX paths:
 * `*` and `?` stay within one path segment, `**` crosses segments (a leading
 * `**` segment also matches at depth zero), `[abc]`/`[!a-z]` are character classes and
 * `{a,b}` alternatives. A trailing `/` is ignored.
 */

const escape = (c: string) => (/[\\^$.*+?()[\]{}|/]/.test(c) ? `\\${c}` : c)

const translate = (glob: string): string => {
  let out = ""
  let depth = 0
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!
    if (c === "*") {
      if (glob[i + 1] === "*") {
        const atStart = i === 0 || glob[i - 1] === "/"
        const slashAfter = glob[i + 2] === "/"
        if (atStart && slashAfter) {
          out += "(?:.*/)?"
          i += 2
        } else if (atStart && i + 2 === glob.length) {
          out += ".*"
          i += 1
        } else {
          out += "[^/]*"
          i += 1
        }
      } else out += "[^/]*"
    } else if (c === "?") out += "[^/]"
    else if (c === "[") {
      const close = glob.indexOf("]", i + 2)
      if (close === -1) out += "\\["
      else {
        let body = glob.slice(i + 1, close)
        if (body.startsWith("!")) body = `^${body.slice(1)}`
        out += `[${body.replace(/\\/g, "\\\\")}]`
        i = close
      }
    } else if (c === "{") {
      depth++
      out += "(?:"
    } else if (c === "}" && depth > 0) {
      depth--
      out += ")"
    } else if (c === "," && depth > 0) out += "|"
    else if (c === "\\" && i + 1 < glob.length) out += escape(glob[++i]!)
    else out += escape(c)
  }
  return out + ")".repeat(depth)
}

/** The regular expression a glob denotes, anchored at both ends. */
export const globToRegExp = (glob: string): RegExp => {
  const trimmed = glob.length > 1 ? glob.replace(/\/+$/, "") : glob
  return new RegExp(`^${translate(trimmed.replace(/^\.\//, ""))}$`)
}

/** A matcher for several globs: true when any of them matches any of the given forms of a path. */
export const globMatcher = (globs: ReadonlyArray<string>): ((...forms: ReadonlyArray<string>) => boolean) => {
  const res = globs.filter((g) => g.trim() !== "").map(globToRegExp)
  return (...forms) => res.some((re) => forms.some((f) => re.test(f)))
}
