import type { AgentEvent } from "../agent/events.ts"
import type { Spinner } from "./spinner.ts"
import type { Style } from "./style.ts"
import { markdownStream } from "./markdown.ts"
import { describeCall, detailBlock, summaryLine } from "./tool-render.ts"
import { visibleText } from "./visible-text.ts"

export interface PrinterOptions {
  /** Where the assistant's text goes (stdout in chat). */
  readonly out: (text: string) => void
  /** Where progress goes: tool lines, notices, raw responses (stderr). */
  readonly err: (text: string) => void
  readonly outStyle: Style
  readonly errStyle: Style
  readonly spinner: Spinner
  /** Stream the assistant's text as it arrives (chat); otherwise the caller prints the answer. */
  readonly streamText: boolean
  /** Show each tool result's body or diff under its summary line. */
  readonly details: boolean
  /** Print raw model responses. */
  readonly showRaw: boolean
  /** ReAct engine: label the parts Thought / Action / Observation. */
  readonly react: boolean
  /** Render streamed text as Markdown (a terminal; `outStyle` decides the colours). */
  readonly markdown?: boolean
  /** Whether a call's change was already shown (its approval prompt had the diff): its result then shows no detail. */
  readonly previewed?: (name: string, input: unknown) => boolean
}

/**
 * Renders agent events for a person: streamed text, then per tool call its
 * summary line and (in chat) its body or diff; the ReAct parts
 * labelled; a spinner while a tool runs; subagent activity indented.
 */
export const makePrinter = (o: PrinterOptions) => {
  let atLineStart = true
  let streamed = ""
  const { errStyle: s } = o
  const markdown = o.markdown ? markdownStream(o.outStyle, o.out) : undefined
  // The model's words are shown, never acted on by the terminal (escape sequences, carriage returns; visible-text.ts).
  const writeText = (text: string) => (markdown ? markdown.push(visibleText(text)) : o.out(visibleText(text)))
  const inputs = new Map<string, { name: string; input: unknown }>()
  const endLine = () => {
    if (!atLineStart) o.out("\n")
    atLineStart = true
  }
  return (event: AgentEvent, parent?: string): void => {
    const indent = parent ? "    " : ""
    switch (event.type) {
      case "step_start":
        if (!parent) o.spinner.start("thinking")
        return
      case "text_delta":
        if (parent || !o.streamText) return
        o.spinner.stop()
        writeText(event.text)
        streamed += event.text
        atLineStart = event.text.endsWith("\n")
        return
      case "raw":
        if (!o.showRaw || parent) return
        o.spinner.stop()
        o.err(`${s.dim(`[raw] ${visibleText(event.data)}`)}\n`)
        return
      case "assistant":
        o.spinner.stop()
        if (parent) return
        if (o.streamText) {
          if (streamed === "" && event.text !== "") writeText(event.text)
          markdown?.end()
          if (streamed !== "" || event.text !== "") atLineStart = (streamed || event.text).endsWith("\n")
          endLine()
        }
        streamed = ""
        return
      case "tool_use":
        o.spinner.stop()
        inputs.set(event.id, { name: event.name, input: event.input })
        if (o.react && !parent) return
        o.err(`${indent}${s.cyan("→")} ${s.dim(describeCall(event.name, event.input))}\n`)
        if (!parent) o.spinner.start(event.name)
        return
      case "tool_result": {
        o.spinner.stop()
        const label = o.react && !parent ? `${s.magenta("Observation:")} ` : ""
        o.err(`${indent}${label}${summaryLine(event.envelope, s, event.elapsed_ms)}\n`)
        const call = inputs.get(event.id)
        inputs.delete(event.id)
        if (o.details && !parent && !(call && o.previewed?.(call.name, call.input))) {
          const block = detailBlock(event.envelope, s)
          if (block) o.err(`${block}\n`)
        }
        return
      }
      case "retry":
        o.spinner.stop()
        o.err(
          `${indent}${s.yellow("retrying")} ${s.dim(`in ${(event.delay_ms / 1000).toFixed(1)} s (retry ${event.attempt} of ${event.max_retries}): ${visibleText(event.message)}`)}\n`,
        )
        return
      case "model_fallback":
        o.spinner.stop()
        o.err(`${indent}${s.yellow("fallback")} ${s.dim(`${event.from} failed (${visibleText(event.message)}); ${event.to} answers the rest of this turn`)}\n`)
        return
      case "compaction":
        o.err(`${s.dim(`(compacted ${event.replaced} older items into a summary: ~${event.tokens_before} → ~${event.tokens_after} tokens)`)}\n`)
        return
      case "verify":
        o.spinner.stop()
        o.err(
          event.passed
            ? `${s.green("✓")} verify ${s.dim(visibleText(event.command))}\n`
            : `${s.red("✗")} verify ${s.dim(visibleText(event.command))} ${s.red(`exit ${event.exit_code}`)}\n`,
        )
        return
      case "error":
        o.spinner.stop()
        if (!parent) o.err(`${s.red("error:")} ${visibleText(event.message)}\n`)
        return
      case "hook_stopped":
        // The reason is the person's to read (the model never sees it).
        o.spinner.stop()
        o.err(`${indent}${s.yellow("stopped")} by plugin '${visibleText(event.plugin)}': ${visibleText(event.reason)}\n`)
        return
      case "model_request":
      case "turn_end":
        if (!parent) o.spinner.stop()
        return
    }
  }
}
