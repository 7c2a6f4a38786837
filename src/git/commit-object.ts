/** A commit as the log shows it. */
export interface LogCommit {
  readonly oid: string
  readonly parents: ReadonlyArray<string>
  readonly author: { readonly name: string; readonly email: string; readonly timestamp: number; readonly timezoneOffset: number }
  readonly message: string
}

/** The `Name <email> <seconds> <±hhmm>` of an author or committer line. */
const person = (line: string): LogCommit["author"] => {
  const m = /^(.*?) ?<([^>]*)> (-?\d+) ([+-])(\d\d)(\d\d)\s*$/.exec(line)
  if (!m) return { name: line, email: "", timestamp: 0, timezoneOffset: 0 }
  // Minutes west of UTC, as isomorphic-git counts them (the sign flipped from git's zone).
  const minutes = Number(m[5]) * 60 + Number(m[6])
  return { name: m[1]!, email: m[2]!, timestamp: Number(m[3]), timezoneOffset: m[4] === "-" ? minutes : -minutes }
}

/** Bytes as ISO-8859-1: each byte is the code point of the same number (not windows-1252, which TextDecoder gives for "latin1"). */
const latin1 = (bytes: Uint8Array): string => {
  let out = ""
  for (let i = 0; i < bytes.length; i += 8192) out += String.fromCharCode(...bytes.subarray(i, i + 8192))
  return out
}

/**
 * The text of a commit object as `git log` shows it: re-encoded to UTF-8
 * from the encoding its `encoding` header names (i18n.commitEncoding when it
 * was made); UTF-8, or an encoding this runtime cannot decode, is read as
 * UTF-8 (git too leaves what iconv cannot convert as it is).
 */
const decodeCommit = (bytes: Uint8Array): string => {
  const head = new TextDecoder().decode(bytes.subarray(0, headersEnd(bytes)))
  const label = /^encoding (.+)$/m.exec(head)?.[1]?.trim().toLowerCase()
  if (label === undefined || label === "utf-8" || label === "utf8") return new TextDecoder().decode(bytes)
  if (/^(iso-?8859-1|iso_8859-1|latin-?1|l1|cp819|ibm819)$/.test(label)) return latin1(bytes)
  try {
    return new TextDecoder(label as ConstructorParameters<typeof TextDecoder>[0]).decode(bytes)
  } catch {
    return new TextDecoder().decode(bytes)
  }
}

/** Where the headers end: the first empty line (the message follows it), or the end. */
const headersEnd = (bytes: Uint8Array): number => {
  for (let i = 0; i + 1 < bytes.length; i++) if (bytes[i] === 10 && bytes[i + 1] === 10) return i
  return bytes.length
}

/** A commit object's bytes parsed: parents, author, committer time and message. */
export const parseCommit = (oid: string, bytes: Uint8Array): LogCommit & { readonly committedAt: number } => {
  const text = decodeCommit(bytes)
  const blank = text.indexOf("\n\n")
  const headers = blank === -1 ? text : text.slice(0, blank)
  const message = blank === -1 ? "" : text.slice(blank + 2)
  const parents: Array<string> = []
  let author: LogCommit["author"] = { name: "", email: "", timestamp: 0, timezoneOffset: 0 }
  let committedAt = 0
  for (const line of headers.split("\n")) {
    // Continuation lines (a signature's) start with a space.
    if (line.startsWith("parent ")) parents.push(line.slice(7).trim())
    else if (line.startsWith("author ")) author = person(line.slice(7))
    else if (line.startsWith("committer ")) committedAt = person(line.slice(10)).timestamp
  }
  return { oid, parents, author, message, committedAt }
}
