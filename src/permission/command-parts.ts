/**
 * Splits a shell command into the simple commands it runs: at `;`, `&&`,
 * `||`, `|`, `&`, newlines, and into `$( … )` and backtick substitutions.
 * Quotes are respected.
 */
export const commandParts = (command: string): ReadonlyArray<string> => {
  const parts: Array<string> = []
  let current = ""
  let quote: string | undefined
  const push = () => {
    if (current.trim() !== "") parts.push(current.trim())
    current = ""
  }
  for (let i = 0; i < command.length; i++) {
    const c = command[i]!
    if (quote) {
      if (c === "\\" && quote === '"' && i + 1 < command.length) {
        current += c + command[++i]
        continue
      }
      if (c === quote) quote = undefined
      else if (quote === '"' && c === "$" && command[i + 1] === "(") {
        // A substitution runs even inside double quotes: its commands are parts of their own.
        let depth = 1
        let j = i + 2
        while (j < command.length && depth > 0) {
          if (command[j] === "(") depth++
          else if (command[j] === ")") depth--
          j++
        }
        parts.push(...commandParts(command.slice(i + 2, depth === 0 ? j - 1 : j)))
        current += "$(…)"
        i = j - 1
        continue
      }
      current += c
      continue
    }
    if (c === "'" || c === '"') {
      quote = c
      current += c
    } else if (c === "\\" && i + 1 < command.length) current += c + command[++i]
    else if (c === ";" || c === "\n" || c === "|" || c === "&" || c === "`" || c === ")") push()
    else if (c === "$" && command[i + 1] === "(") {
      push()
      i++
    } else if (c === "(") push()
    else current += c
  }
  push()
  return parts
}
