import { toolNameOf } from "./tool-name.ts"
import { Data, Effect, Schema } from "effect"
import type { Tool, ToolResult } from "../tool-framework/definition.ts"
import { ToolError } from "../protocol/tool-error.ts"
import type { McpConnection, McpToolInfo } from "./connection.ts"
import { contentProblem, mapToolResult, type RawToolResult } from "./result-content.ts"
import type { ServerSpec } from "./server-config.ts"

/** Why an MCP call did not produce a result. */
export class McpCallError extends Data.TaggedError("McpCallError")<{
  /**
   * timeout: the call's deadline passed; unavailable: the server cannot be reached; failed: it broke during the
   * call; invalid: parameters refused; bad_answer: its answer breaks the tool's own output schema.
   */
  readonly kind: "timeout" | "unavailable" | "failed" | "invalid" | "bad_answer"
  readonly message: string
}> {}

/** A progress notification of a running call (`total` when the server knows it). */
export interface McpProgress {
  readonly type: "progress"
  readonly server: string
  readonly tool: string
  readonly progress: number
  readonly total?: number
  readonly message?: string
}

/** What a tool adapter needs of the hub. */
export interface ToolHub {
  readonly connection: (server: string) => Promise<McpConnection>
  readonly progress: (event: McpProgress) => void
  /** Whether a server that went away is started again on the next call (false once it crashed too often). */
  readonly restartsAgain?: (server: string) => boolean
}


/** An MCP tool's input schema as model APIs take it: always an object with properties. */
const objectSchema = (schema: McpToolInfo["inputSchema"] | undefined): Record<string, unknown> => {
  const s: Record<string, unknown> = { ...(schema ?? {}) }
  if (s.type !== "object") s.type = "object"
  if (typeof s.properties !== "object" || s.properties === null) s.properties = {}
  return s
}

const Params = Schema.Record(Schema.String, Schema.Unknown)

const fromCallError = (error: McpCallError): ToolError => {
  switch (error.kind) {
    case "timeout":
      return new ToolError({ code: "TIMEOUT", message: error.message, retryable: true })
    case "invalid":
      return new ToolError({ code: "INVALID_PARAM", message: error.message, fieldErrors: [{ field: "(root)", message: error.message }] })
    case "failed":
      return new ToolError({ code: "EXECUTION_ERROR", message: error.message, retryable: true })
    default:
      // Unavailable: no call can reach the server this run; its status and last error are where to look.
      return new ToolError({
        code: "EXECUTION_ERROR",
        message: error.message,
        retryable: false,
        nextStep: "Run `anvil mcp` to see the server's status and error, fix its entry (command, url, env) in your settings, then start anvil again.",
      })
  }
}

/** What the server sent during a call that anvil could not read (connection.ts), as the end of a sentence. */
const strayOf = (error: unknown): string => {
  const note = (error as { note?: unknown })?.note
  return typeof note === "string" ? note : ""
}

/** The SDK's failures as McpCallError: its timeout and cancel codes, a lost connection, invalid parameters. */
const classify = (error: unknown, spec: ServerSpec, tool: string, hub: ToolHub): McpCallError => {
  if (error instanceof McpCallError) return error
  const message = error instanceof Error ? error.message : String(error)
  const code = (error as { code?: unknown })?.code
  if (code === -32001) {
    return new McpCallError({
      kind: "timeout",
      message: `${spec.name}/${tool} did not answer within ${spec.timeoutMs} ms (the call's deadline; "timeout" in the server's settings)${strayOf(error)}. The call was cancelled.`,
    })
  }
  // The SDK checks the answer against the tool's outputSchema and reports a mismatch with the invalid-params code
  // (or invalid-request for missing structured content): that is the server's fault, not the parameters'.
  if (/structured content/i.test(message) && (code === -32602 || code === -32600)) {
    return new McpCallError({
      kind: "bad_answer",
      message: `${spec.name}/${tool} answered with a result its own output schema refuses (${message.replace(/^MCP error -?\d+: /, "")}); the server is at fault, not the parameters, so the same call will fail again.`,
    })
  }
  if (code === -32602) return new McpCallError({ kind: "invalid", message: `${spec.name}/${tool} rejected the parameters: ${message}` })
  if ((error as { gone?: unknown })?.gone === true) {
    const next = hub.restartsAgain?.(spec.name) === false ? "It crashed too often and is not started again this session." : "It is started again on the next call."
    return new McpCallError({ kind: "failed", message: `The MCP server '${spec.name}' went away during the call: ${message}. ${next}` })
  }
  return new McpCallError({ kind: "failed", message: `${spec.name}/${tool} failed: ${message}` })
}

/** Runs one call on a server: waits for (or starts) the connection, honours the deadline and cancellation, reports progress. */
const callOn = (hub: ToolHub, spec: ServerSpec, tool: string, args: Record<string, unknown>) =>
  Effect.tryPromise({
    try: async (signal) => {
      const send = async () => (await hub.connection(spec.name)).callTool(tool, args, {
        timeoutMs: spec.timeoutMs,
        signal,
        onProgress: (p) =>
          hub.progress({
            type: "progress",
            server: spec.name,
            tool,
            progress: p.progress,
            ...(p.total !== undefined ? { total: p.total } : {}),
            ...(p.message !== undefined ? { message: p.message } : {}),
          }),
      })
      try {
        return await send()
      } catch (error) {
        // The server had lost anvil's session (it restarted): the call never reached the tool, so it
        // is sent once more, over the new session the hub opens.
        if ((error as { sessionLost?: unknown })?.sessionLost === true && !signal.aborted) return await send()
        throw error
      }
    },
    // An interruption (Ctrl-C) aborts `signal`, so the SDK sends the server a cancel notification;
    // the pipeline reports it as CANCELLED.
    catch: (error) => fromCallError(classify(error, spec, tool, hub)),
  })

const toResult = (spec: ServerSpec, tool: string) => (raw: RawToolResult): Effect.Effect<ToolResult, ToolError> => {
  const problem = contentProblem(raw)
  if (problem !== undefined) {
    // Not one unreadable block but no list of blocks at all: the server is at fault, and will be again.
    const message = `${spec.name}/${tool} failed: the server's answer is not valid MCP (${problem})`
    return Effect.fail(new ToolError({ code: "EXECUTION_ERROR", message, retryable: false }))
  }
  const mapped = mapToolResult(raw)
  // Servers built on the TypeScript SDK answer arguments that fail the tool's input schema with an
  // isError result carrying JSON-RPC's invalid-params code, not with a protocol error.
  if (mapped.isError && /^MCP error -32602\b/.test(mapped.text.trim())) {
    const message = `${spec.name}/${tool} rejected the parameters: ${mapped.text.trim()} (its input schema: anvil mcp tools ${spec.name})`
    return Effect.fail(new ToolError({ code: "INVALID_PARAM", message, fieldErrors: [{ field: "(root)", message: mapped.text.trim() }] }))
  }
  if (mapped.isError) {
    return Effect.fail(new ToolError({ code: "EXECUTION_ERROR", message: `${spec.name}/${tool} reported an error: ${mapped.text}` }))
  }
  return Effect.succeed({ data: mapped.data, text: mapped.text, header: `${toolNameOf(spec.name, tool)}` })
}

/** An MCP tool as an anvil tool: the server's schema for the model, the usual pipeline around the call. */
export const mcpTool = (spec: ServerSpec, info: McpToolInfo, hub: ToolHub): Tool<Record<string, unknown>> => {
  const name = toolNameOf(spec.name, info.name)
  const readOnlyHint = info.annotations?.readOnlyHint === true
  const trustedReadOnly = readOnlyHint && spec.allowReadOnly
  const permission = trustedReadOnly && spec.permission === "ask" ? "allow" : spec.permission
  const title = info.annotations?.title ?? info.title
  return {
    name,
    title: name,
    description: `${title ? `${title}: ` : ""}${info.description ?? "(no description)"}\n(MCP tool '${info.name}' of the server '${spec.name}')`,
    parameters: Params,
    jsonSchema: objectSchema(info.inputSchema),
    permission,
    ...(trustedReadOnly ? { readOnly: true } : {}),
    run: (params) => callOn(hub, spec, info.name, params).pipe(Effect.flatMap(toResult(spec, info.name))),
  }
}

/**
 * A stand-in for a tool the hub cannot name yet: its server is still starting (or starting again after a crash),
 * cannot start, or is reading its changed tool list. `ready` waits for that (`known`: the server's tool names
 * after it) and fails saying why when the server cannot start or has no such tool; the runner then runs the
 * server's own tool, with its own rules and hooks (see Tool.ready). `run` is that tool's business, never this one's.
 */
export const pendingTool = (
  spec: ServerSpec,
  name: string,
  toolPart: string,
  hub: ToolHub,
  known: () => Promise<ReadonlyArray<string>>,
): Tool<Record<string, unknown>> => ({
  name,
  title: name,
  description: `A tool of the MCP server '${spec.name}', which is not connected.`,
  parameters: Params,
  permission: spec.permission,
  ready: () =>
    Effect.tryPromise({ try: known, catch: (e) => fromCallError(classify(e, spec, toolPart, hub)) }).pipe(
      Effect.flatMap((names) =>
        names.some((n) => n.toLowerCase() === name.toLowerCase())
          ? Effect.void
          : Effect.fail(
              new ToolError({
                code: "INVALID_PARAM",
                message: `The MCP server '${spec.name}' has no tool '${toolPart}'. Its tools: ${names.join(", ") || "(none)"}.`,
                fieldErrors: [{ field: "name", message: "unknown tool" }],
              }),
            ),
      ),
    ),
  run: () => Effect.fail(new ToolError({ code: "EXECUTION_ERROR", message: `${name} ran before its server was ready; call it again.`, retryable: true })),
})
