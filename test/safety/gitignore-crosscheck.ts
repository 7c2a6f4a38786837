// Seeded random ignore files and paths, judged by anvil's IgnorePatterns and by the `ignore` package.
import ignore from "ignore"
import { IgnorePatterns } from "../../src/workspace/gitignore.ts"

/** A small seeded PRNG (mulberry32). */
export const rng = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = seed
  t = Math.imul(t ^ (t >>> 15), t | 1)
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

const NAMES = ["a", "b", "ab", "a.ts", "b.js", ".x", "dir", "x y", "a[1]", "#c", "!n", "é"]
const PIECES = ["a", "b", "*", "?", "**", "/", ".", "[ab]", "[!a]", "[a-c]", "\\*", "x", ".ts", "!", "#", " ", "\\ ", "dir", "[", "]"]

export const randomPattern = (r: () => number): string => {
  const n = 1 + Math.floor(r() * 5)
  let p = ""
  for (let i = 0; i < n; i++) p += PIECES[Math.floor(r() * PIECES.length)]
  return p
}

export const randomPath = (r: () => number): string => {
  const depth = 1 + Math.floor(r() * 4)
  const parts: Array<string> = []
  for (let i = 0; i < depth; i++) parts.push(NAMES[Math.floor(r() * NAMES.length)]!)
  return parts.join("/") + (r() < 0.4 ? "/" : "")
}

/** How `ignore` judges one path by itself (what anvil's walk asked of it before). */
export const referenceVerdict = (text: string, path: string) => {
  const ig = ignore({ ignorecase: false }).add(text)
  const r = (ig as unknown as { _rules: { test: (p: string, mode: string) => { ignored: boolean; unignored: boolean } } })._rules.test(path, "regex")
  return r.ignored ? "ignored" : r.unignored ? "whitelisted" : undefined
}

export const crossCheck = (seed: number, cases: number) => {
  const r = rng(seed)
  const mismatches: Array<{ text: string; path: string; ours: string | undefined; theirs: string | undefined }> = []
  for (let c = 0; c < cases; c++) {
    const lines = 1 + Math.floor(r() * 3)
    const text = Array.from({ length: lines }, () => (r() < 0.2 ? "!" : "") + randomPattern(r)).join("\n")
    const ours = IgnorePatterns.parse(text)
    for (let k = 0; k < 4; k++) {
      const path = randomPath(r)
      const theirs = referenceVerdict(text, path)
      const mine = ours.test(path)
      if (mine !== theirs) mismatches.push({ text, path, ours: mine, theirs })
    }
  }
  return mismatches
}

if (import.meta.main) {
  const m = crossCheck(Number(process.argv[2] ?? 1), Number(process.argv[3] ?? 3000))
  console.log(m.length, "mismatches")
  for (const x of m.slice(0, 25)) console.log(JSON.stringify(x))
}
