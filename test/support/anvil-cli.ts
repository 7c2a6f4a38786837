import { join } from "node:path"

const MAIN = join(import.meta.dir, "..", "..", "src", "main.ts")

export interface CliResult {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

/** A command's exit code and output, and how long it took. */
export interface ProcessResult extends CliResult {
  readonly ms: number
}

/** Runs a command in `cwd` with a clean environment (HOME inside the project, no colour, only the variables given) and optional stdin. */
export const runProcess = async (
  command: ReadonlyArray<string>,
  options: { readonly cwd: string; readonly env?: Record<string, string>; readonly stdin?: string },
): Promise<ProcessResult> => {
  const started = performance.now()
  const proc = Bun.spawn([...command], {
    cwd: options.cwd,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: options.cwd, NO_COLOR: "1", ...options.env },
    stdin: options.stdin !== undefined ? new TextEncoder().encode(options.stdin) : "ignore",
    stdout: "pipe",
    stderr: "pipe",
  })
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  return { code, stdout, stderr, ms: performance.now() - started }
}

/** Runs the real CLI from source (`bun src/main.ts …`) in `cwd`, as {@link runProcess}. */
export const runAnvil = (
  args: ReadonlyArray<string>,
  options: { readonly cwd: string; readonly env?: Record<string, string>; readonly stdin?: string },
): Promise<CliResult> => runProcess([process.execPath, MAIN, ...args], options)

/** The JSON lines of a stream-json run. */
export const jsonLines = (stdout: string): Array<any> =>
  stdout
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l))

/** The tool_result blocks of a stream-json run, each with its user message's tool_use_result and anvil extras (envelope, execution_meta). */
export const toolResults = (events: ReadonlyArray<any>): Array<any> =>
  events
    .filter((e) => e.type === "user")
    .flatMap((e) =>
      e.message.content
        .filter((b: any) => b.type === "tool_result")
        .map((b: any) => ({ id: b.tool_use_id, content: b.content, is_error: b.is_error, tool_use_result: e.tool_use_result, envelope: e.envelope, execution_meta: e.execution_meta, parent_tool_use_id: e.parent_tool_use_id })),
    )

/** The tool_use blocks of a stream-json run's assistant messages, each with its message's parent_tool_use_id. */
export const toolUses = (events: ReadonlyArray<any>): Array<any> =>
  events
    .filter((e) => e.type === "assistant")
    .flatMap((e) => e.message.content.filter((b: any) => b.type === "tool_use").map((b: any) => ({ ...b, parent_tool_use_id: e.parent_tool_use_id })))

/** An assistant message's text. */
export const textOf = (event: any): string =>
  event.message.content
    .filter((b: any) => b.type === "text")
    .map((b: any) => b.text)
    .join("")
