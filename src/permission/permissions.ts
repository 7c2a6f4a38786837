import { Context, Effect, Layer } from "effect"
import { Config } from "../config/config.ts"
import type { PermissionLevel, Tool } from "../tool/definition.ts"

/** One call awaiting a decision. */
export interface PermissionRequest {
  readonly tool: Tool
  readonly params: unknown
}

export type PermissionDecision =
  | { readonly allowed: true }
  | { readonly allowed: false; readonly reason: string }

/** Decides whether a call may run: rules first, then the front end's answer for "ask". */
export interface PermissionsShape {
  readonly check: (request: PermissionRequest) => Effect.Effect<PermissionDecision>
}

/** The level configured for a tool in anvil.json `permission` ({"bash": "ask"}), else the tool's default. */
export const configuredLevel = (config: Config["Service"], tool: Tool): PermissionLevel => {
  const level = config.get(`permission.${tool.name}`, "")
  return level === "allow" || level === "ask" || level === "deny" ? level : (tool.permission ?? "allow")
}

export class Permissions extends Context.Service<Permissions, PermissionsShape>()("anvil/Permissions") {
  /**
   * Config rules, with `onAsk` answering the calls whose level is "ask"
   * (a TTY prompt, `--yes`, or the direct `anvil tool` command, where the
   * user's own invocation is the approval).
   */
  static layer = (onAsk: (request: PermissionRequest) => Effect.Effect<boolean>) =>
    Layer.effect(
      Permissions,
      Effect.gen(function* () {
        const config = yield* Config
        return {
          check: (request) =>
            Effect.gen(function* () {
              const level = configuredLevel(config, request.tool)
              if (level === "allow") return { allowed: true } as const
              if (level === "deny") {
                return { allowed: false, reason: `The '${request.tool.name}' tool is denied by the permission settings.` } as const
              }
              return (yield* onAsk(request))
                ? ({ allowed: true } as const)
                : ({ allowed: false, reason: `The user did not approve this '${request.tool.name}' call.` } as const)
            }),
        }
      }),
    )

  /** Everything the rules allow or ask runs: for direct invocations and tests. */
  static allowAsked = Permissions.layer(() => Effect.succeed(true))
}
