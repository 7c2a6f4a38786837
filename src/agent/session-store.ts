import { holdSessionLock, sessionInUse } from "./session-lock.ts"
import { newSessionId, sessionIdProblem } from "./session-id.ts"
import { Clock, Data, Effect, Result, Schema, SchemaIssue, type Scope } from "effect"
import { FileSystem } from "../workspace/file-system.ts"
import { Path } from "effect/Path"
import { ensureStateDir, plannedStateDir } from "../workspace/state-dir.ts"
import { HistoryItem, SummaryItem } from "./history.ts"
import type { LoopRecord } from "./loop-options.ts"

/**
 * Sessions as append-only JSON lines under `.anvil/sessions/<id>.jsonl`:
 *
 *   {"type":"session", id, created_at, cwd, model, profile, engine}   the header, once
 *   {"type":"item", item}                                              a history item (messages; tool items with envelope + execution_meta)
 *   {"type":"todos", todos}                                            the todo list, whenever a tool reports it
 *   {"type":"compaction", replaced, summary}                          the first `replaced` items became `summary`
 *   {"type":"turn_end", result}                                        a turn finished; the file is fsynced here
 *   {"type":"discard"}                                                 the lines since the last turn_end belong to a turn that never ended
 *   {"type":"model", model}                                            the session switched models (setModel): a resume continues with it
 *
 * A crash loses at most the turn in flight: loading keeps what the last
 * `turn_end` committed, and a broken last line is ignored.
 */
export const SessionHeader = Schema.Struct({
  type: Schema.Literal("session"),
  version: Schema.Literal(1),
  id: Schema.String,
  created_at: Schema.String,
  cwd: Schema.String,
  model: Schema.String,
  profile: Schema.String,
  engine: Schema.String,
})
export type SessionHeader = typeof SessionHeader.Type

/** One line of a session file; each is decoded with this Schema when the session is read back. */
export const SessionLine = Schema.Union([
  SessionHeader,
  Schema.Struct({ type: Schema.Literal("item"), item: HistoryItem }),
  Schema.Struct({ type: Schema.Literal("todos"), todos: Schema.Array(Schema.Unknown) }),
  Schema.Struct({ type: Schema.Literal("compaction"), replaced: Schema.Number, summary: SummaryItem }),
  // The whole result is written for readers of the file; loading reads only its answer.
  Schema.Struct({ type: Schema.Literal("turn_end"), result: Schema.Struct({ answer: Schema.optionalKey(Schema.String) }) }),
  Schema.Struct({ type: Schema.Literal("discard") }),
  Schema.Struct({ type: Schema.Literal("model"), model: Schema.String }),
])
export type SessionLine = typeof SessionLine.Type

const decodeLine = Schema.decodeUnknownResult(SessionLine)
const firstIssue = SchemaIssue.makeFormatterStandardSchemaV1()

/** A session that cannot be used; `damage` is set when its file is broken (what is wrong, without the path). */
export class SessionError extends Data.TaggedError("SessionError")<{ readonly message: string; readonly damage?: string }> {}

const damaged = (file: string, damage: string) => new SessionError({ message: `${file}: ${damage}`, damage })

/** A session as loaded from disk. */
export interface LoadedSession {
  readonly header: SessionHeader
  /** The committed history (turns that ended). */
  readonly items: ReadonlyArray<HistoryItem>
  /** The last todo list recorded in a committed turn. */
  readonly todos?: ReadonlyArray<unknown>
  readonly turns: number
  /** Whether a committed turn ended with an answer (what --continue looks for). */
  readonly answered: boolean
  /** Whether lines of an unfinished turn follow the last commit. */
  readonly uncommitted: boolean
  /** The first prompt, for listings. */
  readonly title: string
  /** The model the session last used: the header's, or the last one it switched to. */
  readonly model: string
}

/** Rebuilds a session from its lines. */
export const replaySession = (text: string, file: string): LoadedSession | SessionError => {
  const lines = text.split("\n")
  let header: SessionHeader | undefined
  let committed: Array<HistoryItem> = []
  let working: Array<HistoryItem> = []
  let committedTodos: ReadonlyArray<unknown> | undefined
  let todos: ReadonlyArray<unknown> | undefined
  let turns = 0
  let answered = false
  let uncommitted = false
  let title = ""
  let model: string | undefined
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!.trim()
    if (raw === "") continue
    let parsed: unknown
    try {
      parsed = JSON.parse(raw)
    } catch {
      if (i >= lines.length - 2) break // the last line, cut by a crash
      return damaged(file, `line ${i + 1} is not valid JSON`)
    }
    const decoded = decodeLine(parsed)
    if (Result.isFailure(decoded)) {
      const issue = firstIssue(decoded.failure.issue).issues[0]
      const where = issue?.path && issue.path.length > 0 ? ` at ${issue.path.map(String).join(".")}` : ""
      return damaged(file, `line ${i + 1} is not a session record (${issue?.message ?? "unexpected shape"}${where})`)
    }
    const line = decoded.success
    switch (line.type) {
      case "session":
        header = line
        break
      case "item":
        working.push(line.item)
        uncommitted = true
        // The first prompt names the session; context a start hook gave before it does not.
        if (!title && line.item.type === "user" && line.item.source !== "context") title = line.item.text
        break
      case "todos":
        todos = line.todos
        uncommitted = true
        break
      case "compaction":
        working = [line.summary, ...working.slice(line.replaced)]
        uncommitted = true
        break
      case "turn_end":
        committed = [...working]
        committedTodos = todos
        turns++
        if (line.result.answer !== undefined && line.result.answer.trim() !== "") answered = true
        uncommitted = false
        break
      case "discard":
        working = [...committed]
        todos = committedTodos
        uncommitted = false
        break
      case "model":
        // The choice stands whether or not a turn ran with it since.
        model = line.model
        break
    }
  }
  if (!header) return damaged(file, "not a session file (no header line)")
  return { header, items: committed, ...(committedTodos ? { todos: committedTodos } : {}), turns, answered, uncommitted, title, model: model ?? header.model }
}

export { newSessionId }


/** The sessions folder: `.anvil/sessions`, or the private cache folder when `.anvil` is not a real folder inside the root. */
export const sessionsDir = (_path: unknown, root: string) => plannedStateDir(root, "sessions")

/** An open session file: append records, commit (fsync) at each turn's end. */
export interface SessionWriter {
  readonly id: string
  readonly file: string
  readonly append: (line: SessionLine) => Effect.Effect<void>
  /** Appends the loop's record; a turn_end is followed by an fsync. */
  readonly record: (record: LoopRecord) => Effect.Effect<void>
}

const openWriter = (file: string, id: string, fresh = false) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem
    // A new session file is created exclusively: a name planted as a link is never written through.
    const handle = yield* fs.open(file, { flag: fresh ? "ax" : "a" })
    // Held while the session is open: another anvil cannot append its turns between ours (see session-lock.ts).
    if (!(yield* holdSessionLock(file))) {
      return yield* Effect.fail(
        new SessionError({
          message: `Session '${id}' is open in another anvil process right now; two at once would interleave their turns. Wait for that one to end, or start a new session (without --session/--continue).`,
        }),
      )
    }
    const encoder = new TextEncoder()
    // Write failures (a full disk) must not end the agent's turn: they are reported once and the session goes on in memory.
    let broken = false
    const write = (line: SessionLine, sync: boolean) =>
      Effect.gen(function* () {
        if (broken) return
        yield* handle.writeAll(encoder.encode(`${JSON.stringify(line)}\n`))
        if (sync) yield* handle.sync
      }).pipe(
        Effect.catch((e) =>
          Effect.sync(() => {
            broken = true
            process.stderr.write(`anvil: could not write the session file ${file}: ${e.message}\n`)
          }),
        ),
      )
    const append = (line: SessionLine) => write(line, line.type === "turn_end" || line.type === "session")
    const record = (r: LoopRecord): Effect.Effect<void> => {
      switch (r.type) {
        case "item": {
          const todos = r.item.type === "tool" && r.item.metadata.tool_raw_envelope.status !== "error" ? r.item.metadata.tool_raw_envelope.data.todos : undefined
          return Effect.andThen(append({ type: "item", item: r.item }), Array.isArray(todos) ? append({ type: "todos", todos }) : Effect.void)
        }
        case "compaction":
          return append({ type: "compaction", replaced: r.replaced, summary: r.summary })
        case "turn_end":
          return append({ type: "turn_end", result: r.result })
      }
    }
    return { id, file, append, record } satisfies SessionWriter
  })

/** Creates a new session file and writes its header. */
export const createSession = (
  root: string,
  meta: Omit<SessionHeader, "type" | "version" | "id" | "created_at">,
): Effect.Effect<SessionWriter, SessionError, FileSystem | Path | Scope.Scope> =>
  Effect.gen(function* () {
    const path = yield* Path
    const dir = yield* Effect.try({ try: () => ensureStateDir(root, "sessions"), catch: (e) => new SessionError({ message: `Could not create the sessions folder: ${String(e)}` }) })
    const now = yield* Clock.currentTimeMillis
    // Anvils started in the same second draw from 65,536 suffixes: a name another one took is drawn again.
    for (let attempt = 1; ; attempt++) {
      const id = newSessionId(now)
      const opened = yield* openWriter(path.join(dir, `${id}.jsonl`), id, true).pipe(Effect.result)
      if (opened._tag === "Failure") {
        const e = opened.failure
        if (attempt < 16 && e._tag === "PlatformError" && e.reason._tag === "AlreadyExists") continue
        return yield* Effect.fail(e)
      }
      const writer = opened.success
      yield* writer.append({ type: "session", version: 1, id, created_at: new Date(now).toISOString(), ...meta })
      return writer
    }
  }).pipe(Effect.mapError((e) => (e instanceof SessionError ? e : new SessionError({ message: `Could not create a session file: ${e.message}` }))))

/**
 * Loads a session by id, or, when `id` is undefined, the most recently used
 * one that has an answer (a session whose turns all failed, or that never
 * ran one, is passed over).
 */
export const loadSession = (root: string, id: string | undefined) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem
    const path = yield* Path
    const dir = sessionsDir(path, root)
    let chosen = id
    if (chosen === undefined) {
      const all = yield* listSessionFiles(root)
      const broken: Array<string> = []
      for (const entry of all) {
        const text = yield* fs.readFileString(entry.file).pipe(Effect.orElseSucceed(() => ""))
        const loaded = replaySession(text, entry.file)
        if (!(loaded instanceof SessionError) && loaded.answered) return { loaded, file: entry.file }
        if (loaded instanceof SessionError) broken.push(`${entry.id} (${loaded.damage ?? loaded.message})`)
      }
      // Damaged sessions are passed over; when they are why nothing can be continued, they are named.
      const damage =
        broken.length === 0
          ? ""
          : ` (${broken.length === all.length ? (all.length === 1 ? "it is" : "all are") : `${broken.length} of them ${broken.length === 1 ? "is" : "are"}`} damaged: ${broken.slice(0, 3).join("; ")}${broken.length > 3 ? "; …" : ""})`
      return yield* Effect.fail(
        new SessionError({
          message:
            all.length === 0
              ? "There is no session to continue in this project (.anvil/sessions is empty)."
              : `${all.length === 1 ? "This project's one session has no answer" : `None of this project's ${all.length} sessions has an answer`} to continue from${damage}; start a new one, or pick one with --session ID (see 'anvil sessions').`,
        }),
      )
    }
    const problem = sessionIdProblem("the session id", chosen)
    if (problem !== undefined) return yield* Effect.fail(new SessionError({ message: `${problem}.` }))
    const file = path.join(dir, `${chosen}.jsonl`)
    const text = yield* fs.readFileString(file).pipe(
      Effect.mapError(() => new SessionError({ message: `No session '${chosen}' in this project (see 'anvil sessions').` })),
    )
    const loaded = replaySession(text, file)
    if (loaded instanceof SessionError) {
      // Only a last line a crash cut short is passed over; a break before it could hide any part of the conversation.
      return yield* Effect.fail(
        new SessionError({
          message:
            `Session '${chosen}' is damaged and cannot be continued: ${loaded.damage ?? loaded.message} (${file}). ` +
            "Start a new session (without --session/--continue), or move the file away; 'anvil sessions' marks it damaged.",
          ...(loaded.damage !== undefined ? { damage: loaded.damage } : {}),
        }),
      )
    }
    return { loaded, file }
  })

/**
 * A copy of a loaded session under a new id (`--fork-session`): the same
 * history, so the conversation goes on there while the original stays as it was.
 */
export const forkSession = (loaded: LoadedSession, file: string, now: number) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem
    const path = yield* Path
    const id = newSessionId(now)
    const copy = path.join(path.dirname(file), `${id}.jsonl`)
    const text = yield* fs.readFileString(file).pipe(Effect.mapError(() => new SessionError({ message: `${file}: could not be read to fork it` })))
    const header = { ...loaded.header, id, created_at: new Date(now).toISOString() }
    const lines = text.split("\n")
    const first = lines.findIndex((l) => l.trim() !== "")
    lines[first] = JSON.stringify(header)
    // Created exclusively, like every new session file.
    yield* fs.writeFileString(copy, lines.join("\n"), { flag: "wx" }).pipe(Effect.mapError(() => new SessionError({ message: `${copy}: could not be created` })))
    return { loaded: { ...loaded, header }, file: copy }
  })

/**
 * Opens an existing session for appending (after {@link loadSession}); an unfinished turn is marked discarded.
 * A last line a crash cut short is cut off first: appended after it, the next record would share its line, and
 * the file would be broken in the middle from then on.
 */
export const resumeSession = (file: string, loaded: LoadedSession): Effect.Effect<SessionWriter, SessionError, FileSystem | Scope.Scope> =>
  Effect.gen(function* () {
    const fs = yield* FileSystem
    const text = yield* fs.readFileString(file)
    if (text !== "" && !text.endsWith("\n")) yield* fs.truncate(file, new TextEncoder().encode(text.slice(0, text.lastIndexOf("\n") + 1)).length)
    const writer = yield* openWriter(file, loaded.header.id)
    if (loaded.uncommitted) yield* writer.append({ type: "discard" })
    return writer
  }).pipe(Effect.mapError((e) => (e instanceof SessionError ? e : new SessionError({ message: `Could not open ${file}: ${e.message}` }))))

/** Session files, most recently used first. */
export const listSessionFiles = (root: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem
    const path = yield* Path
    const dir = sessionsDir(path, root)
    const names = yield* fs.readDirectory(dir).pipe(Effect.orElseSucceed(() => [] as Array<string>))
    const out: Array<{ id: string; file: string; mtime: number }> = []
    for (const name of names) {
      if (!name.endsWith(".jsonl")) continue
      const file = path.join(dir, name)
      const info = yield* fs.stat(file).pipe(Effect.option)
      const mtime = info._tag === "Some" && info.value.mtime._tag === "Some" ? info.value.mtime.value.getTime() : 0
      out.push({ id: name.slice(0, -".jsonl".length), file, mtime })
    }
    return out.sort((a, b) => b.mtime - a.mtime || b.id.localeCompare(a.id))
  })

/** What `anvil sessions` shows. */
export interface SessionSummary {
  readonly id: string
  readonly created_at: string
  readonly updated_at: string
  readonly model: string
  readonly profile: string
  readonly turns: number
  readonly title: string
  /** What is broken in the session's file; it is listed but cannot be continued. Fields the file no longer tells are "". */
  readonly damaged?: string
}

export const listSessions = (root: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem
    const out: Array<SessionSummary> = []
    for (const entry of yield* listSessionFiles(root)) {
      const read = yield* fs.readFileString(entry.file).pipe(Effect.result)
      const loaded = read._tag === "Failure" ? damaged(entry.file, `cannot be read (${read.failure.message})`) : replaySession(read.success, entry.file)
      if (loaded instanceof SessionError) {
        const header = read._tag === "Success" ? headerOf(read.success) : undefined
        out.push({
          id: entry.id,
          created_at: header?.created_at ?? "",
          updated_at: new Date(entry.mtime).toISOString(),
          model: header?.model ?? "",
          profile: header?.profile ?? "",
          turns: 0,
          title: "",
          damaged: loaded.damage ?? loaded.message,
        })
        continue
      }
      out.push({
        id: entry.id,
        created_at: loaded.header.created_at,
        updated_at: new Date(entry.mtime).toISOString(),
        model: loaded.model,
        profile: loaded.header.profile,
        turns: loaded.turns,
        title: loaded.title.replace(/\s+/g, " ").trim(),
      })
    }
    return out
  })

/** The header of a damaged session, when its first line still is one. */
const headerOf = (text: string): SessionHeader | undefined => {
  try {
    const first = JSON.parse(text.slice(0, text.indexOf("\n") === -1 ? text.length : text.indexOf("\n")))
    const decoded = decodeLine(first)
    return Result.isSuccess(decoded) && decoded.success.type === "session" ? decoded.success : undefined
  } catch {
    return undefined
  }
}

/** Sessions unused for this many days are removed when a new one starts (anvil.json sessions.retention_days; 0 keeps them). */
export const DEFAULT_RETENTION_DAYS = 30

/** What a prune removed. */
export interface PruneReport {
  readonly removed: ReadonlyArray<string>
  readonly kept: number
}

/** Sessions younger than this are never removed as empty: one may be starting its first turn right now. */
const EMPTY_GRACE_MS = 60 * 60 * 1000

/**
 * Removes sessions last used more than `olderThanMs` ago and, when `empty` is
 * set, sessions without a single finished turn (once they are an hour old).
 */
export const pruneSessions = (root: string, options: { readonly olderThanMs?: number; readonly empty: boolean; readonly now: number }) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem
    const removed: Array<string> = []
    const all = yield* listSessionFiles(root)
    for (const entry of all) {
      const age = options.now - entry.mtime
      let remove = options.olderThanMs !== undefined && age > options.olderThanMs
      if (!remove && options.empty && age > EMPTY_GRACE_MS) {
        // A file that cannot be read is kept: it is not known to be empty.
        const text = yield* fs.readFileString(entry.file).pipe(Effect.orElseSucceed(() => undefined))
        if (text !== undefined) {
          const loaded = replaySession(text, entry.file)
          // A file left with nothing in it (a start cut short before its header) holds no session to keep.
          remove = text.trim() === "" || (!(loaded instanceof SessionError) && loaded.turns === 0)
        }
      }
      // A session another process has open is never removed under it (its first turn may still be running).
      if (remove && sessionInUse(entry.file)) remove = false
      if (remove && (yield* fs.remove(entry.file).pipe(Effect.as(true), Effect.orElseSucceed(() => false)))) removed.push(entry.id)
    }
    return { removed, kept: all.length - removed.length } satisfies PruneReport
  })

/** Deletes a session file (an empty session at its end); a failure leaves it for `anvil sessions prune`. */
export const removeSessionFile = (file: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem
    yield* fs.remove(file).pipe(Effect.ignore)
  })
