/**
 * Some models wrap a tool's name in their own calling convention: `functions.read` (OpenAI's harmony format, as
 * gpt-oss writes it), `functions.read:0` (Kimi's call ids), `default_api.read` (Gemini's code-style calls). The
 * wrapped name means the tool inside it, as an alias does; a name that is itself a tool's is never unwrapped.
 */
const WRAPPED = /^(?:functions|function|default_api|tools)[.:]([^.:\s][^:\s]*?)(?::\d+)?$/i

/** The tool name inside a model's wrapper, or undefined when `name` is not wrapped. */
export const unwrapToolName = (name: string): string | undefined => WRAPPED.exec(name.trim())?.[1]
