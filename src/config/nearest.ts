/** Edits (insert, delete, replace, swap two neighbours) between two words, case ignored. */
export const editDistance = (a: string, b: string): number => {
  const s = a.toLowerCase()
  const t = b.toLowerCase()
  const d: Array<Array<number>> = Array.from({ length: s.length + 1 }, (_, i) => [i, ...Array<number>(t.length).fill(0)])
  for (let j = 1; j <= t.length; j++) d[0]![j] = j
  for (let i = 1; i <= s.length; i++) {
    for (let j = 1; j <= t.length; j++) {
      const cost = s[i - 1] === t[j - 1] ? 0 : 1
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost)
      if (i > 1 && j > 1 && s[i - 1] === t[j - 2] && s[i - 2] === t[j - 1]) best = Math.min(best, d[i - 2]![j - 2]! + 1)
      d[i]![j] = best
    }
  }
  return d[s.length]![t.length]!
}

/** The candidate closest to `word`, and whether it is close enough to be a likely misspelling. */
export const nearestWord = (word: string, candidates: ReadonlyArray<string>): { readonly word: string; readonly likely: boolean } | undefined => {
  let best: { word: string; distance: number } | undefined
  for (const candidate of candidates) {
    const distance = editDistance(word, candidate)
    if (best === undefined || distance < best.distance) best = { word: candidate, distance }
  }
  if (!best) return undefined
  const likely = best.distance <= Math.max(2, Math.floor(Math.max(word.length, best.word.length) / 3))
  return { word: best.word, likely }
}
