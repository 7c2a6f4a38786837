import type { ModelHttpShape } from "../llm/http.ts"
import { redactUrlLogin } from "../net/secrets.ts"
import type { DebugLog } from "./debug-log.ts"

/**
 * The model's HTTP as the debug log shows it (`--debug`, `--debug-file`): each request's method and URL (its
 * password, user name and credential-like query values masked; no header, so no API key, is written), its body's
 * size, then the status and how long the headers took, and when the answer's body ended, its size and the total time.
 * A request that fails before an answer, or whose body breaks off or is cancelled, says so with the time it ran.
 */
export const loggedModelHttp = (log: DebugLog, http: ModelHttpShape = { fetch: (url, init) => fetch(url, init) }): ModelHttpShape => ({
  fetch: async (url, init) => {
    const method = init.method ?? "GET"
    const shown = `${method} ${redactUrlLogin(url)}`
    const bytes = typeof init.body === "string" ? ` (${Buffer.byteLength(init.body)} bytes)` : ""
    log.write("http", `${shown}${bytes}`)
    const started = performance.now()
    const since = () => `${Math.round(performance.now() - started)} ms`
    let response: Response
    try {
      response = await http.fetch(url, init)
    } catch (e) {
      log.write("http", `${shown} failed after ${since()}: ${String((e as Error)?.message ?? e).split(url).join(redactUrlLogin(url))}`)
      throw e
    }
    log.write("http", `${shown} -> ${response.status}${response.statusText ? ` ${response.statusText}` : ""}, headers in ${since()}`)
    if (!response.body) return response
    let received = 0
    let ended = false
    const end = (how: string) => {
      if (ended) return
      ended = true
      log.write("http", `${shown} ${how}: ${received} bytes in ${since()}`)
    }
    const watched = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform: (chunk, controller) => {
          received += chunk.byteLength
          controller.enqueue(chunk)
        },
        flush: () => end("body ended"),
      }),
    )
    // The reader may stop early (an interrupt, a turn's end): the body is then cut off rather than ended.
    init.signal?.addEventListener("abort", () => end("body cut off (the request was aborted)"), { once: true })
    return new Response(watched, { status: response.status, statusText: response.statusText, headers: response.headers })
  },
})
