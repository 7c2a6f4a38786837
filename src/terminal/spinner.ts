/**
 * A one-line spinner on a TTY stream (stderr in the CLI): shown after a short
 * delay so quick tools never flicker, cleared before anything else is written.
 * Without a TTY it does nothing.
 */
export interface Spinner {
  readonly start: (label: string) => void
  readonly stop: () => void
}

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]

export const makeSpinner = (stream: { readonly isTTY?: boolean; write: (s: string) => unknown }, delayMs = 400): Spinner => {
  if (stream.isTTY !== true) return { start: () => undefined, stop: () => undefined }
  let timer: ReturnType<typeof setInterval> | undefined
  let delay: ReturnType<typeof setTimeout> | undefined
  let shown = false
  const stop = () => {
    if (delay) clearTimeout(delay)
    if (timer) clearInterval(timer)
    delay = undefined
    timer = undefined
    if (shown) stream.write("\r\x1b[2K")
    shown = false
  }
  const start = (label: string) => {
    stop()
    const began = Date.now()
    let frame = 0
    delay = setTimeout(() => {
      timer = setInterval(() => {
        shown = true
        const seconds = Math.floor((Date.now() - began) / 1000)
        stream.write(`\r\x1b[2K${FRAMES[frame++ % FRAMES.length]} ${label} ${seconds}s`)
      }, 100)
      timer.unref?.()
    }, delayMs)
    delay.unref?.()
  }
  return { start, stop }
}
