import { isAbsolute, resolve } from "node:path"
import { classifyPath, maskOf, showPath, type SandboxPolicy } from "./policy.ts"
import { inside } from "./protected-paths.ts"
import { GIT_STOPPED, maskedRefusal, maskedOnLine } from "./masked-hint.ts"
import type { NetworkPolicy } from "./settings.ts"

/** Something the sandbox refused during a command, with the setting that would allow it. */
export interface SandboxRefusal {
  readonly kind: "write" | "protected" | "masked" | "secret" | "network" | "host" | "socket"
  /** The path or host concerned, when known. */
  readonly subject?: string
  /** What happened and how to widen the rule, naming the exact setting. */
  readonly message: string
}

export interface DiagnoseInput {
  readonly policy: SandboxPolicy
  readonly network: NetworkPolicy
  readonly root: string
  readonly cwd: string
  readonly home: string | undefined
  /** The end of stdout and stderr. */
  readonly output: string
  /** The command line, when known. */
  readonly command?: string
  /** Hosts anvil's proxy refused while the command ran. */
  readonly refusedHosts: ReadonlyArray<string>
}

const ESCAPE = "or run this one command with sandbox: false (the user is asked)"

/** The path a "Read-only file system" line is about: a quoted path, else the word before the colon. */
const pathOnLine = (line: string): string | undefined => {
  const quoted = /['"‘`]([^'"’`]+)['"’`]/.exec(line.slice(0, line.search(/read-only file system|EROFS/i) + 60))
  if (quoted) return quoted[1]
  const bare = /(?:cannot create|can't create|cannot touch|cannot open|open)\s+(\S+?):?\s/i.exec(line)
  return bare?.[1]
}

const BUSY = /device or resource busy|EBUSY/i

/** The path a "Device or resource busy" line is about: the first quoted path, else the word before the colon. */
const busyPath = (line: string): string | undefined =>
  /['"‘`]([^'"’`]+)['"’`]/.exec(line)?.[1] ?? /(\S+?):\s*(?:device or resource busy|EBUSY)/i.exec(line)?.[1]

/**
 * Reads a command's output for the sandbox's fingerprints (EROFS writes,
 * unreadable secrets, a missing network, hosts the proxy refused) and says
 * for each which setting widens the rule. A command's own errors that merely
 * look alike are possible; the messages say "the sandbox refused" only where
 * the path or host is one the policy covers.
 */
export const diagnose = (d: DiagnoseInput): ReadonlyArray<SandboxRefusal> => {
  const out: Array<SandboxRefusal> = []
  const seen = new Set<string>()
  const add = (r: SandboxRefusal) => {
    const key = `${r.kind}:${r.subject ?? ""}`
    if (seen.has(key) || out.length >= 8) return
    seen.add(key)
    out.push(r)
  }
  const lines = d.output.split("\n")
  for (const line of lines) {
    // A protected file is a mount point: replacing it (git renames config.lock over .git/config) fails with EBUSY, not EROFS.
    const busy = BUSY.test(line)
    if (!busy && !/read-only file system|EROFS/i.test(line)) continue
    // bubblewrap's own failure over a covered socket that went away (said below), not the command's write.
    if (line.startsWith("bwrap: Can't create file at ") && d.policy.hiddenSockets.some((s) => line.includes(s))) continue
    const raw = busy ? busyPath(line) : pathOnLine(line)
    const abs = raw === undefined ? undefined : raw.startsWith("~/") && d.home ? resolve(d.home, raw.slice(2)) : isAbsolute(raw) ? raw : resolve(d.cwd, raw)
    const where = abs === undefined ? undefined : classifyPath(d.policy, abs)
    const shown = abs === undefined ? undefined : showPath(d.root, abs)
    if (where === "masked") {
      const mask = maskOf(d.policy, abs!)!
      add(maskedRefusal(d.root, mask, d.policy.hiddenDirs.includes(mask.path)))
    } else if ((where === "protected" || where === "secret") && d.policy.anvilState.some((a) => inside(abs!, a))) {
      add({
        kind: "protected",
        subject: shown!,
        message: `The sandbox keeps ${shown} read-only whatever sandbox.writable says: it is anvil's own state (its settings, trust and the records it keeps for every project), which no command may change. anvil changes it itself ('anvil config trust', 'anvil sandbox trust'); to change it by hand, ${ESCAPE.replace(/^or /, "")}.`,
      })
    } else if (where === "protected" && d.policy.claudeConfig !== undefined && inside(abs!, d.policy.claudeConfig)) {
      add({
        kind: "protected",
        subject: shown!,
        message: `The sandbox keeps ${shown} read-only whatever sandbox.writable or --add-dir says: it is Claude Code's config (its settings' hooks and its plugins, agents, commands and skills run outside the sandbox at the next start). The user changes it by hand; to change it from here, ${ESCAPE.replace(/^or /, "")}.`,
      })
    } else if (where === "protected") {
      add({
        kind: "protected",
        subject: shown!,
        message: `The sandbox keeps ${shown} read-only: it makes code run later (git hooks and config, .anvil/, anvil.json, .mcp.json, .claude/, .agents/ and sandbox.protected, in the project and in every folder sandbox.writable or --add-dir opens). Change it with the edit tools, ${ESCAPE}.`,
      })
    } else if (where === "secret") {
      add({
        kind: "secret",
        subject: shown!,
        message: `The sandbox hides ${shown} from commands (home secrets, sandbox.deny_read and the places read deny rules name), so no command writes there whatever sandbox.writable says. To write it anyway, ${ESCAPE.replace(/^or /, "")}.`,
      })
    } else if (busy) {
      continue
    } else if (d.policy.mode === "read-only") {
      add({
        kind: "write",
        ...(shown ? { subject: shown } : {}),
        message: `The sandbox is in read-only mode (sandbox.mode "read-only" or --sandbox read-only): ${shown ?? "the write"} was refused. Use sandbox.mode "workspace-write" to write inside the project, ${ESCAPE}.`,
      })
    } else {
      add({
        kind: "write",
        ...(shown ? { subject: shown } : {}),
        message: `The sandbox refused a write${shown ? ` to ${shown}` : ""}: commands may write only inside the project and $TMPDIR. Add the folder to sandbox.writable in anvil.json to allow it, ${ESCAPE}.`,
      })
    }
  }
  const secrets = [...d.policy.hiddenDirs, ...d.policy.hiddenFiles].filter((s) => !d.policy.ruleMasks.some((m) => m.path === s))
  // A git command that stopped at a hidden place decides what its answer advises, wherever its line comes.
  const gitStops = lines.filter((l) => GIT_STOPPED.test(l))
  for (const line of lines) {
    const masked = maskedOnLine(d.policy.ruleMasks, d.root, line)
    if (masked) {
      const gitLine = gitStops.find((l) => maskedOnLine([masked], d.root, l) !== undefined)
      add(maskedRefusal(d.root, masked, d.policy.hiddenDirs.includes(masked.path), gitLine ?? line))
      continue
    }
    if (!/no such file|permission denied|not found|cannot open|ENOENT|EACCES|not a directory/i.test(line)) continue
    const hit = secrets.find((s) => line.includes(s) || (d.home !== undefined && s.startsWith(`${d.home}/`) && line.includes(`~/${s.slice(d.home.length + 1)}`)))
    if (hit) {
      add({
        kind: "secret",
        subject: hit,
        message: `The sandbox hides ${hit} from commands: to a command it is ${d.policy.hiddenDirs.includes(hit) ? "an empty read-only folder" : "a device file that cannot be opened (Permission denied)"}, as it is a built-in secret or a sandbox.deny_read entry. To read it anyway, run this one command with sandbox: false (the user is asked and must agree); to let every command read a built-in secret, the user adds it to sandbox.allow_read in their own ~/.config/anvil/anvil.json.`,
      })
    }
  }
  const refusedConnect = /connection refused|ECONNREFUSED|no server running|couldn't connect|could not connect|failed to connect|cannot connect/i.test(d.output)
  for (const socket of d.policy.hiddenSockets) {
    if (d.output.includes(`bwrap: Can't create file at ${socket}:`)) {
      add({
        kind: "socket",
        subject: socket,
        message: `The command did not start: ${socket}, a Unix socket of a program outside the sandbox that the sandbox covers, went away just as it started. Nothing ran; run the command again.`,
      })
      continue
    }
    if (!d.output.includes(socket) && !(refusedConnect && d.command?.includes(socket))) continue
    add({
      kind: "socket",
      subject: socket,
      message: `The sandbox covers ${socket}, a Unix socket of a program outside it (a server there could run commands outside every rule). To use it, run this one command with sandbox: false (the user is asked and must agree).`,
    })
  }
  if (d.network.kind === "off" && !out.some((r) => r.kind === "socket") && /could not resolve host|temporary failure in name resolution|name or service not known|getaddrinfo|EAI_AGAIN|ENOTFOUND|network is unreachable|ENETUNREACH|connection refused|ECONNREFUSED|no address associated|failed to connect|couldn't connect/i.test(d.output)) {
    add({
      kind: "network",
      message: `Commands have no network in the sandbox (sandbox.network is "off"). Set sandbox.network to a list of hosts (e.g. ["registry.npmjs.org"]) or "on" in anvil.json to allow it, ${ESCAPE}.`,
    })
  }
  for (const host of d.refusedHosts) {
    add({ kind: "host", subject: host, message: `The sandbox's proxy refused ${host}: it is not in sandbox.network. Add "${host}" to sandbox.network in anvil.json to allow it.` })
  }
  return out
}
