/**
 * The most one plugin's `prompt.system` answer adds to the system prompt, in characters (a Claude Code plugin's
 * SessionStart output comes this way). A hook that prints megabytes would otherwise make every request too long
 * for the model, and the error would blame the prompt.
 */
export const PROMPT_ADDITION_LIMIT = 64 * 1024

/** One plugin's addition, cut to the limit; a cut is reported, naming the plugin. */
export const promptAddition = (plugin: string, text: string, onProblem: (message: string) => void): string => {
  if (text.length <= PROMPT_ADDITION_LIMIT) return text
  const left = text.length - PROMPT_ADDITION_LIMIT
  onProblem(
    `plugin '${plugin}': its prompt.system hook (a Claude Code plugin's SessionStart hooks) gave ${text.length.toLocaleString("en-US")} characters; ` +
      `the first ${PROMPT_ADDITION_LIMIT.toLocaleString("en-US")} were added to the system prompt and the rest left out (the most one plugin adds). Make its text shorter, or point the model at a file instead`,
  )
  return `${text.slice(0, PROMPT_ADDITION_LIMIT)}\n[${left.toLocaleString("en-US")} more characters from plugin '${plugin}' left out]`
}
