import { FREEZE_MESSAGE, FREEZE_TIME, FROZEN_EXIT_CODE, type FreezeReport } from "../plugins/watchdog.ts"
import { startFailureResult } from "./claude-result.ts"

/**
 * What `anvil run -f json|stream-json` leaves on standard output when a plugin freezes anvil's thread: the watchdog
 * thread writes it and ends the process (exit 8), so it is made now, with the places of the message and of the
 * result's timestamp held (the watchdog stamps the time of the freeze, not of this start). A script reading
 * the output gets a result like any other failure's — `reason: "plugin_frozen"`, the exit code, the message naming
 * the plugin and how to keep it off — and stream-json a `plugins` system line before it, as for a plugin's other
 * problems.
 */
export const frozenRunReport = (stream: boolean, sessionId: string): FreezeReport => {
  const result = `${JSON.stringify({ ...startFailureResult(FREEZE_MESSAGE, FROZEN_EXIT_CODE, "plugin_frozen", sessionId), timestamp: FREEZE_TIME })}\n`
  const system = `${JSON.stringify({ type: "system", subtype: "plugins", message: FREEZE_MESSAGE })}\n`
  return { stdout: stream ? system + result : result, json: true }
}
