/** A private tmux server for terminal tests: the CLI gets a real TTY, the test types into it and reads the screen. */
export const tmuxSession = (socket: string, session = "chat") => {
  const bin = Bun.which("tmux")
  const tmux = (...args: Array<string>) => Bun.spawnSync([bin!, "-L", socket, ...args], { stdout: "pipe", stderr: "pipe" }).stdout.toString()
  const screen = () => tmux("capture-pane", "-p", "-J", "-S", "-200", "-t", session)
  /** Polls the screen until it shows `what`; throws with the screen after `timeoutMs`. */
  const waitFor = async (what: string | RegExp, timeoutMs = 30_000): Promise<string> => {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const text = screen()
      if (typeof what === "string" ? text.includes(what) : what.test(text)) return text
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${String(what)}; screen:\n${text}`)
      await Bun.sleep(100)
    }
  }
  return { available: bin !== null, tmux, screen, waitFor, kill: () => void (bin && tmux("kill-server")) }
}
