import { readFileSync, statSync } from "node:fs"
import { dirname, join, relative, sep } from "node:path"
import { standInFor, stateGuards } from "./anvil-state.ts"
import { anvilStateFolders, claudeConfigFolder } from "../workspace/state-dir.ts"
import { addedFolderEntries, claudeConfigEntries } from "./outside-protection.ts"
import { expandPath, inside, isDir, projectProtection, real } from "./protected-paths.ts"
import { standInExclude, type GitExclude } from "./git-exclude.ts"
import { ruleMaskMounts, type MasksRefusal } from "./rule-masks.ts"
import { BUILTIN_REDACTED, redactSecrets, secretsFromEnv } from "./secrets.ts"
import { secretPlaces } from "./secret-places.ts"
import type { RuleMask, SandboxMode, SandboxSettings } from "./settings.ts"

/** Where a policy is applied: real paths. */
export interface SandboxFacts {
  readonly root: string
  readonly home: string | undefined
  /** $XDG_CONFIG_HOME when set (anvil's settings and credential store live in its anvil/ folder). */
  readonly configHome: string | undefined
  /** The session's private temporary folder (TMPDIR inside). */
  readonly sessionTmp: string
  /** Unix sockets bound outside the sandbox (see listeningSockets); none when not given. */
  readonly sockets?: ReadonlyArray<string>
  /** The environment, for the secrets it moves elsewhere (KUBECONFIG, DOCKER_CONFIG…); none when not given. */
  readonly env?: Readonly<Record<string, string | undefined>>
  /** The project's private state folder (its real path), where what a walk found may be kept; none when not given. */
  readonly stateDir?: string
  /** The command was approved through the permission flow (a bash call): `read` asking about every file does not stop it. */
  readonly approved?: boolean
}

/** A settings file a command reads without its secrets: `text` is laid over `path`. */
export interface RedactedFile {
  readonly path: string
  readonly text: string
}

/** A protected path that does not exist yet: anvil puts an empty stand-in there while a command runs, so it cannot be created. */
export interface StandIn {
  readonly path: string
  readonly kind: "file" | "dir"
}

/** What the sandbox mounts, in order: writable folders, read-only paths over them, stand-ins, hidden paths. */
export interface SandboxPolicy {
  readonly mode: Exclude<SandboxMode, "off">
  readonly writable: ReadonlyArray<string>
  readonly readOnly: ReadonlyArray<string>
  /**
   * Folders inside writable ones that hold protected paths (`.git` for
   * `.git/hooks`), bound onto themselves: a mount point cannot be renamed or
   * removed, so the command cannot move the folder aside and make a new one
   * without the protection.
   */
  readonly pinned: ReadonlyArray<string>
  /** Paths that did not exist when the command started and must not exist after it (see GIT_REDIRECTS). */
  readonly mustStayAbsent: ReadonlyArray<string>
  readonly standIns: ReadonlyArray<StandIn>
  readonly hiddenDirs: ReadonlyArray<string>
  readonly hiddenFiles: ReadonlyArray<string>
  /**
   * Tracked paths inside hidden folders, made again inside the empty folder (/dev/null for a file or link, an empty
   * folder for a submodule): git sees them changed in type, which it refuses to stage, not deleted.
   */
  readonly hiddenTracked: ReadonlyArray<StandIn>
  /** The hidden places that are there because a `read` rule names them (real paths), with the rule, for the answer's hint. */
  readonly ruleMasks: ReadonlyArray<RuleMask>
  /**
   * Set when the `read` rules cannot be kept by hiding places, so no confined command runs (rule-masks.ts): `read`
   * refuses every file, the walk stopped early (permission/mask-walk.ts), more than MAX_RULE_MASKS mounts, or a
   * hidden folder's tracked files are unknown.
   */
  readonly masksRefused?: MasksRefusal
  /** Settings files with a token or password in them, read as copies without (see secrets.ts). */
  readonly redacted: ReadonlyArray<RedactedFile>
  /**
   * Unix sockets of programs outside the sandbox (a tmux server, Docker, D-Bus…),
   * covered by an empty file so no command can ask them to run something outside.
   */
  readonly hiddenSockets: ReadonlyArray<string>
  /** The repository's info/exclude with the stand-in files' names added, laid over it inside (see standInExclude). */
  readonly gitExclude?: GitExclude
  /** `sandbox.writable` entries that do not exist (reported, not mounted). */
  readonly missingWritable: ReadonlyArray<string>
  /** anvil's state folders a writable folder overlaps, kept read-only (or uncreatable) all the same (anvil-state.ts). */
  readonly anvilState: ReadonlyArray<string>
  /** Claude Code's config folder, whose settings, hooks, plugins, agents, commands and skills stay read-only (outside-protection.ts). */
  readonly claudeConfig?: string
}

/**
 * Builds the mounts for `settings` on this machine. Pure apart from looking at
 * which paths exist (existing paths are bound; missing protected ones get
 * stand-ins; missing secrets need nothing).
 */
export const buildPolicy = (settings: SandboxSettings, facts: SandboxFacts): SandboxPolicy | undefined => {
  if (settings.mode === "off") return undefined
  const { root, home } = facts
  const writable: Array<string> = [facts.sessionTmp]
  const missingWritable: Array<string> = []
  const readOnly: Array<string> = []
  const standIns: Array<StandIn> = []
  const mustStayAbsent: Array<string> = []
  let gitExclude: GitExclude | undefined
  const claudeConfig = claudeConfigFolder(home, facts.env ?? {})
  // A protected entry (root-relative or absolute): read-only where a writable folder holds it, a stand-in where a command could make it.
  const hold = (entry: string) => {
    const wantDir = entry.endsWith("/")
    const abs = expandPath(wantDir ? entry.slice(0, -1) : entry, root, home)
    const existing = real(abs)
    if (existing) {
      if (writable.some((w) => inside(existing, w)) && !inside(root, existing) && !inside(facts.sessionTmp, existing)) readOnly.push(existing)
      return
    }
    const standIn = standInFor(abs, wantDir ? "dir" : "file", writable)
    if (standIn) standIns.push(standIn)
  }
  if (settings.mode === "workspace-write") {
    writable.push(root)
    const added: Array<string> = []
    for (const entry of settings.writable) {
      const p = real(expandPath(entry, root, home))
      if (p) added.push(p)
      else missingWritable.push(entry)
    }
    writable.push(...added)
    const protection = projectProtection(root, home, settings.protected)
    const { linked, commonDir } = protection
    // A linked checkout's git folders: git commit writes there, while their hooks and config stay protected.
    if (linked) writable.push(linked.gitDir, linked.commonDir)
    mustStayAbsent.push(...protection.mustStayAbsent)
    for (const entry of protection.entries) hold(entry)
    // Every other writable folder (sandbox.writable, --add-dir) keeps the same list, and Claude Code's config folder
    // its settings and hooks: written there, they would run outside the sandbox at the next start.
    for (const entry of [...addedFolderEntries(added, root, [root, facts.sessionTmp], home), ...claudeConfigEntries(claudeConfig)]) hold(entry)
    if (commonDir) gitExclude = standInExclude(commonDir, root, standIns)
  }
  // anvil's own state, whatever sandbox.writable says (read-only mode writes only the session's folder).
  const state = stateGuards(anvilStateFolders(home, facts.env ?? {}), writable, [root, facts.sessionTmp])
  readOnly.push(...state.readOnly)
  standIns.push(...state.standIns)
  const { hiddenDirs, hiddenFiles, hiddenTracked, redacted, ruleMasks, masksRefused } = hiddenSecrets(settings, facts, writable)
  const writableSet = [...new Set(writable)]
  // anvil's own proxy socket lives in the session folder; sockets under a hidden folder are gone already.
  const hiddenSockets = (facts.sockets ?? []).filter((s) => !inside(s, facts.sessionTmp) && !hiddenDirs.some((d) => inside(s, d)))
  return {
    mode: settings.mode,
    writable: writableSet,
    readOnly: [...new Set(readOnly)],
    pinned: pinnedFolders([...readOnly, ...standIns.map((s) => s.path)], writableSet),
    mustStayAbsent,
    standIns,
    ...(gitExclude ? { gitExclude } : {}),
    hiddenDirs,
    hiddenFiles,
    hiddenTracked,
    ruleMasks,
    ...(masksRefused ? { masksRefused } : {}),
    redacted,
    hiddenSockets,
    missingWritable,
    anvilState: state.guarded,
    ...(claudeConfig !== undefined ? { claudeConfig: real(claudeConfig) ?? claudeConfig } : {}),
  }
}

/**
 * The secrets a command may not read, as they are on this machine: the
 * built-in list (secrets.ts) and the places the environment names, less
 * `sandbox.allow_read`, plus `sandbox.deny_read` (which always applies); the
 * settings files among them with a secret in them as redacted copies. A path
 * holding the project or the session's folder is never hidden (that would
 * hide the project itself).
 */
const hiddenSecrets = (settings: SandboxSettings, facts: SandboxFacts, writable: ReadonlyArray<string>) => {
  const { root, home } = facts
  const fromEnv = secretsFromEnv(facts.env ?? {})
  const abs = (entry: string) => expandPath(entry.endsWith("/") ? entry.slice(0, -1) : entry, root, home)
  const allowed = new Set(settings.allowRead.map(abs))
  const hiddenDirs: Array<string> = []
  const hiddenFiles: Array<string> = []
  const redacted: Array<RedactedFile> = []
  // A set as well as the lists: the read rules may add a thousand places, each checked against all before it.
  const taken = new Set<string>()
  const seen = (p: string) => taken.has(p) || redacted.some((r) => r.path === p)
  const hide = (p: string, dir: boolean) => {
    taken.add(p)
    if (dir) hiddenDirs.push(p)
    else hiddenFiles.push(p)
  }
  for (const place of secretPlaces(settings, root, home, facts.configHome, facts.env ?? {})) {
    const p = real(place.path)
    if (!p || seen(p) || inside(root, p) || inside(facts.sessionTmp, p)) continue
    hide(p, isDir(p))
  }
  for (const entry of [...BUILTIN_REDACTED, ...fromEnv.redacted]) {
    const wanted = abs(entry)
    const p = allowed.has(wanted) ? undefined : real(wanted)
    if (!p || seen(p) || allowed.has(p) || hiddenDirs.some((d) => inside(p, d))) continue
    let text: string
    try {
      if (!statSync(p).isFile()) continue
      text = readFileSync(p, "utf8")
    } catch {
      continue
    }
    const clean = redactSecrets(text)
    if (clean !== undefined) redacted.push({ path: p, text: clean })
  }
  const { stateDir } = facts
  const keepIn = stateDir !== undefined && mayKeepState(stateDir, root, writable) ? join(stateDir, "read-masks.json") : undefined
  const masks = ruleMaskMounts(settings.readMasks, [...allowed], facts, keepIn)
  for (const { path: p, dir } of masks.places) if (!seen(p)) hide(p, dir)
  // Nothing can be mounted inside an empty folder laid over its parent (and it is hidden with it).
  const outer = (p: string) => !hiddenDirs.some((d) => d !== p && inside(p, d))
  const dirs = hiddenDirs.filter(outer)
  // A tracked path is made again in the folder hidden over it, unless that folder lies in another hidden one.
  const hiddenTracked = masks.tracked.filter((t) => dirs.includes(t.under)).map((t): StandIn => ({ path: t.path, kind: t.kind }))
  return { hiddenDirs: dirs, hiddenFiles: hiddenFiles.filter(outer), hiddenTracked, redacted, ruleMasks: masks.ruleMasks, masksRefused: masks.refused }
}

/**
 * Whether the sandbox may keep what its walks found (read-mask folders, nested repositories) in the project's
 * state folder for the next anvil process: only where neither a confined command (the policy's writable
 * folders) nor anvil's own file tools (the whole project, whatever the mode) can write, since a planted entry
 * would hide a file from the read rules or a repository from its protection.
 */
export const mayKeepState = (stateDir: string, root: string, writable: ReadonlyArray<string>): boolean =>
  !inside(stateDir, root) && !writable.some((w) => inside(stateDir, w))

/**
 * The folders between each protected path and the writable folder holding it,
 * outermost first (a mount over a folder must come before the mounts inside it).
 */
const pinnedFolders = (protectedPaths: ReadonlyArray<string>, writable: ReadonlyArray<string>): Array<string> => {
  const out = new Set<string>()
  for (const p of protectedPaths) {
    const holder = writable.filter((w) => w !== p && inside(p, w)).sort((a, b) => b.length - a.length)[0]
    if (!holder) continue
    for (let dir = dirname(p); dir !== holder && inside(dir, holder); dir = dirname(dir)) out.add(dir)
  }
  return [...out].sort((a, b) => a.split(sep).length - b.split(sep).length)
}

/** Where a path stands in the policy, for hints. */
export const classifyPath = (policy: SandboxPolicy, path: string): "protected" | "masked" | "secret" | "outside" | "read-only-mode" | "writable" => {
  if (maskOf(policy, path)) return "masked"
  if (policy.hiddenDirs.some((h) => inside(path, h)) || policy.hiddenFiles.includes(path)) return "secret"
  if (policy.readOnly.some((r) => inside(path, r)) || policy.standIns.some((s) => inside(path, s.path)) || policy.mustStayAbsent.includes(path)) return "protected"
  if (policy.writable.some((w) => inside(path, w))) return "writable"
  return policy.mode === "read-only" ? "read-only-mode" : "outside"
}

/** The `read` rule mask that hides `path` (the place or a folder holding it), if any. */
export const maskOf = (policy: SandboxPolicy, path: string): RuleMask | undefined => policy.ruleMasks.find((m) => inside(path, m.path))

/** Root-relative form of a path inside the root (for messages), else the path. */
export const showPath = (root: string, p: string) => (inside(p, root) ? relative(root, p) || "." : p)
