import { beforeAll, describe, expect, test } from "bun:test"
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { tempDir } from "../support/harness.ts"
import { anvilBinary } from "./binary.ts"
import { seeded } from "./seeded.ts"

/**
 * kill -9 at random moments while `anvil tool patch` applies a six-file patch
 * with a rename, a removal and a creation. After each kill the next
 * start must leave the tree exactly as before the patch or exactly as after
 * it — never a mix, never a lost file — with no temp file or journal left.
 */

let binary = ""
beforeAll(async () => {
  binary = await anvilBinary()
}, 60_000)

// Files big enough (about 3 MB each) that writing them takes a few milliseconds: many kills land inside the commit.
const body = (first: string, n: number) => `${first}\n${Array.from({ length: 100_000 }, (_, i) => `shared line ${i} of file ${n}`).join("\n")}\n`

const STATE_A: Record<string, string> = {
  "a.txt": body("A a", 0),
  "b.txt": body("A b", 1),
  "old-name.txt": body("A moved", 2),
  "doomed.txt": "doomed\n",
  "src/deep/e.txt": body("A e", 5),
}
const STATE_B: Record<string, string> = {
  "a.txt": body("B a", 0),
  "b.txt": body("B b", 1),
  "moved/new-name.txt": body("B moved", 2),
  "born.txt": "born\n",
  "src/deep/e.txt": body("B e", 5),
}

const firstLine = (path: string, from: string, to: string, move?: string) =>
  [`*** Update File: ${path}`, ...(move ? [`*** Move to: ${move}`] : []), "@@", `-${from}`, `+${to}`].join("\n")

const patchAtoB = [
  "*** Begin Patch",
  firstLine("a.txt", "A a", "B a"),
  firstLine("b.txt", "A b", "B b"),
  firstLine("old-name.txt", "A moved", "B moved", "moved/new-name.txt"),
  "*** Delete File: doomed.txt",
  "*** Add File: born.txt\n+born",
  firstLine("src/deep/e.txt", "A e", "B e"),
  "*** End Patch",
].join("\n")
const patchBtoA = [
  "*** Begin Patch",
  firstLine("a.txt", "B a", "A a"),
  firstLine("b.txt", "B b", "A b"),
  firstLine("moved/new-name.txt", "B moved", "A moved", "old-name.txt"),
  "*** Add File: doomed.txt\n+doomed",
  "*** Delete File: born.txt",
  firstLine("src/deep/e.txt", "B e", "A e"),
  "*** End Patch",
].join("\n")

/** Every file under root except anvil's own folder and the marker. */
const tree = (root: string): Record<string, string> => {
  const out: Record<string, string> = {}
  const walk = (dir: string, rel: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name
      if (r === ".anvil" || r === "anvil.json") continue
      if (e.isDirectory()) walk(join(dir, e.name), r)
      else out[r] = readFileSync(join(dir, e.name), "utf8")
    }
  }
  walk(root, "")
  return out
}

const same = (a: Record<string, string>, b: Record<string, string>) =>
  Object.keys(a).length === Object.keys(b).length && Object.entries(a).every(([k, v]) => b[k] === v)

const run = async (argv: ReadonlyArray<string>, cwd: string, env: Record<string, string>) => {
  const proc = Bun.spawn([...argv], { cwd, env, stdout: "pipe", stderr: "pipe" })
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  return { stdout, stderr, code }
}

/** One project killed `kills` times; returns how often each outcome was seen. */
const lane = async (seed: number, kills: number) => {
  const root = tempDir("anvil-kill-")
  writeFileSync(join(root, "anvil.json"), "{}\n")
  for (const [p, c] of Object.entries(STATE_A)) {
    mkdirSync(dirname(join(root, p)), { recursive: true })
    writeFileSync(join(root, p), c)
  }
  const env = { PATH: "/usr/bin:/bin", HOME: root, XDG_CACHE_HOME: join(root, ".cache-x") }
  const patchArgs = (p: string) => [binary, "tool", "patch", JSON.stringify({ patch: p })]

  // How long a whole (warm) patch run takes here.
  const full = await run(patchArgs(patchAtoB), root, env)
  expect(JSON.parse(full.stdout).status).toBe("success")
  expect(same(tree(root), STATE_B)).toBe(true)
  const t0 = performance.now()
  await run(patchArgs(patchBtoA), root, env)
  const runMs = performance.now() - t0
  expect(same(tree(root), STATE_A)).toBe(true)
  let state: "A" | "B" = "A"
  // The kill time adapts: earlier after a run that finished first, later after one killed before. It settles
  // around the end of a run, where the files are written, with a random spread around that.
  let delay = runMs * 0.8

  const random = seeded(seed)
  const outcomes = { A: 0, B: 0, completed: 0, rolledBack: 0 }
  for (let i = 0; i < kills; i++) {
    const proc = Bun.spawn(patchArgs(state === "A" ? patchAtoB : patchBtoA), { cwd: root, env, stdout: "ignore", stderr: "ignore" })
    await Bun.sleep(delay * (0.7 + 0.6 * random()))
    proc.kill(9)
    if ((await proc.exited) === 0) {
      outcomes.completed++
      delay *= 0.85
    } else delay *= 1.05
    // The restart: any start of anvil completes the recovery before it does anything else.
    const restart = await run([binary, "tool", "read", '{"path":"anvil.json"}'], root, env)
    expect(restart.code).toBe(0)
    if (restart.stderr.includes("was interrupted")) outcomes.rolledBack++
    const now = tree(root)
    const isA = same(now, STATE_A)
    const isB = same(now, STATE_B)
    if (!isA && !isB) throw new Error(`lane ${seed}, kill ${i}: the tree is neither old nor new: ${Object.keys(now).join(", ")}`)
    state = isA ? "A" : "B"
    outcomes[state]++
    expect(Object.keys(now).filter((p) => p.includes(".anvil-tmp-"))).toEqual([])
    const journal = join(root, ".anvil", "journal")
    expect(existsSync(journal) ? readdirSync(journal).filter((n) => n !== ".gitignore") : []).toEqual([])
  }
  return outcomes
}

describe("kill -9 during multi-file patches", () => {
  test("after every kill and restart the tree is all old or all new; no temp file, no journal", async () => {
    const lanes = 3
    const perLane = Math.ceil(Number(process.env.ANVIL_SAFETY_KILLS ?? 105) / lanes)
    const results = await Promise.all(Array.from({ length: lanes }, (_, i) => lane(9 + i, perLane)))
    const total = results.reduce(
      (t, r) => ({ A: t.A + r.A, B: t.B + r.B, completed: t.completed + r.completed, rolledBack: t.rolledBack + r.rolledBack }),
      { A: 0, B: 0, completed: 0, rolledBack: 0 },
    )
    // Both outcomes happen: some kills land before the commit, some after it.
    expect(total.A).toBeGreaterThan(0)
    expect(total.B).toBeGreaterThan(0)
  }, 180_000)
})
