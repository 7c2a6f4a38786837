import { describe, expect, test } from "bun:test"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { renderTable, TABLE_BEGIN, TABLE_END, writeTable } from "../../bench/lib/readme.ts"
import { groupResult, loadResults, saveResult } from "../../bench/lib/results.ts"

const repo = join(import.meta.dir, "..", "..")

const sample = [
  groupResult(
    { name: "startup", description: "start-up" },
    0,
    [
      { name: "anvil --version", value: "9.80 ms", reference: "true 0.90 ms", ratio: 10.89, peakRssBytes: 30 * 1024 * 1024, targets: [{ label: "median < 15 ms", pass: true }] },
      { name: "a | piped name", value: "1 ms", targets: [{ label: "<= 2x", pass: false }, { label: "<= 40 MiB", pass: true }] },
    ],
    20,
    "abc1234",
  ),
  groupResult({ name: "context", description: "bytes" }, 1, [{ name: "opencode", value: "-", skipped: "not installed" }, { name: "no goal", value: "3 KB" }], 20, "abc1234"),
]

describe("README performance table", () => {
  test("one line per row with its goal and whether it was met; pipes escaped", () => {
    const table = renderTable(sample)
    const lines = table.split("\n")
    expect(lines[0]).toBe("| bench | figure | anvil | reference | ratio | goal | met |")
    expect(lines[2]).toBe("| startup | anvil --version | 9.80 ms, 30.0 MiB | true 0.90 ms | 10.89x | median < 15 ms | met |")
    expect(lines[3]).toBe("| startup | a \\| piped name | 1 ms | - | - | <= 2x; <= 40 MiB | **missed**: <= 2x |")
    expect(lines[4]).toBe("| context | opencode | - | - | - | - | skipped: not installed |")
    expect(lines[5]).toBe("| context | no goal | 3 KB | - | - | - | - |")
    expect(table).toContain("1 met, 1 missed, 1 skipped.")
    expect(table).toContain("startup ")
    expect(table).toContain(" at abc1234 (")
  })

  test("saved groups load in the order of bench/run.ts and replace only the text between the markers", () => {
    const dir = mkdtempSync(join(tmpdir(), "anvil-bench-readme-"))
    try {
      for (const r of [...sample].reverse()) saveResult(join(dir, "results"), r)
      expect(loadResults(join(dir, "results")).map((r) => r.group)).toEqual(["startup", "context"])
      const readme = join(dir, "README.md")
      writeFileSync(readme, `# x\n\nbefore\n${TABLE_BEGIN}\nold table\n${TABLE_END}\nafter\n`)
      writeTable(readme, renderTable(loadResults(join(dir, "results"))))
      const text = readFileSync(readme, "utf8")
      expect(text.startsWith(`# x\n\nbefore\n${TABLE_BEGIN}\n| bench |`)).toBe(true)
      expect(text.endsWith(`skipped. Ratio = anvil / reference, both measured in the same run; sizes in the anvil column are peak RSS. Measured: ${sample.map((r) => `${r.group} ${r.measuredAt.slice(0, 16).replace("T", " ")} UTC at abc1234 (${r.machine.cores} cores, load ${r.machine.load})`).join("; ")}.\n${TABLE_END}\nafter\n`)).toBe(true)
      expect(text).not.toContain("old table")
      writeFileSync(readme, "no markers\n")
      expect(() => writeTable(readme, "t")).toThrow("has no performance table markers")
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  test("the README's table is the one generated from bench/results (run `bun bench/readme.ts` after a bench run)", () => {
    const text = readFileSync(join(repo, "README.md"), "utf8")
    const begin = text.indexOf(TABLE_BEGIN)
    const end = text.indexOf(TABLE_END)
    expect(begin).toBeGreaterThan(0)
    expect(text.slice(begin + TABLE_BEGIN.length, end)).toBe(`\n${renderTable(loadResults(join(repo, "bench", "results")))}\n`)
  })
})
