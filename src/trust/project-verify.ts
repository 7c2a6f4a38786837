import { Effect } from "effect"
import type { ConfigShape } from "../config/config.ts"
import type { SandboxStatus } from "../sandbox/sandbox-contract.ts"
import { verifySubject } from "./project-settings.ts"
import { makeTrust } from "./trust.ts"

/**
 * The project's own `verify` command (the check run after the model changed code) runs inside the
 * command sandbox without asking. Where it would run unconfined — the sandbox is off, or cannot start
 * on this machine — a cloned repository's anvil.json must not run a program of its choosing on the
 * user's behalf: it runs only once the user trusted it (`anvil config trust verify`, kind "setting")
 * or said yes at the terminal; a run without a terminal skips it and says how to trust it. A verify
 * from the user's own file, `--verify CMD` or the host's settings always runs.
 */

/** A project verify that may not run as it is, and what to do about it. */
export interface VerifyGate {
  readonly command: string
  readonly file: string
  /** Why it would run unconfined (for the question). */
  readonly why: string
  /** Never trusted, or changed since. */
  readonly trust: "untrusted" | "changed"
  /** The one-line notice of a run that skips it. */
  readonly notice: string
  /** Records the command as trusted for this project (a person answered "always"). */
  readonly trustIt: Effect.Effect<void>
}

/** The project file's verify command when it is the one in force and the user's own file does not give the same. */
const projectVerify = (config: ConfigShape): { readonly command: string; readonly file: string } | undefined => {
  const last = [...config.layers].reverse().find((l) => l.data.verify !== undefined)
  if (last?.source !== "project file" || typeof last.data.verify !== "string" || last.data.verify.trim() === "") return undefined
  const own = config.layers.filter((l) => l.source === "user file").at(-1)?.data.verify
  return own === last.data.verify ? undefined : { command: last.data.verify, file: last.file ?? "anvil.json" }
}

/** Why commands run unconfined in this session. */
const unconfinedWhy = (status: SandboxStatus): string =>
  status.settings.mode === "off" ? "the command sandbox is off" : `the command sandbox cannot run here: ${status.support.available ? "unknown" : status.support.reason}`

/**
 * Undefined when the verify in force may run as it is (not the project's, confined, or trusted);
 * otherwise the gate a session puts before it. Probes the sandbox only for a project verify.
 */
export const projectVerifyGate = (config: ConfigShape, root: string, sandbox: SandboxStatus): Effect.Effect<VerifyGate | undefined> =>
  Effect.gen(function* () {
    const verify = projectVerify(config)
    if (!verify || sandbox.confining) return undefined
    const store = makeTrust({ root, env: config.env })
    const subject = verifySubject(verify.command)
    // A store that cannot be read trusts nothing.
    const { status } = yield* store.check(subject).pipe(Effect.orElseSucceed(() => ({ status: "untrusted" as const })))
    if (status === "trusted") return undefined
    const why = unconfinedWhy(sandbox)
    const shown = JSON.stringify(verify.command.length > 80 ? `${verify.command.slice(0, 77)}...` : verify.command)
    return {
      ...verify,
      why,
      trust: status,
      notice:
        `the project's anvil.json (${verify.file}) sets verify: ${shown}, which would run outside the command sandbox (${why}), ` +
        `but ${status === "changed" ? "it changed since you trusted it" : "it is not trusted"}, so auto-verification was skipped. ` +
        `Review it, then run 'anvil config trust verify' to let it run in this project (or put it in your own ~/.config/anvil/anvil.json, or pass --verify CMD).`,
      trustIt: store.trust(subject).pipe(Effect.ignore),
    }
  })
