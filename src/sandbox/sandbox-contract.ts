import { Data, type Effect } from "effect"
import type { SpawnWrap } from "../process/managed-process.ts"
import type { ModelSecrets } from "./command-env.ts"
import type { SandboxRefusal } from "./diagnose.ts"
import type { SandboxPolicy } from "./policy.ts"
import type { SandboxSupport } from "./probe.ts"
import type { SandboxSettings } from "./settings.ts"

/** What the command sandbox does in this session. */
export interface SandboxStatus {
  readonly settings: SandboxSettings
  readonly support: SandboxSupport
  /** Commands run confined (a mode other than off, and the machine allows it). */
  readonly confining: boolean
  /** Set when a mode other than off was asked for and the sandbox cannot run: what, and how to fix it. */
  readonly warning?: string
}

/**
 * A confined command could not be run as the settings ask, with why and the user's next step. `machine`: the sandbox
 * is required (`sandbox.require`) and cannot run here, or anvil's network proxy did not start. `rules`: the `read`
 * rules cannot be kept by hiding places (policy.ts masksRefused), so the command is not run at all rather than with
 * some of them readable.
 */
export class SandboxUnavailableError extends Data.TaggedError("SandboxUnavailableError")<{
  readonly message: string
  readonly refusedBy: "machine" | "rules"
  readonly nextStep: string
}> {}

/** A command about to run, and whether it asked to leave the sandbox (bash `sandbox: false`, approved by a person). */
export interface WrapRequest {
  /** The working directory the command runs in. */
  readonly cwd: string
  readonly unconfined?: boolean
  /** The command line, for naming a covered socket it used when its error does not. */
  readonly command?: string | undefined
  /**
   * How long what the command leaves in the background may keep its output open once it exited, as the runner waits
   * unconfined (see drain-init.ts); without it the sandbox ends them with the command.
   */
  readonly drainMs?: number
  /**
   * The command itself went through the permission flow (a bash call: a person, --yes, an --allow or allow rule
   * approved it), so `read` asking about every file does not stop it (rule-masks.ts). Others (verify, hooks) are refused.
   */
  readonly approved?: boolean
}

/** How the command will run, and what to do once it ended. */
export interface WrappedCommand {
  /** The process runner's spawn hook that puts the command inside bubblewrap; undefined when it runs as it is. */
  readonly wrap?: SpawnWrap
  readonly confined: boolean
  /** The environment variables withheld from the command (secrets, see command-env.ts), once it started. */
  readonly envWithheld: () => ReadonlyArray<string>
  /** After the run: background processes kept the output open past drainMs and the sandbox ended them (see WrapRequest.drainMs). */
  readonly heldOpen: () => boolean
  /** Removes stand-ins and reads the output for what the sandbox refused. Call once, after the run. */
  readonly finish: (output: string) => Effect.Effect<ReadonlyArray<SandboxRefusal>>
}

export interface SandboxShape {
  readonly status: SandboxStatus
  /** The mounts a command would get now, approved as bash's are or not (undefined when commands are not confined). */
  readonly policy: (approved?: boolean) => SandboxPolicy | undefined
  /** Puts one command inside the sandbox (the one step between a command and the process runner). */
  readonly wrap: (request: WrapRequest) => Effect.Effect<WrappedCommand, SandboxUnavailableError>
  /**
   * A command may come soon (the model, which may call bash, is answering): its cage is made now, off its path
   * (process/parked-cage.ts), not while the session starts, where it delayed the first request.
   */
  readonly commandComing: () => void
}

export interface SandboxOptions {
  readonly root: string
  readonly env: Readonly<Record<string, string | undefined>>
  readonly settings: SandboxSettings
  readonly sessionId: string
  /**
   * Asked when the proxy meets a host outside sandbox.network (chat): "once"
   * allows it for this session, "always" also saves it. Without it such hosts
   * are refused.
   */
  readonly askHost?: (host: string) => Promise<"once" | "always" | "deny">
  /** Saves an "always" host to the project's sandbox.network. */
  readonly saveHost?: (host: string) => Promise<void>
  /** The program line that starts anvil itself (for the relay inside the sandbox). */
  readonly self?: ReadonlyArray<string>
  /** The credentials anvil reaches its model with: never passed to a command, whatever sandbox.allow_env says. */
  readonly modelSecrets?: ModelSecrets
}

/** The one-line warning for a sandbox that cannot run. */
export const unavailableWarning = (support: SandboxSupport): string | undefined =>
  support.available ? undefined : `the command sandbox is not available: ${support.reason}; commands run unconfined and ask for approval as usual. To fix: ${support.fix}`

/**
 * Confines one command that is not a bash call (a repository's command hook):
 * the spawn hook to start it with, and what to call once it ended. Rejects
 * when the sandbox is required and cannot run.
 */
export type CommandConfinement = (cwd: string) => Promise<{ readonly wrap?: SpawnWrap; readonly finish: () => Promise<void> }>
