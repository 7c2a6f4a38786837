import { isRecord } from "../protocol/is-record.ts"

/** `name`: a plain name matched whole with `*` and `?` (a tool's own subject, e.g. a skill's name). */
export type SubjectKind = "command" | "path" | "host" | "name"

/** What a call's patterns are matched against. */
export interface Subjects {
  readonly kind: SubjectKind
  readonly values: ReadonlyArray<string>
  /**
   * Paths: where a value really leads when a link on it points elsewhere in the project. A rule matches a value
   * when it matches the value or that place, so a rule about a file holds whatever link names it.
   */
  readonly leadsTo?: Readonly<Record<string, string>>
}

/** What a rule may match for one value: the value and, for a path through a link, where it leads. */
export const matchedForms = (subjects: Subjects, value: string): ReadonlyArray<string> => {
  const real = subjects.leadsTo?.[value]
  return real === undefined ? [value] : [value, real]
}

/** A call's subjects as its messages name them: ` (alias.txt -> secret.txt, b.txt)`; "" without subjects. */
export const describeSubjects = (subjects: Subjects | undefined): string =>
  subjects ? ` (${subjects.values.map((v) => (subjects.leadsTo?.[v] === undefined ? v : `${v} -> ${subjects.leadsTo[v]}`)).join(", ")})` : ""

/**
 * What a call's patterns are matched against, read from its parameters:
 * `command`/`args` (bash), `url` (fetch: the host), `path`/`file_path`/
 * `paths`/`edits[].path` (file tools; patch names its files itself). `normalizePath`
 * makes each path root-relative; `leadsTo` tells where a path whose links lead elsewhere really is.
 */
export const subjectsOf = (
  params: unknown,
  normalizePath: (p: string) => string = (p) => p,
  leadsTo: (path: string) => string | undefined = () => undefined,
): Subjects | undefined => {
  if (!isRecord(params)) return undefined
  if (typeof params.command === "string") return { kind: "command", values: [params.command] }
  if (Array.isArray(params.args) && params.args.every((a) => typeof a === "string")) return { kind: "command", values: [params.args.join(" ")] }
  if (typeof params.url === "string") {
    try {
      return { kind: "host", values: [ruleHost(new URL(params.url).hostname)] }
    } catch {
      return { kind: "host", values: [params.url] }
    }
  }
  const paths = new Set<string>()
  for (const key of ["path", "file_path", "target", "destination"]) if (typeof params[key] === "string") paths.add(params[key] as string)
  if (Array.isArray(params.paths)) for (const p of params.paths) if (typeof p === "string") paths.add(p)
  if (Array.isArray(params.edits)) for (const e of params.edits) if (isRecord(e) && typeof e.path === "string") paths.add(e.path)
  return pathSubjects(paths, normalizePath, leadsTo)
}

/**
 * A URL's host as host rules judge it: one name for each way of writing the same place, so a rule on
 * `localhost` or `*.internal` holds for `localhost.` and `db.internal.` (the fully qualified spelling that
 * resolves alike), and one on `127.0.0.1` for `[::ffff:127.0.0.1]` (the same IPv4 address as IPv6 writes it).
 * The URL parser already writes numeric IPv4 forms (`127.1`, `0x7f.0.0.1`, `2130706433`) as `127.0.0.1` and
 * lowers the case.
 */
export const ruleHost = (hostname: string): string => {
  const mapped = /^\[::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})\]$/i.exec(hostname)
  if (mapped) {
    const [hi, lo] = [Number.parseInt(mapped[1]!, 16), Number.parseInt(mapped[2]!, 16)]
    return [hi >> 8, hi & 255, lo >> 8, lo & 255].join(".")
  }
  return hostname.replace(/\.+$/, "")
}

/** File paths as subjects: each made root-relative by `normalizePath`, with where its links lead when that differs. */
export const pathSubjects = (
  paths: Iterable<string>,
  normalizePath: (p: string) => string = (p) => p,
  leadsTo: (path: string) => string | undefined = () => undefined,
): Subjects | undefined => {
  const values = [...new Set([...paths].map(normalizePath))]
  if (values.length === 0) return undefined
  const links = values.flatMap((v) => {
    const real = leadsTo(v)
    return real === undefined || real === v ? [] : [[v, real] as const]
  })
  return { kind: "path", values, ...(links.length > 0 ? { leadsTo: Object.fromEntries(links) } : {}) }
}
