import { Deferred, Effect, type Fiber } from "effect"
import { sizeOf } from "../process/file-capture.ts"
import { randomBytes } from "node:crypto"
import type { SpillStream } from "../output/spill-store.ts"
import { statusOf } from "./background-end.ts"
import type { BackgroundEnd, BackgroundEvent, BackgroundRequest, BackgroundShellView } from "./background-types.ts"
import type { ConfinedRun } from "./run-shell.ts"
import { NoSuchBackgroundShell } from "./shell-error.ts"

/**
 * The session's background commands as records, by id: each one's output file, how far it was read, how it ended;
 * and the listeners told of each start and end.
 */

/** One background command's record. */
export interface Job {
  readonly id: string
  readonly request: BackgroundRequest
  readonly cwd: string
  readonly file: SpillStream
  readonly shownPath: string
  readonly ended: Deferred.Deferred<void>
  fiber: Fiber.Fiber<void> | undefined
  sandbox: ConfinedRun["sandbox"] | undefined
  end: BackgroundEnd | undefined
  /** Bytes of the file already returned, and the lines in them. */
  cursor: number
  linesRead: number
  capped: boolean
  /** Its start was told (its end is told only after it). */
  announced: boolean
  endSeen: boolean
  /** Brings its output file up to date before it is looked at (a moved command's output is copied in then). */
  refresh: () => void
  /** It was a foreground command's, moved to the background while it ran. */
  moved?: boolean
}

export const makeJobTable = () => {
  const jobs = new Map<string, Job>()
  const listeners = new Set<(event: BackgroundEvent) => void>()

  const view = (job: Job): BackgroundShellView => ({
    id: job.id,
    command: job.request.shown,
    cwd: job.cwd,
    outputPath: job.shownPath,
    status: statusOf(job.end),
    ...(job.end ? { end: job.end } : {}),
    totalBytes: sizeOf(job.file.fd),
    sandbox: job.sandbox,
    endSeen: job.endSeen,
  })

  const tell = (type: BackgroundEvent["type"], job: Job) => {
    const event: BackgroundEvent = { type, shell: view(job), callId: job.request.callId, outputFile: job.file.path, ...(job.moved ? { moved: true } : {}) }
    for (const listener of listeners) {
      try {
        listener(event)
      } catch {
        // a listener's failure is its own
      }
    }
  }

  return {
    jobs,
    view,
    tell,
    /** The job as an answer shows it: once its end is shown, the model knows of it. */
    answered: (job: Job): BackgroundShellView => {
      if (job.end !== undefined) job.endSeen = true
      return view(job)
    },
    /** The job of an id, its output brought up to date. */
    find: (id: string) =>
      Effect.suspend(() => {
        const job = jobs.get(id.trim())
        if (!job) return Effect.fail(new NoSuchBackgroundShell({ id, known: [...jobs.keys()] }))
        job.refresh()
        return Effect.succeed(job)
      }),
    /**
     * Records how a job ended and tells it (after its start; a command that could not be started is the call's
     * error). The first end recorded stands.
     */
    settle: (job: Job, end: Omit<BackgroundEnd, "capped">) =>
      Effect.suspend(() => {
        if (job.end !== undefined) return Effect.void
        job.end = { ...end, capped: job.capped }
        if (job.announced) tell("ended", job)
        return Deferred.succeed(job.ended, undefined)
      }),
    /** A new job's record, its output file open. */
    newJob: (request: BackgroundRequest, cwd: string, file: SpillStream, shownPath: string): Job => {
      let id: string
      do id = `bash_${randomBytes(4).toString("hex")}`
      while (jobs.has(id))
      const job: Job = {
        id,
        request,
        cwd,
        file,
        shownPath,
        ended: Deferred.makeUnsafe<void>(),
        fiber: undefined,
        sandbox: undefined,
        end: undefined,
        cursor: 0,
        linesRead: 0,
        capped: false,
        announced: false,
        endSeen: false,
        refresh: () => undefined,
      }
      jobs.set(id, job)
      return job
    },
    subscribe: (listener: (event: BackgroundEvent) => void) => {
      listeners.add(listener)
      return () => void listeners.delete(listener)
    },
    list: () => [...jobs.values()].map(view),
  }
}

export type JobTable = ReturnType<typeof makeJobTable>
