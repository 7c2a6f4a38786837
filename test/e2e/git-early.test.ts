import { beforeAll, expect, setDefaultTimeout, test } from "bun:test"
import { anvilBinary, runBinary } from "../support/binary.ts"
import { busyRepo, git, gitHome } from "../support/git-repo.ts"

// `anvil tool git_*` in its plain form starts git before the runtime loads (src/git/early-git.ts); a flag
// makes the same call go the usual way. Both must print the same envelope.
setDefaultTimeout(60_000)
beforeAll(() => void anvilBinary(), 120_000)

/** The envelope of one call, without what differs from run to run (its time) or echoes how it was asked. */
const envelope = async (root: string, env: Record<string, string>, args: ReadonlyArray<string>) => {
  const r = await runBinary(["tool", ...args], { cwd: root, env })
  expect(r.code).toBe(0)
  const { stats, context, ...rest } = JSON.parse(r.stdout) as { data: { content?: string }; stats: Record<string, unknown>; context: Record<string, unknown> }
  const { time_ms: _t, ...keptStats } = stats
  const { params_input: _p, ...keptContext } = context
  return { ...rest, stats: keptStats, context: keptContext }
}

test("the binary answers the same whether git started early or not, and as git itself", async () => {
  const home = gitHome()
  const root = busyRepo(home)
  for (let i = 0; i < 3; i++) git(root, home, ["commit", "-q", "--allow-empty", "-m", `empty ${i}`])
  const env = { HOME: home }
  const calls: ReadonlyArray<[ReadonlyArray<string>, ReadonlyArray<string>, ReadonlyArray<string>]> = [
    [["git_status", "{}"], ["git_status", "--short", "false"], ["status"]],
    [["git_diff", "{}"], ["git_diff", "--staged", "false"], ["diff"]],
    [["git_diff", '{"staged":true}'], ["git_diff", "--staged", "true"], ["diff", "--staged"]],
    [["git_log", '{"limit":2}'], ["git_log", "--limit", "2"], ["log", "-n", "2"]],
  ]
  for (const [early, usual, gitArgs] of calls) {
    const answer = await envelope(root, env, early)
    expect({ early, ...answer }).toEqual({ early, ...(await envelope(root, env, usual)) })
    expect(String(answer.data.content).replace(/\n+$/, "")).toBe(git(root, home, gitArgs).replace(/\n+$/, ""))
  }
})
