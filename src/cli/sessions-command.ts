import { shownValue } from "../protocol/shown-value.ts"
import { Effect } from "effect"
import { DEFAULT_RETENTION_DAYS, listSessions, pruneSessions, type SessionSummary } from "../agent/session-store.ts"
import { PlatformLive } from "../runtime.ts"
import { projectRootOf } from "../workspace/project-root.ts"
import { UsageError } from "./args.ts"
import type { CliIO } from "./output.ts"
import { commandConfig } from "./project.ts"

export const SESSIONS_HELP = `Usage: anvil sessions [--json]
       anvil sessions prune [--older-than AGE] [--json]

Lists this project's sessions (.anvil/sessions), most recently used first.
Continue one with 'anvil run --session ID' or 'anvil chat --session ID'; --continue takes the
last one that has an answer. A session whose file is broken (a line in the middle that is not a
session record, no header) is listed as DAMAGED with what is wrong ("damaged" in --json) and
cannot be continued; a last line cut short by a crash is not damage (it is dropped on resume).

prune removes sessions last used longer ago than AGE (7d, 12h, 30m; default: anvil.json
sessions.retention_days, 30 days) and sessions that never finished a turn. The same sweep by
retention_days runs whenever a new session starts (0 turns it off).
`

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s)

export const formatSessions = (sessions: ReadonlyArray<SessionSummary>): string => {
  if (sessions.length === 0) return "No sessions yet in this project.\n"
  const rows = sessions.map((s) => [
    s.id,
    s.updated_at.slice(0, 16).replace("T", " "),
    s.damaged !== undefined ? "-" : String(s.turns),
    s.model || "?",
    s.damaged !== undefined ? `DAMAGED: ${clip(s.damaged, 80)}` : clip(s.title, 60),
  ])
  const header = ["ID", "UPDATED (UTC)", "TURNS", "MODEL", "FIRST PROMPT"]
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)))
  const line = (cells: ReadonlyArray<string>) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join("  ")
  return `${[line(header), ...rows.map(line)].join("\n")}\n`
}

const AGE_UNITS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }

/** "7d", "12h", "30m", "2w" in milliseconds; undefined when it is not one. */
export const parseAge = (text: string): number | undefined => {
  const m = /^(\d+(?:\.\d+)?)\s*([mhdw])$/.exec(text.trim())
  return m ? Number(m[1]) * AGE_UNITS[m[2]!]! : undefined
}

const pruneCommand = async (argv: ReadonlyArray<string>, io: CliIO, root: string | undefined, strict: boolean): Promise<number> => {
  let olderThanMs: number | undefined
  let json = false
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!
    if (a === "--json") json = true
    else if (a === "--older-than" || a.startsWith("--older-than=")) {
      const v = a.includes("=") ? a.slice(a.indexOf("=") + 1) : argv[++i]
      olderThanMs = v === undefined ? undefined : parseAge(v)
      if (olderThanMs === undefined) throw new UsageError(`anvil sessions prune: --older-than takes an age like 7d, 12h or 30m, not ${shownValue(v ?? "")}`)
    } else throw new UsageError(`anvil sessions prune: unexpected argument ${shownValue(a)}`)
  }
  const dir = await Effect.runPromise(projectRootOf(io.cwd, root ?? io.env.ANVIL_ROOT).pipe(Effect.provide(PlatformLive)))
  // sessions.retention_days; with --strict, the configuration's warnings stop the command before anything is removed.
  const config = await commandConfig(io, dir, { strict })
  const report = await Effect.runPromise(
    Effect.gen(function* () {
      const days = config.get("sessions.retention_days", DEFAULT_RETENTION_DAYS)
      const age = olderThanMs ?? (days > 0 ? days * 86_400_000 : undefined)
      return yield* pruneSessions(dir, { ...(age !== undefined ? { olderThanMs: age } : {}), empty: true, now: Date.now() })
    }).pipe(Effect.provide(PlatformLive)),
  )
  io.out(
    json
      ? `${JSON.stringify(report)}\n`
      : `Removed ${report.removed.length} session${report.removed.length === 1 ? "" : "s"}; ${report.kept} kept.\n`,
  )
  return 0
}

/** `anvil sessions [--json]`, `anvil sessions prune [--older-than AGE]`. */
export const sessionsCommand = async (argv: ReadonlyArray<string>, io: CliIO, root: string | undefined, strict = false): Promise<number> => {
  if (argv[0] === "prune") return pruneCommand(argv.slice(1), io, root, strict)
  const json = argv.includes("--json")
  const unknown = argv.find((a) => a !== "--json")
  if (unknown !== undefined) throw new UsageError(`anvil sessions: unexpected argument ${shownValue(unknown)}`)
  const sessions = await Effect.runPromise(
    Effect.gen(function* () {
      const dir = yield* projectRootOf(io.cwd, root ?? io.env.ANVIL_ROOT)
      return yield* listSessions(dir)
    }).pipe(Effect.provide(PlatformLive)),
  )
  io.out(json ? `${JSON.stringify(sessions, null, 2)}\n` : formatSessions(sessions))
  return 0
}
