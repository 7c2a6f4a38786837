import { ModelError } from "./model.ts"

/** The event name a JSON answer (a server that ignored `stream: true`) is handed to the decoder under, whole. */
export const WHOLE_ANSWER = "anvil-whole-answer"

/**
 * The error for a model stream that closed before its terminator arrived: `seen` tells a cut-off answer from a
 * body that held no stream events at all (not a model endpoint); `whole` is a JSON answer that held no answer.
 */
export const unfinishedStream = (seen: boolean, terminator: string, whole?: string): ModelError =>
  new ModelError({
    kind: "protocol",
    retryable: false,
    message:
      whole !== undefined
        ? `The model server answered with JSON that is not a complete answer: ${whole.replace(/\s+/g, " ").slice(0, 300)}. Check that the base URL is a model endpoint of this provider's API.`
        : seen
          ? `The model stream ended before the answer was complete (no ${terminator} arrived): the server or a proxy cut it off.`
          : "The model server's answer held no stream events (text/event-stream `data:` lines): check that the base URL is a streaming model endpoint.",
  })
