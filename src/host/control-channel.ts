import { Data } from "effect"
import { randomUUID } from "node:crypto"
import { isRecord } from "../protocol/is-record.ts"

/**
 * The control half of Claude Code's stream-json protocol, in both directions.
 * The host program sends `control_request` lines (initialize, interrupt,
 * set_permission_mode …) and anvil answers each with one `control_response`;
 * anvil sends its own requests (can_use_tool, hook_callback, mcp_message) and
 * waits for the host's responses, matched by `request_id`.
 */

type Json = Record<string, unknown>

/** An error response from the host (or the channel closing) while a request was waiting. */
export class ControlRequestFailed extends Data.TaggedError("ControlRequestFailed")<{ readonly message: string }> {}

export interface ControlChannel {
  /**
   * Sends `request` and resolves with the host's `response` payload; rejects on an error response, when the channel
   * closes, after `timeoutMs` without an answer, or when `signal` aborts (the turn was interrupted); in those last two
   * cases the host is sent a `control_cancel_request` for it, so that its callback (canUseTool, a hook) stops waiting.
   */
  readonly request: (request: Json, options?: { readonly timeoutMs?: number; readonly signal?: AbortSignal }) => Promise<Json>
  /** Answers a host request with success. */
  readonly succeed: (requestId: string, response?: Json) => void
  /** Answers a host request with an error. */
  readonly fail: (requestId: string, error: string) => void
  /** Hands a `control_response` line from the host to the request waiting for it. */
  readonly receive: (message: Json) => void
  /** Cancels a waiting request (the host's control_cancel_request, or ours). */
  readonly cancel: (requestId: string) => void
  /** The requests still waiting, as sent (for initialize's pending_permission_requests). */
  readonly pending: () => ReadonlyArray<Json>
  /** Ends every waiting request (the host closed its side). */
  readonly close: (why: string) => void
}


export const makeControlChannel = (write: (message: Json) => void): ControlChannel => {
  const waiting = new Map<string, { readonly sent: Json; readonly resolve: (r: Json) => void; readonly reject: (e: Error) => void }>()
  let closed: string | undefined
  return {
    request: (request, options) =>
      new Promise<Json>((resolve, reject) => {
        if (closed !== undefined) return reject(new ControlRequestFailed({ message: closed }))
        if (options?.signal?.aborted) return reject(new ControlRequestFailed({ message: "cancelled: the turn was interrupted" }))
        const request_id = randomUUID()
        const sent = { type: "control_request", request_id, request }
        const giveUp = (why: string) => {
          if (!waiting.delete(request_id)) return
          write({ type: "control_cancel_request", request_id })
          settle(reject)(new ControlRequestFailed({ message: why }))
        }
        const timer = options?.timeoutMs !== undefined ? setTimeout(() => giveUp(`no answer within ${options.timeoutMs! / 1000} s`), options.timeoutMs) : undefined
        const onAbort = () => giveUp("cancelled: the turn was interrupted")
        const settle = <A>(f: (a: A) => void) => (a: A) => {
          clearTimeout(timer)
          options?.signal?.removeEventListener("abort", onAbort)
          f(a)
        }
        options?.signal?.addEventListener("abort", onAbort, { once: true })
        waiting.set(request_id, { sent, resolve: settle(resolve), reject: settle(reject) })
        write(sent)
      }),
    succeed: (request_id, response = {}) => write({ type: "control_response", response: { subtype: "success", request_id, response } }),
    fail: (request_id, error) => write({ type: "control_response", response: { subtype: "error", request_id, error } }),
    receive: (message) => {
      const response = isRecord(message.response) ? message.response : undefined
      const id = typeof response?.request_id === "string" ? response.request_id : undefined
      const entry = id !== undefined ? waiting.get(id) : undefined
      if (!entry || !response) return
      waiting.delete(id!)
      if (response.subtype === "error") entry.reject(new ControlRequestFailed({ message: String(response.error ?? "the host answered with an error") }))
      else entry.resolve(isRecord(response.response) ? response.response : {})
    },
    cancel: (requestId) => {
      const entry = waiting.get(requestId)
      if (!entry) return
      waiting.delete(requestId)
      entry.reject(new ControlRequestFailed({ message: "cancelled" }))
    },
    pending: () => [...waiting.values()].map((w) => w.sent),
    close: (why) => {
      closed = why
      for (const [id, entry] of waiting) {
        waiting.delete(id)
        entry.reject(new ControlRequestFailed({ message: why }))
      }
    },
  }
}
