import { Effect } from "effect"
import { listSessions, type SessionSummary } from "../agent/session-store.ts"
import { PlatformLive } from "../runtime.ts"
import { findProjectRoot } from "../workspace/project-root.ts"
import { Path } from "effect/Path"
import { UsageError } from "./args.ts"
import type { CliIO } from "./output.ts"

export const SESSIONS_HELP = `Usage: anvil sessions [--json]

Lists this project's sessions (.anvil/sessions), most recently used first.
Continue one with 'anvil run --session ID' or 'anvil chat --session ID', the latest with --continue.
`

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s)

export const formatSessions = (sessions: ReadonlyArray<SessionSummary>): string => {
  if (sessions.length === 0) return "No sessions yet in this project.\n"
  const rows = sessions.map((s) => [s.id, s.updated_at.slice(0, 16).replace("T", " "), String(s.turns), s.model, clip(s.title, 60)])
  const header = ["ID", "UPDATED (UTC)", "TURNS", "MODEL", "FIRST PROMPT"]
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)))
  const line = (cells: ReadonlyArray<string>) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join("  ")
  return `${[line(header), ...rows.map(line)].join("\n")}\n`
}

/** `anvil sessions [--json]`. */
export const sessionsCommand = async (argv: ReadonlyArray<string>, io: CliIO, root: string | undefined): Promise<number> => {
  const json = argv.includes("--json")
  const unknown = argv.find((a) => a !== "--json")
  if (unknown !== undefined) throw new UsageError(`anvil sessions: unexpected argument '${unknown}'`)
  const sessions = await Effect.runPromise(
    Effect.gen(function* () {
      const path = yield* Path
      const given = root ?? io.env.ANVIL_ROOT
      const dir = given ? path.resolve(io.cwd, given) : yield* findProjectRoot(io.cwd)
      return yield* listSessions(dir)
    }).pipe(Effect.provide(PlatformLive)),
  )
  io.out(json ? `${JSON.stringify(sessions, null, 2)}\n` : formatSessions(sessions))
  return 0
}
