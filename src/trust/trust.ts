import { realpathSync } from "node:fs"
import { join, resolve } from "node:path"
import { Clock, Context, Data, Effect, Layer } from "effect"
import { hashContent, HashProblem, stampContent, type Stamps, type TrustContent } from "./content-hash.ts"
import { readTrustFile, writeTrustFile, type TrustFile, type TrustRecord } from "./trust-store.ts"
import { userConfigHome } from "../workspace/state-dir.ts"

export type { TrustContent } from "./content-hash.ts"

/**
 * Trust for what came with a repository and runs code: project plugins,
 * project MCP servers, repository command hooks. Nothing of the kind runs
 * until the user trusted its content; trust is the content's sha256, stored
 * per project (its real root path) in `$XDG_CONFIG_HOME/anvil/trust.json`
 * (`~/.config/anvil/trust.json`), never in the repository, so a clone cannot
 * trust itself. A change to the content makes it `changed`: it asks again.
 *
 * Usage (an extension's loader):
 * ```ts
 * const trust = yield* Trust
 * const subject = { kind: "mcp", name: "github", content: { text: JSON.stringify(serverConfig) } }
 * const state = yield* trust.check(subject)        // "trusted" | "untrusted" | "changed"
 * if (state.status !== "trusted") report(`run 'anvil mcp trust github'`)
 * yield* trust.trust(subject)                       // `anvil mcp trust github`
 * ```
 */

/** Which family a subject belongs to; the key in the store is `<kind>:<name>`. */
export type TrustKind = "plugin" | "mcp" | "hook" | (string & {})

/** Something to trust: a name the user sees and the content the decision covers. */
export interface TrustSubject {
  readonly kind: TrustKind
  /** Unique within the kind in one project, e.g. the plugin's or server's name. */
  readonly name: string
  readonly content: TrustContent
}

/**
 * - `trusted`: the stored hash matches (or the kind is assumed trusted for this run);
 * - `untrusted`: never trusted in this project;
 * - `changed`: trusted once, but the content is different now.
 */
export type TrustStatus = "trusted" | "untrusted" | "changed"

export interface TrustCheck {
  readonly status: TrustStatus
  /** The content's current hash (`sha256:…`). */
  readonly hash: string
  /** True when trusted only because of a one-run override (`--trust-plugins`), not the store. */
  readonly assumed: boolean
}

/** A stored decision of the current project. */
export interface TrustEntry extends TrustRecord {
  readonly kind: string
  readonly name: string
}

/** The store could not be read or written, or a subject's content could not be hashed. */
export class TrustError extends Data.TaggedError("TrustError")<{
  readonly reason: "unreadable_content" | "store" | "no_config_folder"
  readonly message: string
}> {}

export interface TrustShape {
  /** The project's real root path: the key its decisions are stored under. */
  readonly project: string
  /** The store file; undefined when neither XDG_CONFIG_HOME nor HOME is set (nothing can be trusted then). */
  readonly file: string | undefined
  /**
   * Where a subject stands now. Hashes the content (a stat-only fingerprint skips re-reading an unchanged folder);
   * `stamps` (content-hash.ts stampsOnce) shares the fingerprint with the other checks of the same start.
   */
  readonly check: (subject: TrustSubject, stamps?: Stamps) => Effect.Effect<TrustCheck, TrustError>
  /** Records the subject's current content as trusted; returns its check (now `trusted`). */
  readonly trust: (subject: TrustSubject) => Effect.Effect<TrustCheck, TrustError>
  /** Forgets a decision; false when there was none. */
  readonly untrust: (kind: TrustKind, name: string) => Effect.Effect<boolean, TrustError>
  /** The current project's decisions, optionally of one kind, sorted by key. */
  readonly entries: (kind?: TrustKind) => Effect.Effect<ReadonlyArray<TrustEntry>, TrustError>
}

export interface TrustOptions {
  /** The project root (resolved to its real path). */
  readonly root: string
  /** The environment: XDG_CONFIG_HOME, else HOME/.config. */
  readonly env: Readonly<Record<string, string | undefined>>
  /** Kinds trusted for this run without asking (`anvil run --trust-plugins` assumes "plugin" and "hook"). */
  readonly assume?: ReadonlyArray<TrustKind>
}

/** `$XDG_CONFIG_HOME/anvil/trust.json`, else `$HOME/.config/anvil/trust.json`. */
export const trustFilePath = (env: TrustOptions["env"]): string | undefined => {
  const configHome = userConfigHome(env)
  return configHome ? join(configHome, "anvil", "trust.json") : undefined
}

const keyOf = (kind: string, name: string) => `${kind}:${name}`

const storeError = (e: unknown) =>
  new TrustError({ reason: "store", message: `trust store: ${e instanceof Error ? e.message : String(e)}` })

/** Builds the service; exported for tests that want one without a layer. */
export const makeTrust = (options: TrustOptions): TrustShape => {
  const project = (() => {
    try {
      return realpathSync(options.root)
    } catch {
      return resolve(options.root)
    }
  })()
  const file = trustFilePath(options.env)
  const assumed = new Set(options.assume ?? [])
  const read = Effect.try({ try: (): TrustFile => (file ? readTrustFile(file) : { version: 1, projects: {} }), catch: storeError })

  // Hashes made by this instance, by stamp: `anvil plugins trust` checks a subject, then trusts it, and its
  // unchanged folder is read once, not twice.
  const hashed = new Map<string, string>()
  const measure = (subject: TrustSubject, recorded: TrustRecord | undefined, stamps: Stamps = stampContent) =>
    Effect.try({
      try: () => {
        const stamp = stamps(subject.content)
        if (recorded && stamp !== undefined && recorded.stamp === stamp) return { hash: recorded.hash, stamp }
        const known = stamp !== undefined ? hashed.get(stamp) : undefined
        if (known !== undefined) return { hash: known, stamp }
        const hash = hashContent(subject.content)
        if (stamp !== undefined) hashed.set(stamp, hash)
        return { hash, stamp }
      },
      catch: (e) =>
        new TrustError({
          reason: "unreadable_content",
          message: `cannot read ${subject.kind} '${subject.name}' to check its trust: ${e instanceof Error || e instanceof HashProblem ? e.message : String(e)}`,
        }),
    })

  const check = (subject: TrustSubject, stamps?: Stamps) =>
    Effect.gen(function* () {
      const store = yield* read
      const recorded = store.projects[project]?.[keyOf(subject.kind, subject.name)]
      const { hash } = yield* measure(subject, recorded, stamps)
      if (recorded?.hash === hash) return { status: "trusted", hash, assumed: false } satisfies TrustCheck
      if (assumed.has(subject.kind)) return { status: "trusted", hash, assumed: true } satisfies TrustCheck
      return { status: recorded ? "changed" : "untrusted", hash, assumed: false } satisfies TrustCheck
    })

  const update = (change: (decisions: Record<string, TrustRecord>) => void) =>
    Effect.gen(function* () {
      if (!file) {
        return yield* new TrustError({
          reason: "no_config_folder",
          message: "cannot record trust: neither XDG_CONFIG_HOME nor HOME is set",
        })
      }
      const store = yield* read
      const decisions = { ...store.projects[project] }
      change(decisions)
      const projects = { ...store.projects, [project]: decisions }
      if (Object.keys(decisions).length === 0) delete projects[project]
      yield* Effect.try({ try: () => writeTrustFile(file, { version: 1, projects }), catch: storeError })
    })

  return {
    project,
    file,
    check,
    trust: (subject) =>
      Effect.gen(function* () {
        const store = yield* read
        const { hash, stamp } = yield* measure(subject, store.projects[project]?.[keyOf(subject.kind, subject.name)])
        const now = yield* Clock.currentTimeMillis
        yield* update((d) => {
          d[keyOf(subject.kind, subject.name)] = { hash, ...(stamp ? { stamp } : {}), trusted_at: new Date(now).toISOString() }
        })
        return { status: "trusted", hash, assumed: false } satisfies TrustCheck
      }),
    untrust: (kind, name) =>
      Effect.gen(function* () {
        let had = false
        yield* update((d) => {
          had = keyOf(kind, name) in d
          delete d[keyOf(kind, name)]
        })
        return had
      }),
    entries: (kind) =>
      read.pipe(
        Effect.map((store) =>
          Object.entries(store.projects[project] ?? {})
            .map(([key, record]) => {
              const at = key.indexOf(":")
              return { ...record, kind: key.slice(0, at), name: key.slice(at + 1) }
            })
            .filter((e) => kind === undefined || e.kind === kind)
            .sort((a, b) => (keyOf(a.kind, a.name) < keyOf(b.kind, b.name) ? -1 : 1)),
        ),
      ),
  }
}

/** The trust decisions of one project. */
export class Trust extends Context.Service<Trust, TrustShape>()("anvil/Trust") {
  static layer = (options: TrustOptions) => Layer.sync(Trust, () => makeTrust(options))
}
