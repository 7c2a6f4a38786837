import { Effect, Schema } from "effect"
import { defineTool } from "../tool-framework/definition.ts"
import { askQuestions, shownLabel, type Answer, type Question } from "../terminal/question-prompt.ts"
import { UserTerminal } from "../terminal/user-terminal.ts"
import description from "./question.md" with { type: "text" }

const QuestionSchema = Schema.Struct({
  question: Schema.String.check(Schema.isMinLength(1)).annotate({ description: "The full question." }),
  header: Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(30)).annotate({ description: 'Short tag, e.g. "Auth".' }),
  options: Schema.Array(
    Schema.Struct({
      label: Schema.String.check(Schema.isMinLength(1)).annotate({ description: "A few words." }),
      description: Schema.optionalKey(Schema.String.annotate({ description: "What it means." })),
    }),
  )
    .check(Schema.isMinLength(1), Schema.isMaxLength(9))
    .annotate({ description: "1-9; the recommended first." }),
  multiSelect: Schema.optionalKey(Schema.Boolean.annotate({ description: "Allow several." })),
})

const listQuestions = (questions: ReadonlyArray<Question>): string =>
  questions
    .map((q, i) => {
      const options = q.options.map((o, j) => `   ${j + 1}. ${shownLabel(o, j)}${o.description ? ` — ${o.description}` : ""}`)
      return [`${i + 1}. [${q.header}] ${q.question}${q.multiSelect ? " (multiple choice)" : ""}`, ...options].join("\n")
    })
    .join("\n")

const listAnswers = (answers: ReadonlyArray<Answer>): string =>
  answers.map((a, i) => `${i + 1}. [${a.header}] ${a.question}\n   Answer: ${a.answer}${a.custom ? " (the user's own words)" : ""}`).join("\n")

/**
 * question: asks the user multiple-choice
 * questions in the terminal. The agent offers it in the plan profile only.
 */
export const questionTool = defineTool({
  name: "question",
  requires: [UserTerminal],
  title: "AskUserQuestion",
  description,
  aliases: ["ask_user_question"],
  permission: "allow",
  readOnly: true,
  parameters: Schema.Struct({
    questions: Schema.Array(QuestionSchema)
      .check(Schema.isMinLength(1), Schema.isMaxLength(8))
      .annotate({ description: "Asked in order." }),
  }),
  run: ({ questions }) =>
    Effect.gen(function* () {
      const terminal = yield* UserTerminal
      const shown = questions.map((q) => ({ ...q, options: q.options.map((o, i) => ({ ...o, label: shownLabel(o, i) })) }))
      const count = `Question count: ${questions.length}`
      if (!terminal.interactive) {
        return {
          status: "partial" as const,
          data: { status: "no_tty", questions: shown, answers: [] },
          text:
            `Status: no_tty\n${count}\n\nNo interactive terminal: the user cannot be asked now. Decide yourself — ` +
            "take the recommended option unless the task says otherwise — and state the assumption in your reply.\n\n" +
            listQuestions(questions),
          stats: { questions: questions.length, answered: 0 },
        }
      }
      const outcome = yield* askQuestions(questions, terminal)
      if (outcome.status === "cancelled") {
        return {
          status: "partial" as const,
          data: { status: "cancelled", questions: shown, answers: [] },
          text:
            `Status: cancelled\n${count}\n\nThe user cancelled the questions (${outcome.reason === "escape" ? "Esc" : outcome.reason === "interrupt" ? "Ctrl+C" : "input ended"}); ` +
            "no answers were given. Do not assume any: continue without these decisions or ask differently.",
          stats: { questions: questions.length, answered: 0 },
        }
      }
      return {
        data: { status: "answered", questions: shown, answers: outcome.answers },
        text: `Status: answered\n${count}\n\n${listAnswers(outcome.answers)}`,
        stats: { questions: questions.length, answered: outcome.answers.length },
      }
    }),
})
