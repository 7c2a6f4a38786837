import type { CliIO } from "./output.ts"

/**
 * The prompt read from standard input when no argument gives one: the text, or why there is none (empty or
 * closed input, or a pipe silent for `waitMs`), as the message of a usage error.
 */
export const promptFromStdin = async (io: CliIO, waitMs: number): Promise<string | { readonly message: string }> => {
  const how = `Give the prompt as an argument (anvil run "…") or pipe it in (echo "…" | anvil run).`
  const piped = io.readPipedStdin ? await io.readPipedStdin(waitMs) : await io.readStdin()
  if (piped === "silent") {
    return {
      message:
        `no prompt: nothing arrived on standard input within ${waitMs / 1000} s (its writer left it open and silent). ` +
        `${how} For a producer slow to start, set ANVIL_STDIN_WAIT=SECONDS.`,
    }
  }
  const text = piped?.trim() ?? ""
  const what = piped === undefined ? "standard input is empty or closed" : "standard input was empty"
  return text === "" ? { message: `no prompt: ${what}. ${how}` } : text
}

/** The prompt argument with piped standard input attached after it (or the piped input alone). */
export const promptWithInput = (prompt: string, piped: string | undefined): string => {
  const input = piped?.replace(/\s+$/, "") ?? ""
  if (input.trim() === "") return prompt
  if (prompt === "") return input.trim()
  return `${prompt}\n\n<stdin>\n${input}\n</stdin>`
}
