import { Context, Layer } from "effect"

/** Which session a call belongs to: todo lists, read ledgers and logs are per session. */
export interface SessionInfoShape {
  /** Stable id; "cli" for direct `anvil tool` runs unless one is named. */
  readonly id: string
  /** True inside an agent conversation (chat or run), false for direct tool runs. */
  readonly interactive: boolean
}

export class SessionInfo extends Context.Service<SessionInfo, SessionInfoShape>()("anvil/SessionInfo") {
  static layer = (info: SessionInfoShape) => Layer.succeed(SessionInfo, info)
  static direct = SessionInfo.layer({ id: "cli", interactive: false })
}
