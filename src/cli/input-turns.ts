import { inputMessages } from "./input-stream.ts"

/** What `anvil run --input-format stream-json` does with each input message. */
export interface InputTurnHandlers {
  /** Runs one turn; its exit code, or undefined when it was not run (a signal came first). */
  readonly turn: (text: string) => Promise<number | undefined>
  /** A line that is no message anvil takes: why (said on stderr). */
  readonly skipped: (why: string) => void
  /** A control request (an interrupt), where the output format can answer it. */
  readonly control?: ((message: Record<string, unknown>) => void) | undefined
}

/**
 * Runs a turn for each user message on `source` until it ends or `stop` is aborted; the last turn's exit code.
 * Turns run one after another while the input keeps being read, so that an interrupt reaches the running one; a turn
 * that fails on a bug ends the run at once (the error is thrown, reported by the CLI), not when the input ends.
 */
export const inputTurns = async (source: ReadableStream<Uint8Array>, stop: AbortController, on: InputTurnHandlers): Promise<number | undefined> => {
  let code: number | undefined
  let turns: Promise<void> = Promise.resolve()
  let failure: { readonly error: unknown } | undefined
  for await (const message of inputMessages(source, stop.signal)) {
    if (message.kind === "user") {
      turns = turns
        .then(async () => {
          if (failure !== undefined) return
          const ran = await on.turn(message.text)
          if (ran !== undefined) code = ran
        })
        .catch((error: unknown) => {
          failure = { error }
          stop.abort()
        })
    } else if (message.kind === "invalid") on.skipped(`input line ${message.line}: ${message.error}`)
    else if (message.type === "control_request" && on.control) on.control(message.message)
    else on.skipped(`input messages of type '${message.type}' are not understood`)
  }
  await turns
  if (failure !== undefined) throw failure.error
  return code
}
