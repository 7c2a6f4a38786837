import { ModelError } from "./model.ts"

/**
 * The error for a model stream that closed before its terminator arrived: `seen` tells a cut-off answer from a
 * body that held no stream events at all (a server that ignored `stream: true`, or not a model endpoint).
 */
export const unfinishedStream = (seen: boolean, terminator: string): ModelError =>
  new ModelError({
    kind: "protocol",
    retryable: false,
    message: seen
      ? `The model stream ended before the answer was complete (no ${terminator} arrived): the server or a proxy cut it off.`
      : "The model server's answer held no stream events (text/event-stream `data:` lines): check that the base URL is a streaming model endpoint.",
  })
