import { Data } from "effect"
import { isRecord } from "../protocol/is-record.ts"

/** How bash commands (and verify, and repository hooks) are confined. */
export type SandboxMode = "workspace-write" | "read-only" | "off"

export const SANDBOX_MODES: ReadonlyArray<SandboxMode> = ["workspace-write", "read-only", "off"]

/** Network inside the sandbox: none, the host's, or only these hosts through anvil's proxy. */
export type NetworkPolicy = { readonly kind: "off" } | { readonly kind: "on" } | { readonly kind: "hosts"; readonly hosts: ReadonlyArray<string> }

/** A place a permission rule keeps from commands (absolute), and the rule as written with its file, for messages. */
export interface RuleMask {
  readonly path: string
  readonly rule: string
  /** The rule's level: an ask rule hides as a deny rule does (a command cannot stop to ask), and the answer says which. */
  readonly level?: "deny" | "ask"
}

/** Entries the walk for the `read` rules' patterns looks at before it stops (permission/mask-walk.ts): a command's start must not wait on a huge tree. */
export const MAX_MASK_ENTRIES = 50_000

/**
 * The places the `read` rules hide as a command starts; `stopped`: the walk for patterns stopped before the end;
 * `everything`: the rule as written when `read`'s own level refuses every path (no place to hide); `asked`: the rule
 * when it asks about every path (only a command approved through the permission flow may run, see WrapRequest).
 * `keepIn`: a file where the walk may keep what it found for the next anvil process (one no command can write).
 */
export type ReadMasks = (keepIn?: string) => {
  readonly places: ReadonlyArray<RuleMask>
  readonly stopped: boolean
  readonly everything?: string
  readonly asked?: string
  /** The rule (as written) of an absolute pattern whose places outside the project cannot all be found (permission/outside-walks.ts). */
  readonly unwalkable?: string
}

/** anvil.json `sandbox.*`, read and checked. */
export interface SandboxSettings {
  readonly mode: SandboxMode
  /** Refuse to run commands when the sandbox cannot start (instead of warning and falling back). */
  readonly require: boolean
  /** Extra folders commands may write (absolute, or relative to the project root). */
  readonly writable: ReadonlyArray<string>
  /** Extra paths inside the root that stay read-only (relative to the root, or absolute). */
  readonly protected: ReadonlyArray<string>
  /** Extra paths commands may not read (`~/` is the home folder). */
  readonly denyRead: ReadonlyArray<string>
  /**
   * The places the `read` deny and ask rules name or match (permission/read-masks.ts), looked for as each command
   * starts: hidden from commands too, unless git needs it (see hideablePlaces).
   */
  readonly readMasks?: ReadMasks
  /** Built-in secrets commands may read after all (the user's choice: a project's own list applies only once trusted). */
  readonly allowRead: ReadonlyArray<string>
  /** Environment variables (glob patterns) commands get although they look secret (a project's own only once trusted). */
  readonly allowEnv: ReadonlyArray<string>
  /** Environment variables (glob patterns) commands never get. */
  readonly denyEnv: ReadonlyArray<string>
  /** The most processes (and threads) one command's tree may have at once; 0 for no limit. */
  readonly maxProcesses: number
  readonly network: NetworkPolicy
  /** Sandboxed bash calls need no approval (deny and explicit ask rules still apply). */
  readonly autoAllow: boolean
  /** Set when the project's anvil.json would widen the sandbox and is not trusted for that: what was ignored, and the next step. */
  readonly projectIgnored?: string
}

/**
 * Processes and threads one command may have at once: far above what a build
 * or a test run starts (a parallel compile of 2 × cores jobs, a JVM's threads),
 * far below what stops the machine (the kernel's default pid_max is 32,768).
 */
export const DEFAULT_MAX_PROCESSES = 4096

/** A `sandbox` setting that cannot be used, with the key and what is accepted. */
export class SandboxSettingsError extends Data.TaggedError("SandboxSettingsError")<{ readonly message: string }> {}


const strings = (value: unknown, key: string, example = `a list of paths (strings), e.g. ["../shared-cache"]`): ReadonlyArray<string> => {
  if (value === undefined) return []
  if (!Array.isArray(value) || value.some((v) => typeof v !== "string" || v.trim() === "")) {
    throw new SandboxSettingsError({ message: `sandbox.${key} must be ${example}` })
  }
  return value as ReadonlyArray<string>
}

/** A list of environment variable names, `*` and `?` matching any characters and one. */
const envNames = (value: unknown, key: string): ReadonlyArray<string> => {
  const list = strings(value, key, `a list of environment variable names or patterns, e.g. ["GITHUB_TOKEN", "CI_*"]`)
  const bad = list.find((n) => n.includes("="))
  if (bad !== undefined) throw new SandboxSettingsError({ message: `sandbox.${key} names variables, without a value: ${JSON.stringify(bad)}` })
  return list
}

/**
 * Reads the `sandbox` section of anvil.json, with `modeFlag` (`--sandbox
 * MODE`, where `require` means workspace-write with require on) applied over
 * it. Throws SandboxSettingsError naming the key on a bad value.
 */
export const readSandboxSettings = (section: unknown, modeFlag?: string): SandboxSettings => {
  const s = isRecord(section) ? section : {}
  if (section !== undefined && !isRecord(section)) throw new SandboxSettingsError({ message: "sandbox must be an object, e.g. { \"mode\": \"workspace-write\" }" })
  const modeOf = (value: unknown, where: string): SandboxMode => {
    if ((SANDBOX_MODES as ReadonlyArray<unknown>).includes(value)) return value as SandboxMode
    throw new SandboxSettingsError({ message: `${where} is one of ${SANDBOX_MODES.join(", ")} (or require), not ${JSON.stringify(value)}` })
  }
  let mode: SandboxMode = s.mode === undefined ? "workspace-write" : modeOf(s.mode, "sandbox.mode")
  if (s.require !== undefined && typeof s.require !== "boolean") throw new SandboxSettingsError({ message: "sandbox.require is true or false" })
  let require = s.require === true
  if (modeFlag !== undefined) {
    if (modeFlag === "require") {
      require = true
      if (mode === "off") mode = "workspace-write"
    } else mode = modeOf(modeFlag, "--sandbox")
  }
  if (s.auto_allow !== undefined && typeof s.auto_allow !== "boolean") throw new SandboxSettingsError({ message: "sandbox.auto_allow is true or false" })
  const max = s.max_processes
  if (max !== undefined && !(typeof max === "number" && Number.isInteger(max) && max >= 0 && max <= 4_194_304)) {
    throw new SandboxSettingsError({ message: `sandbox.max_processes is a whole number of processes (0 for no limit), e.g. ${DEFAULT_MAX_PROCESSES}, not ${JSON.stringify(max)}` })
  }
  return {
    mode,
    require,
    writable: strings(s.writable, "writable"),
    protected: strings(s.protected, "protected"),
    denyRead: strings(s.deny_read, "deny_read"),
    allowRead: strings(s.allow_read, "allow_read"),
    allowEnv: envNames(s.allow_env, "allow_env"),
    denyEnv: envNames(s.deny_env, "deny_env"),
    maxProcesses: typeof max === "number" ? max : DEFAULT_MAX_PROCESSES,
    network: networkOf(s.network),
    autoAllow: s.auto_allow !== false,
  }
}

const networkOf = (value: unknown): NetworkPolicy => {
  if (value === undefined || value === "off" || value === false) return { kind: "off" }
  if (value === "on" || value === true) return { kind: "on" }
  if (Array.isArray(value) && value.every((v) => typeof v === "string" && /^[A-Za-z0-9*._:[\]-]+$/.test(v))) {
    return value.length === 0 ? { kind: "off" } : { kind: "hosts", hosts: value as ReadonlyArray<string> }
  }
  throw new SandboxSettingsError({
    message: `sandbox.network is "off", "on" or a list of host names (wildcards like "*.npmjs.org"), not ${JSON.stringify(value)}`,
  })
}

/** Whether `host` is named by one of `patterns`: exact (case-insensitive), `*.example.org` for its subdomains, `*` for any. */
export const hostAllowed = (patterns: ReadonlyArray<string>, host: string): boolean => {
  const h = host.toLowerCase().replace(/^\[|\]$/g, "").replace(/\.$/, "")
  return patterns.some((raw) => {
    const p = raw.toLowerCase().replace(/^\[|\]$/g, "")
    if (p === "*") return true
    if (p.startsWith("*.")) return h.endsWith(p.slice(1)) && h.length > p.length - 1
    return h === p
  })
}

/** How the network setting reads in reports. */
export const showNetwork = (n: NetworkPolicy): string => (n.kind === "hosts" ? `only ${n.hosts.join(", ")} (through anvil's proxy)` : n.kind)
