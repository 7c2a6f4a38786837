import { Effect, Queue } from "effect"
import type { TerminalKey, UserTerminalShape } from "./user-terminal.ts"
import { visibleText } from "./visible-text.ts"

export interface QuestionOption {
  readonly label: string
  readonly description?: string
}

export interface Question {
  readonly question: string
  /** A short tag shown before the question ("Auth"). */
  readonly header: string
  /** The first option is the recommended one. */
  readonly options: ReadonlyArray<QuestionOption>
  readonly multiSelect?: boolean
}

export interface Answer {
  readonly question: string
  readonly header: string
  /** The chosen label(s) joined by ", ", or the user's own text. */
  readonly answer: string
  /** Every chosen label (multi-select), or the one answer. */
  readonly answers: ReadonlyArray<string>
  /** True when the user typed their own answer instead of choosing options. */
  readonly custom: boolean
}

export type PromptOutcome =
  | { readonly status: "answered"; readonly answers: ReadonlyArray<Answer> }
  | { readonly status: "cancelled"; readonly reason: "escape" | "interrupt" | "end_of_input" }

const RECOMMENDED = "(Recommended)"

/** An option's label as shown: the first one carries "(Recommended)". */
export const shownLabel = (option: QuestionOption, index: number): string =>
  index === 0 && !option.label.includes(RECOMMENDED) ? `${option.label} ${RECOMMENDED}` : option.label

/** What the user typed, read as option numbers when it is only numbers in range, else as their own answer. */
export const interpretReply = (question: Question, reply: string): Answer | undefined => {
  const text = reply.trim()
  if (text === "") return undefined
  const n = question.options.length
  const numbers = question.multiSelect ? /^\d+(?:\s*[,\s]\s*\d+)*$/.test(text) : /^\d+$/.test(text)
  if (numbers) {
    const picks = [...new Set(text.split(/[,\s]+/).map(Number))]
    if (picks.every((p) => p >= 1 && p <= n)) {
      const labels = picks.map((p) => question.options[p - 1]!.label)
      return { question: question.question, header: question.header, answer: labels.join(", "), answers: labels, custom: false }
    }
  }
  return { question: question.question, header: question.header, answer: text, answers: [text], custom: true }
}

const render = (q: Question, index: number, total: number): string => {
  // The model wrote every part of a question: shown, never acted on by the terminal.
  const lines = [`${total > 1 ? `(${index + 1}/${total}) ` : ""}[${visibleText(q.header)}] ${visibleText(q.question)}`]
  q.options.forEach((o, i) => lines.push(`  ${i + 1}. ${visibleText(shownLabel(o, i))}${o.description ? ` — ${visibleText(o.description)}` : ""}`))
  lines.push(
    q.multiSelect
      ? "Type option numbers (e.g. 1,3) or your own answer, then Enter. Esc cancels all questions."
      : "Type an option number or your own answer, then Enter. Esc cancels all questions.",
  )
  return `${lines.join("\r\n")}\r\n> `
}

/**
 * Asks the questions one after another on the terminal. The user picks
 * options by number or types their own answer; Enter confirms, Backspace
 * edits, Esc (or Ctrl+C, or the end of input) cancels all questions and
 * drops the answers given so far.
 */
export const askQuestions = (questions: ReadonlyArray<Question>, terminal: UserTerminalShape): Effect.Effect<PromptOutcome> =>
  Effect.scoped(
    Effect.gen(function* () {
      const keys = yield* terminal.keys
      const answers: Array<Answer> = []
      for (const [index, q] of questions.entries()) {
        yield* terminal.write(render(q, index, questions.length))
        let buffer = ""
        for (;;) {
          const next = yield* Queue.take(keys).pipe(Effect.option)
          if (next._tag === "None") {
            yield* terminal.write("\r\n")
            return { status: "cancelled", reason: "end_of_input" } as const
          }
          const key: TerminalKey = next.value
          if (key.name === "escape") {
            yield* terminal.write("\r\nCancelled.\r\n")
            return { status: "cancelled", reason: "escape" } as const
          }
          if (key.ctrl && (key.name === "c" || key.name === "d")) {
            yield* terminal.write("\r\nCancelled.\r\n")
            // Ctrl-D is the end of input, as the terminal means it, not an interrupt.
            return { status: "cancelled", reason: key.name === "d" ? "end_of_input" : "interrupt" } as const
          }
          if (key.name === "return" || key.name === "enter") {
            const answer = interpretReply(q, buffer)
            if (!answer) {
              yield* terminal.write(`\r\nPlease type 1-${q.options.length} or an answer.\r\n> `)
              continue
            }
            answers.push(answer)
            yield* terminal.write(`\r\n  → ${answer.answer}\r\n\r\n`)
            break
          }
          if (key.name === "backspace") {
            if (buffer.length > 0) {
              buffer = [...buffer].slice(0, -1).join("")
              yield* terminal.write("\b \b")
            }
            continue
          }
          if (key.text !== "" && !key.ctrl && !/[\x00-\x1f\x7f]/.test(key.text)) {
            buffer += key.text
            yield* terminal.write(key.text)
          }
        }
      }
      return { status: "answered", answers } as const
    }),
  )
