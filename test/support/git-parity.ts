import { expect } from "bun:test"
import { callTool } from "./harness.ts"
import { git } from "./git-repo.ts"

/** What one git tool answers through the git command line and through isomorphic-git (the fallback without git), side by side. */
export const answers = async (home: string, root: string, name: string, params: Record<string, unknown>, extraEnv: Record<string, string> = {}) => {
  const call = async (backend: string) => {
    // Limits high enough that the whole answer is compared, not a truncated preview.
    const env = { HOME: home, ANVIL_GIT_BACKEND: backend, TOOL_OUTPUT_MAX_LINES: "1000000", TOOL_OUTPUT_MAX_BYTES: "100000000", ...extraEnv }
    const { envelope } = await callTool(root, name, params, { env })
    const { time_ms: _, ...stats } = envelope.stats
    return { status: envelope.status, data: envelope.data, text: envelope.text, stats }
  }
  return { cli: await call("cli"), iso: await call("isomorphic") }
}

/** git_status (long and short) and git_diff (unstaged and staged), with the git command each stands for. */
export const STATUS_AND_DIFF: ReadonlyArray<[string, Record<string, unknown>, ReadonlyArray<string>]> = [
  ["git_status", {}, ["status"]],
  ["git_status", { short: true }, ["status", "--porcelain"]],
  ["git_diff", {}, ["diff"]],
  ["git_diff", { staged: true }, ["diff", "--staged"]],
]

/** Both backends give the same envelope (data: entries, files and their line counts; text; stats), and its content is git's. */
export const expectSameAnswers = async (home: string, root: string, calls = STATUS_AND_DIFF, extraEnv: Record<string, string> = {}) => {
  for (const [name, params, gitArgs] of calls) {
    const { cli, iso } = await answers(home, root, name, params, extraEnv)
    // A log cut at its limit is "partial".
    expect(["success", "partial"]).toContain(cli.status)
    expect({ name, params, ...cli }).toEqual({ name, params, ...iso })
    expect(String((cli.data as { content: string }).content).replace(/\n+$/, "")).toBe(git(root, home, gitArgs, extraEnv).replace(/\n+$/, ""))
  }
}
