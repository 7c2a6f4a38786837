import { Effect } from "effect"
import { mergeConfig, type ConfigData, type ConfigShape } from "../config/config.ts"
import { join } from "node:path"
import { readSettingsFile } from "../config/settings-file.ts"
import { isRecord } from "../protocol/is-record.ts"
import type { TrustStatus, TrustSubject } from "./trust.ts"
import { DEFAULT_MAX_PROCESSES, hostAllowed } from "../sandbox/settings.ts"

/**
 * Which `sandbox` settings of the project's own anvil.json apply. A cloned
 * repository must not be able to widen what commands (or anvil's tools) may
 * reach: a project setting that widens — a looser mode, `require: false`,
 * more writable folders or hosts, `auto_allow` back on, more `allow` folders,
 * secrets made readable (`allow_read`), secret-looking environment variables let through (`allow_env`), a higher or no process limit —
 * applies only once the user trusted the project's sandbox settings (the same
 * trust store as project plugins and MCP servers, kind "sandbox"); until then
 * it is ignored and reported. Settings that narrow always apply, and the
 * `protected` and `deny_read` lists of every file add up.
 */

/** Keys whose value can widen confinement. */
const WIDENING_KEYS = ["mode", "require", "writable", "network", "auto_allow", "allow", "allow_read", "allow_env", "max_processes"] as const
/** Lists that only narrow: the entries of every file apply. */
const NARROWING_LISTS = ["protected", "deny_read", "deny_env"] as const

/** The `sandbox` section to use, and what of the project's was left out. */
export interface ProjectSandbox {
  /** What `readSandboxSettings` reads (a value that is not an object is passed on, to be reported). */
  readonly section: unknown
  /** The project's widening settings that were ignored, as `sandbox.mode: "off"`. */
  readonly ignored: ReadonlyArray<string>
  /** Their keys in the `sandbox` section (`mode`), with the values the project file gives them. */
  readonly ignoredValues?: Readonly<Record<string, unknown>>
  /** Why they were ignored (never trusted, or changed since). */
  readonly trust?: Exclude<TrustStatus, "trusted">
  /** The notice to show when something was ignored (see {@link ignoredNotice}). */
  readonly notice?: string
}

const MODE_RANK: Record<string, number> = { "read-only": 0, "workspace-write": 1, off: 2 }

const networkRank = (v: unknown): number | undefined =>
  v === undefined || v === "off" || v === false || (Array.isArray(v) && v.length === 0) ? 0 : v === "on" || v === true ? 2 : Array.isArray(v) ? 1 : undefined

const strings = (v: unknown): ReadonlyArray<string> => (Array.isArray(v) ? v.filter((s): s is string => typeof s === "string") : [])

/** Whether every host pattern of `wanted` is already allowed by `base`. */
const hostsCovered = (wanted: ReadonlyArray<string>, base: ReadonlyArray<string>): boolean =>
  wanted.every((p) => base.includes("*") || base.includes(p) || (!p.includes("*") && hostAllowed(base, p)))

/**
 * Whether the project's `value` for `key` lets commands do more than `base`
 * (what the user's own settings give, undefined for the default). A value of
 * the wrong type is not widening: it is passed on and reported as an error.
 */
const widens = (key: (typeof WIDENING_KEYS)[number], value: unknown, base: unknown): boolean => {
  switch (key) {
    case "mode": {
      const rank = typeof value === "string" ? MODE_RANK[value] : undefined
      return rank !== undefined && rank > (MODE_RANK[typeof base === "string" ? base : ""] ?? MODE_RANK["workspace-write"]!)
    }
    case "require":
      return value === false && base === true
    case "auto_allow":
      return value === true && base === false
    case "max_processes": {
      const limit = (v: unknown) => (v === undefined ? DEFAULT_MAX_PROCESSES : v === 0 ? Infinity : typeof v === "number" ? v : undefined)
      const [mine, theirs] = [limit(value), limit(base) ?? DEFAULT_MAX_PROCESSES]
      return mine !== undefined && mine > theirs
    }
    case "writable":
    case "allow":
    case "allow_read":
    case "allow_env":
      return Array.isArray(value) && strings(value).some((p) => !strings(base).includes(p))
    case "network": {
      const rank = networkRank(value)
      const baseRank = networkRank(base) ?? 0
      if (rank === undefined || rank < baseRank) return false
      if (rank > baseRank) return true
      return rank === 1 && !hostsCovered(strings(value), strings(base))
    }
  }
}

/** What a trust decision about the project's sandbox covers: its widening settings as written. */
export const sandboxTrustSubject = (projectSection: ConfigData): TrustSubject => {
  const picked: Record<string, unknown> = {}
  for (const key of WIDENING_KEYS) if (projectSection[key] !== undefined) picked[key] = projectSection[key]
  return { kind: "sandbox", name: "anvil.json", content: { text: JSON.stringify(picked) } }
}

const sectionOf = (data: ConfigData | undefined): ConfigData => (data && isRecord(data.sandbox) ? (data.sandbox as ConfigData) : {})

const show = (key: string, value: unknown) => {
  const text = JSON.stringify(value) ?? String(value)
  return `sandbox.${key}: ${text.length > 80 ? `${text.slice(0, 77)}...` : text}`
}

/** The project file's `sandbox` section (empty when it has none). */
export const projectSandboxSection = (config: ConfigShape): ConfigData => sectionOf(config.layers.find((l) => l.source === "project file")?.data)

/**
 * The `sandbox` section that applies to the project at `root` (see the top of
 * this file). Reads the trust store only when the project would widen something.
 * A `mode` given on the command line (`modeFlag`) makes the project's mode moot.
 */
export const resolveProjectSandbox = (
  config: ConfigShape,
  root: string,
  modeFlag?: string,
): Effect.Effect<ProjectSandbox> =>
  Effect.gen(function* () {
    const at = config.layers.findIndex((l) => l.source === "project file")
    const lists: Record<string, ReadonlyArray<string>> = {}
    for (const key of NARROWING_LISTS) {
      const all = config.layers.flatMap((l) => strings(sectionOf(l.data)[key]))
      if (all.length > 0) lists[key] = [...new Set(all)]
    }
    if (config.data.sandbox !== undefined && !isRecord(config.data.sandbox)) return { section: config.data.sandbox, ignored: [] }
    const merged = { ...sectionOf(config.data), ...lists }
    if (at < 0) return { section: merged, ignored: [] }
    const project = sectionOf(config.layers[at]!.data)
    const base = sectionOf(config.layers.slice(0, at).reduce<ConfigData>((d, l) => mergeConfig(d, l.data), {}))
    const wide = WIDENING_KEYS.filter((k) => project[k] !== undefined && widens(k, project[k], base[k]) && !(k === "mode" && modeFlag !== undefined))
    if (wide.length === 0) return { section: merged, ignored: [] }
    // The store (and node:crypto) are loaded only for a project that would widen something.
    const { makeTrust } = yield* Effect.promise(() => import("./trust.ts"))
    const check = yield* makeTrust({ root, env: config.env })
      .check(sandboxTrustSubject(project))
      .pipe(Effect.orElseSucceed(() => ({ status: "untrusted" as const })))
    if (check.status === "trusted") return { section: merged, ignored: [] }
    const kept: Record<string, unknown> = { ...project }
    for (const k of wide) delete kept[k]
    const section = config.layers.reduce<ConfigData>((d, l, i) => mergeConfig(d, i === at ? { sandbox: kept } : { sandbox: sectionOf(l.data) }), {})
    const ignored = wide.map((k) => show(k, project[k]))
    return {
      section: { ...sectionOf(section), ...lists },
      ignored,
      ignoredValues: Object.fromEntries(wide.map((k) => [k, project[k]])),
      trust: check.status,
      notice: ignoredNotice({ ignored, trust: check.status })!,
    }
  })

/** The one-line notice for ignored project settings (stderr, stream-json, chat banner, bash's answer). */
export const ignoredNotice = (p: Pick<ProjectSandbox, "ignored" | "trust">): string | undefined =>
  p.ignored.length === 0
    ? undefined
    : `the project's anvil.json would widen the command sandbox (${p.ignored.join(", ")}) but ${
        p.trust === "changed" ? "changed since you trusted its sandbox settings" : "its sandbox settings are not trusted"
      }, so ${p.ignored.length === 1 ? "that setting was" : "those settings were"} ignored. Review them, then run 'anvil sandbox trust' to apply them in this project (or put them in your own ~/.config/anvil/anvil.json, or pass --sandbox MODE).`

/**
 * Trusts the sandbox settings the project's anvil.json has now: after anvil itself added a host the
 * user allowed "always" in chat, when nothing of the project's was being ignored before.
 */
export const retrustProjectSandbox = async (root: string, env: ConfigShape["env"]): Promise<void> => {
  const read = readSettingsFile(join(root, "anvil.json"))
  if (read.kind !== "text") return
  const { parseJsonc } = await import("../config/jsonc.ts")
  const data = parseJsonc(read.text)
  if (!isRecord(data)) return
  const { makeTrust } = await import("./trust.ts")
  await Effect.runPromise(makeTrust({ root, env }).trust(sandboxTrustSubject(sectionOf(data))).pipe(Effect.ignore))
}
