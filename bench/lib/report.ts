/** The rows benchmarks report and the table run.ts prints. */

/** A target a figure is held to: its label (e.g. "median < 15 ms") and whether this run met it. */
export interface Target {
  readonly label: string
  readonly pass: boolean
}

export interface Row {
  /** What was measured, e.g. "anvil --version". */
  readonly name: string
  /** anvil's figure, formatted (e.g. "9.8 ms"). */
  readonly value: string
  /** The reference program and its figure, e.g. "true 0.9 ms". */
  readonly reference?: string
  /** anvil's figure over the reference's, measured in the same run. */
  readonly ratio?: number
  readonly peakRssBytes?: number
  readonly targets?: ReadonlyArray<Target>
  /** Extra context (e.g. a figure net of process start). */
  readonly note?: string
  /** Set when the benchmark could not run; says why. */
  readonly skipped?: string
}

export type Verdict = "PASS" | "FAIL" | "SKIP" | "-"

export const verdict = (row: Row): Verdict =>
  row.skipped !== undefined ? "SKIP" : !row.targets?.length ? "-" : row.targets.every((t) => t.pass) ? "PASS" : "FAIL"

export const ms = (value: number): string => `${value < 10 ? value.toFixed(2) : value.toFixed(1)} ms`
export const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MiB`

/** A row for a benchmark that could not run. */
export const skippedRow = (name: string, why: string): Row => ({ name, value: "-", skipped: why })

const pad = (text: string, width: number) => text + " ".repeat(Math.max(0, width - text.length))

/** The table: one line per row, then the reasons for skips and failures. */
export const formatTable = (rows: ReadonlyArray<Row>): string => {
  const header = ["benchmark", "anvil", "reference", "ratio", "peak RSS", "target", "result"]
  const cells = rows.map((r) => [
    r.name,
    r.value,
    r.reference ?? "-",
    r.ratio === undefined ? "-" : `${r.ratio.toFixed(2)}x`,
    r.peakRssBytes === undefined ? "-" : mib(r.peakRssBytes),
    r.targets?.map((t) => t.label).join("; ") || "-",
    verdict(r),
  ])
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)))
  const line = (cols: ReadonlyArray<string>) => cols.map((c, i) => pad(c, widths[i]!)).join("  ").trimEnd()
  const out = [line(header), line(widths.map((w) => "-".repeat(w))), ...cells.map(line)]
  const notes = rows.flatMap((r) => {
    const failed = r.targets?.filter((t) => !t.pass).map((t) => t.label) ?? []
    return [
      ...(r.skipped !== undefined ? [`SKIP ${r.name}: ${r.skipped}`] : []),
      ...(failed.length && r.skipped === undefined ? [`FAIL ${r.name}: missed ${failed.join("; ")}`] : []),
      ...(r.note ? [`note ${r.name}: ${r.note}`] : []),
    ]
  })
  return `${[...out, ...(notes.length ? ["", ...notes] : [])].join("\n")}\n`
}
