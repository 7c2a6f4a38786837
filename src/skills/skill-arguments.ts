/**
 * Arguments filled into a skill's (or a slash command's) text, as Claude Code fills them: `$ARGUMENTS` is the whole
 * argument string as given; `$ARGUMENTS[N]` and `$N` are its words, split as a shell splits them (quotes group words
 * and are removed, a backslash escapes; nothing is expanded), counted from 0 (`$0` is the first word) for skills
 * and custom slash commands alike, since Claude Code runs both the same way; a name the front matter's
 * `arguments` lists (`$issue`) is the word in its place. A missing word is empty. A text that names no argument and
 * is given some gets them after it, as `ARGUMENTS: <args>`, so that they are never lost.
 */

/** The words of an argument string, split as a shell would: quotes group and are removed, a backslash escapes. */
export const splitArguments = (args: string): Array<string> => {
  const words: Array<string> = []
  let word = ""
  let inWord = false
  let quote: "'" | '"' | undefined
  for (let i = 0; i < args.length; i++) {
    const c = args[i]!
    if (quote === "'") {
      if (c === "'") quote = undefined
      else word += c
    } else if (quote === '"') {
      if (c === '"') quote = undefined
      else if (c === "\\" && i + 1 < args.length && '"\\$`'.includes(args[i + 1]!)) word += args[++i]
      else word += c
    } else if (c === "'" || c === '"') {
      quote = c
      inWord = true
    } else if (c === "\\" && i + 1 < args.length) {
      word += args[++i]
      inWord = true
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word)
      word = ""
      inWord = false
    } else {
      word += c
      inWord = true
    }
  }
  if (inWord) words.push(word)
  return words
}

/** The names a front matter's `arguments` gives (a list, or one string of names separated by spaces or commas). */
export const argumentNames = (value: unknown): Array<string> => {
  const names = Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : typeof value === "string" ? value.split(/[\s,]+/) : []
  return names.map((n) => n.trim().replace(/^\$/, "")).filter((n) => /^[A-Za-z_][\w-]*$/.test(n))
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

export interface ArgumentOptions {
  /** Names for the words in order (front matter `arguments`). */
  readonly names?: ReadonlyArray<string>
}

/** `text` with the arguments filled in (see the module's comment). */
export const substituteArguments = (text: string, args: string, options: ArgumentOptions = {}): string => {
  const words = splitArguments(args)
  let out = text
  // Longer names first, so that `$issue-id` is not read as `$issue` followed by "-id".
  const names = [...(options.names ?? [])].map((name, i) => ({ name, i })).sort((a, b) => b.name.length - a.name.length)
  for (const { name, i } of names) out = out.replace(new RegExp(`\\$${escapeRegExp(name)}(?![\\w-])`, "g"), () => words[i] ?? "")
  out = out.replace(/\$ARGUMENTS\[(\d+)\]/g, (_, n: string) => words[Number(n)] ?? "")
  out = out.replace(/\$(\d+)(?!\d)/g, (_, n: string) => words[Number(n)] ?? "")
  out = out.replace(/\$ARGUMENTS(?![\w[])/g, () => args)
  return out === text && args.trim() !== "" ? `${text}\n\nARGUMENTS: ${args}` : out
}

/** What of a skill its instructions are made from. */
export interface InvokedSkill {
  readonly name: string
  /** The Claude Code plugin that brought it (`/plugin:name`). */
  readonly plugin?: string
  readonly content: string
  /** Its folder; undefined for a skill built into anvil. */
  readonly dir: string | undefined
  readonly fields: Readonly<Record<string, unknown>>
}

/**
 * A skill's instructions as it is run: `${CLAUDE_SKILL_DIR}` (its folder) and `${CLAUDE_SESSION_ID}` filled in
 * and, when arguments are given (even empty ones), the arguments, named by its front matter's `arguments`.
 */
export const skillInstructions = (skill: InvokedSkill, args: string | undefined, sessionId: string, builtInDir: string): string => {
  const filled = skill.content.replaceAll("${CLAUDE_SKILL_DIR}", skill.dir ?? builtInDir).replaceAll("${CLAUDE_SESSION_ID}", sessionId)
  return args === undefined ? filled : substituteArguments(filled, args, { names: argumentNames(skill.fields.arguments) })
}

/** Whether a person may run the skill as `/name` (front matter `user-invocable: false` says no; values stay strings). */
export const userInvocable = (skill: InvokedSkill): boolean => String(skill.fields["user-invocable"]).trim().toLowerCase() !== "false"

/** Whether the model may load the skill itself (Claude Code's `disable-model-invocation: true` says no: only a person's `/name` runs it). */
export const modelInvocable = (skill: InvokedSkill): boolean => String(skill.fields["disable-model-invocation"]).trim().toLowerCase() !== "true"

/**
 * The prompt `/name args` stands for when `name` is a skill a person may run (Claude Code runs skills as slash
 * commands): the skill's folder, then its instructions with the arguments filled in; undefined otherwise.
 */
export const skillPrompt = (prompt: string, skills: ReadonlyArray<InvokedSkill>, sessionId: string, builtInDir: string): string | undefined => {
  const invoked = invokedSkill(prompt, skills)
  if (!invoked) return undefined
  const text = skillInstructions(invoked.skill, invoked.args, sessionId, builtInDir)
  return invoked.skill.dir !== undefined ? `Base directory for this skill: ${invoked.skill.dir}\n\n${text}` : text
}

/** The skill a prompt `/name args` runs (one a person may run), with its arguments; undefined for any other prompt. */
export const invokedSkill = <S extends InvokedSkill>(prompt: string, skills: ReadonlyArray<S>): { readonly skill: S; readonly args: string } | undefined => {
  // `/name`, or `/plugin:name` for a plugin's skill (as Claude Code names them).
  const m = /^\/(?:([\w.-]+):)?([a-z0-9-]+)(?:[ \t]+([\s\S]*))?$/.exec(prompt.trim())
  const skill = m ? skills.find((s) => s.name === m[2] && (m[1] === undefined || s.plugin === m[1]) && userInvocable(s)) : undefined
  return m && skill ? { skill, args: (m[3] ?? "").trim() } : undefined
}
