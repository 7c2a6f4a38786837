import { describe, expect, test } from "bun:test"
import { readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { runBinary } from "../support/binary.ts"
import { callTool, project } from "../support/harness.ts"

/** The lines of a saved list, which ends with one line break like any text file. */
const savedLines = (file: string): Array<string> => {
  const text = readFileSync(file, "utf8")
  expect(text.endsWith("\n") && !text.endsWith("\n\n")).toBe(true)
  return text.slice(0, -1).split("\n")
}

/** The Read hints of a text, as the model sees them. */
const reads = (text: string) =>
  [...text.matchAll(/\* Read\(path="([^"]+)", offset=(\d+), limit=(\d+)\)/g)].map((m) => ({ path: m[1]!, offset: Number(m[2]), limit: Number(m[3]) }))

/** What a Read hint returns: the lines of the saved file it names. */
const readBack = async (root: string, hint: { path: string; offset: number; limit: number }) => {
  const e = (await callTool(root, "read", hint)).envelope
  return String(e.data.content)
    .split("\n")
    .map((l) => l.replace(/^ *\d+\t/, ""))
}

const files = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`f${String(i).padStart(3, "0")}.txt`, "x\n"]))

describe("glob and list: a cut list is saved whole, and the hint returns exactly what was left out", () => {
  test("glob: every path in the saved list, the total and the path in the text, a Read of the rest", async () => {
    const root = project(files(130))
    const all = Array.from({ length: 130 }, (_, i) => `f${String(i).padStart(3, "0")}.txt`)
    const e = (await callTool(root, "glob", { pattern: "*.txt", offset: 20, limit: 30 })).envelope
    expect(e.status).toBe("partial")
    expect(e.data.paths).toEqual(all.slice(20, 50))
    const saved = e.data.full_output_path as string
    expect(e.text).toContain(`All 130 paths, one a line: ${saved}`)
    expect(savedLines(join(root, saved))).toEqual(all)
    // The JSON beside it holds every path too (not the page).
    expect(JSON.parse(readFileSync(join(root, saved.replace(/\.output\.txt$/, ".json")), "utf8")).data.paths).toEqual(all)
    const [after, before] = reads(e.text)
    expect(after).toEqual({ path: saved, offset: 50, limit: 80 })
    expect(await readBack(root, after!)).toEqual(all.slice(50))
    expect(before).toEqual({ path: saved, offset: 0, limit: 20 })
    expect(await readBack(root, before!)).toEqual(all.slice(0, 20))
    // The next page names the same saved list, its hints moved on.
    const next = (await callTool(root, "glob", { pattern: "*.txt", offset: 50, limit: 30 })).envelope
    expect(next.data.full_output_path).toBe(saved)
    expect(reads(next.text)[0]).toEqual({ path: saved, offset: 80, limit: 50 })
    // A list shown whole, or the last page, saves nothing.
    const whole = (await callTool(root, "glob", { pattern: "f00*.txt" })).envelope
    expect(whole.status).toBe("success")
    expect(whole.data.full_output_path).toBeUndefined()
    const last = (await callTool(root, "glob", { pattern: "*.txt", offset: 100, limit: 200 })).envelope
    expect(last.data.full_output_path).toBeUndefined()
  })

  test("list: every entry in the saved list in the listing's order; a later page points back to the earlier ones", async () => {
    const root = project({ ...files(120), "sub/a.txt": "a\n" }, { marker: false })
    const names = ["- [DIR] sub/", ...Array.from({ length: 120 }, (_, i) => `- [FILE] f${String(i).padStart(3, "0")}.txt`)]
    const first = (await callTool(root, "list", { limit: 10 })).envelope
    const saved = first.data.full_output_path as string
    expect(first.text).toContain(`All 121 entries, one a line: ${saved}`)
    expect(savedLines(join(root, saved))).toEqual(names)
    expect(reads(first.text)[0]).toEqual({ path: saved, offset: 10, limit: 111 })
    // Sorted by size every entry is stat'ed anyway: the saved lines keep their sizes.
    const bySize = (await callTool(root, "list", { limit: 5, sort_by: "size" })).envelope
    const sized = savedLines(join(root, bySize.data.full_output_path as string))
    expect(sized).toHaveLength(121)
    expect(sized[1]).toMatch(/^- \[FILE\] f\d{3}\.txt \(size=2\)$/)
    // The last page: what was left out is before it.
    const last = (await callTool(root, "list", { offset: 115, limit: 10 })).envelope
    expect(last.data.has_more).toBe(false)
    const [back] = reads(last.text)
    expect(back).toMatchObject({ offset: 0, limit: 115 })
    expect(await readBack(root, { ...back!, limit: 115 })).toEqual(names.slice(0, 115))
  })

  test("list: the pages of one listing share one saved file; its hints stay right on every page; a changed folder gets a new one", async () => {
    const root = project(files(250), { marker: false })
    const names = Array.from({ length: 250 }, (_, i) => `- [FILE] f${String(i).padStart(3, "0")}.txt`)
    const pages = await Promise.all([0, 100, 200].map(async (offset) => (await callTool(root, "list", { offset, limit: 100 })).envelope))
    const saved = pages.map((p) => p.data.full_output_path as string)
    expect(new Set(saved).size).toBe(1)
    expect(readdirSync(join(root, ".anvil", "tool-output")).filter((n) => n.includes("_LS_"))).toHaveLength(2) // the JSON and its text
    expect(savedLines(join(root, saved[0]!))).toEqual(names)
    // The saved JSON describes the whole listing, not the page that wrote it.
    expect(JSON.parse(readFileSync(join(root, saved[0]!.replace(/\.output\.txt$/, ".json")), "utf8")).data).toMatchObject({ offset: 0, limit: 250, has_more: false, truncated: false })
    expect(reads(pages[0]!.text)).toEqual([{ path: saved[0]!, offset: 100, limit: 150 }])
    expect(reads(pages[1]!.text)[0]).toEqual({ path: saved[0]!, offset: 200, limit: 50 })
    const [back] = reads(pages[2]!.text)
    expect(back).toEqual({ path: saved[0]!, offset: 0, limit: 200 })
    expect(await readBack(root, back!)).toEqual(names.slice(0, 200))
    writeFileSync(join(root, "new.txt"), "n\n")
    const changed = (await callTool(root, "list", { limit: 100 })).envelope
    expect(changed.data.full_output_path).not.toBe(saved[0])
  })

  test("through the binary: glob and list name the saved list, which holds everything", async () => {
    const root = project(files(70), { marker: false })
    const glob = await runBinary(["tool", "glob", '{"pattern":"*.txt"}'], { cwd: root })
    const g = JSON.parse(glob.stdout)
    expect(g.text).toContain(`All 70 paths, one a line: ${g.data.full_output_path}`)
    expect(savedLines(join(root, g.data.full_output_path))).toHaveLength(70)
    const list = await runBinary(["tool", "list", '{"limit":7}'], { cwd: root })
    const l = JSON.parse(list.stdout)
    expect(l.text).toContain(`All 70 entries, one a line: ${l.data.full_output_path}`)
    expect(l.text).toContain(`Read(path="${l.data.full_output_path}", offset=7, limit=63)`)
    // The next page, another process: the same saved file, the hint moved on.
    const next = JSON.parse((await runBinary(["tool", "list", '{"offset":7,"limit":7}'], { cwd: root })).stdout)
    expect(next.data.full_output_path).toBe(l.data.full_output_path)
    expect(next.text).toContain(`Read(path="${l.data.full_output_path}", offset=14, limit=56)`)
    expect(readdirSync(join(root, ".anvil", "tool-output")).filter((n) => n.includes("_LS_"))).toHaveLength(2)
    // Read of the saved list: the 70 lines, no note about a missing line break at the end.
    const read = JSON.parse((await runBinary(["tool", "read", JSON.stringify({ path: g.data.full_output_path, offset: 60 })], { cwd: root })).stdout)
    expect(read.data).toMatchObject({ total_lines: 70, end_line: 70, final_newline: true })
    expect(read.text).not.toContain("newline")
  })
})
