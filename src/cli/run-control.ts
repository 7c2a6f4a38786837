import { isRecord } from "../protocol/is-record.ts"

/**
 * The control requests `anvil run --input-format stream-json --format stream-json` answers, one `control_response`
 * line each, as Claude Code's stream-json input takes them: `interrupt` cancels the turn in flight (its processes
 * are ended, its result says `cancelled`) and the run goes on with the next message. The other subtypes are the Agent
 * SDK's, which the SDK host speaks (anvil started with Claude's print-mode flags and no subcommand): each gets an
 * error response naming that, never silence.
 */
export const answerControl = (message: Record<string, unknown>, line: (message: unknown) => void, interrupt: () => void): void => {
  const request_id = typeof message.request_id === "string" ? message.request_id : ""
  const subtype = isRecord(message.request) ? message.request.subtype : undefined
  if (subtype === "interrupt") {
    interrupt()
    line({ type: "control_response", response: { subtype: "success", request_id, response: {} } })
    return
  }
  line({
    type: "control_response",
    response: {
      subtype: "error",
      request_id,
      error: `anvil run answers only the 'interrupt' control request, not '${String(subtype)}'; for the Agent SDK's control protocol start anvil without a subcommand, with Claude Code's flags (--input-format stream-json --output-format stream-json)`,
    },
  })
}
