import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { anvilBinary, runBinary } from "../support/binary.ts"
import { project } from "../support/harness.ts"

// A cut answer's first hint, followed literally through the compiled binary, returns what the answer left out.
setDefaultTimeout(60_000)
beforeAll(() => void anvilBinary(), 120_000)

interface Hint {
  readonly action: string
  readonly args: Record<string, unknown>
}

interface Answer {
  readonly envelope: { readonly status: string; readonly text: string; readonly data: Record<string, unknown> }
  readonly execution_meta: { readonly retrieval_hints: ReadonlyArray<Hint> }
}

const call = async (root: string, name: string, params: Record<string, unknown>, env: Record<string, string> = {}) => {
  const r = await runBinary(["tool", name, JSON.stringify(params), "--meta"], { cwd: root, env })
  const out = JSON.parse(r.stdout) as Answer
  return { envelope: out.envelope, hints: out.execution_meta.retrieval_hints }
}

/** Runs a hint as the model would: its action is the tool, its args the parameters. */
const follow = (root: string, h: Hint) => call(root, h.action, h.args)

/** The numbered lines of a Read answer. */
const readLines = (text: string) =>
  text
    .split("\n")
    .map((l) => /^\s*(\d+)\t(.*)$/.exec(l))
    .filter((m) => m !== null)
    .map((m) => ({ n: Number(m[1]), text: m[2]! }))

describe("bash: the hint for a cut output leads to the lines it left out", () => {
  for (const stream of ["stdout", "stderr"] as const) {
    test(`${stream}: Read starts at the first line not shown and the answer names the unseen range`, async () => {
      const root = project()
      const { envelope, hints } = await call(root, "bash", { command: `seq 1 5000${stream === "stderr" ? " >&2" : ""}` })
      const shown = String(envelope.data[stream]).split("\n")
      const marker = shown.findIndex((l) => l.startsWith("[…"))
      const lastHead = Number(shown[marker - 1])
      const firstTail = Number(shown[marker + 1])
      expect(envelope.text).toContain(`Full ${stream} (23893 bytes, 5000 lines; lines ${lastHead + 1}-${firstTail - 1} are not shown above)`)
      expect(hints[0]!.action).toBe("Read")
      const read = readLines((await follow(root, hints[0]!)).envelope.text)
      expect(read[0]).toEqual({ n: lastHead + 1, text: String(lastHead + 1) })
      expect(read.length).toBe(Math.min(200, firstTail - lastHead - 1))
    })
  }

  test("few lines left out: the Read asks for just those", async () => {
    const root = project()
    // 30 lines of 2,000 bytes over a 20,000-byte budget: the middle lines are left out, fewer than a Read page.
    const { envelope, hints } = await call(root, "bash", { command: 'for i in $(seq 1 30); do printf "%02d%01998d\\n" $i 0; done', max_output_chars: 20_000 })
    expect(envelope.status).toBe("partial")
    const shown = String(envelope.data.stdout).split("\n").filter((l) => !l.startsWith("[…"))
    const numbers = shown.map((l) => Number(l.slice(0, 2)))
    const unseen = Array.from({ length: 30 }, (_, i) => i + 1).filter((n) => !numbers.includes(n))
    expect(hints[0]!.args).toMatchObject({ offset: unseen[0]! - 1, limit: unseen.length })
    expect(readLines((await follow(root, hints[0]!)).envelope.text).map((l) => l.n)).toEqual(unseen)
  })

  test("one long line: the hint is a byte range, and it returns the bytes that follow the shown head", async () => {
    const root = project()
    const { envelope, hints } = await call(root, "bash", { command: "seq 1 40000 | tr -d '\\n'" })
    const full = readFileSync(join(root, String(envelope.data.output_path)), "utf8")
    const head = String(envelope.data.stdout).split("\n[…")[0]!
    expect(full.startsWith(head)).toBe(true)
    expect(envelope.text).toContain("line 1 is not shown whole above")
    expect(hints[0]!.action).toBe("Bash")
    const next = await follow(root, hints[0]!)
    expect(next.envelope.status).toBe("success")
    const bytes = String(next.envelope.data.stdout)
    expect(bytes.length).toBeGreaterThan(1000)
    expect(full.slice(head.length, head.length + bytes.length)).toBe(bytes)
  })

  test("binary output: the hint dumps it (Read would refuse a binary file)", async () => {
    const root = project()
    writeFileSync(join(root, "blob.bin"), Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7) % 256)))
    const { envelope, hints } = await call(root, "bash", { command: "cat blob.bin" })
    expect(envelope.text).toContain("(binary output: 4096 bytes)")
    expect(hints[0]!.action).toBe("Bash")
    const next = await follow(root, hints[0]!)
    expect(next.envelope.data.exit_code).toBe(0)
    expect(String(next.envelope.data.stdout)).toStartWith("0000000  \\0  \\a 016 025")
  })
})

test("framework cut, head and tail kept: the Read hint starts after the shown head, the notice counts only real lines", async () => {
  const root = project()
  for (let i = 1; i <= 300; i++) writeFileSync(join(root, `f${String(i).padStart(3, "0")}.txt`), "")
  // glob's page of 200 paths is more than the 100 lines allowed: the framework cuts it (read pages itself, never cut).
  const env = { TOOL_OUTPUT_TRUNCATE_DIRECTION: "head_tail", TOOL_OUTPUT_MAX_LINES: "100" }
  const { envelope, hints } = await call(root, "glob", { pattern: "*.txt", limit: 200 }, env)
  const { preview, truncation } = envelope.data as {
    preview: string
    truncation: { kept_lines: number; original_lines: number; full_output_text_path: string }
  }
  const previewLines = preview.split("\n")
  const marker = previewLines.findIndex((l) => l.includes("omitted] …"))
  expect(truncation.kept_lines).toBe(previewLines.length - 1)
  expect(envelope.text).toContain(`showing the first and last ${previewLines.length - 1} of ${truncation.original_lines} lines`)
  // The framework's saved text (glob also saved its complete list of 300 paths, with a hint of its own).
  const read = hints.find((h) => h.action === "Read" && h.args.path === truncation.full_output_text_path)!
  expect(read.args.offset).toBe(marker)
  const got = readLines((await follow(root, read)).envelope.text)
  // The saved text holds the answer line by line: the first line read is the first one the preview left out.
  const saved = readFileSync(join(root, String(read.args.path)), "utf8").split("\n")
  expect(previewLines.slice(0, marker)).toEqual(saved.slice(0, marker))
  expect(got[0]).toEqual({ n: marker + 1, text: saved[marker]! })
  expect(preview).not.toContain(saved[marker]!)
})
