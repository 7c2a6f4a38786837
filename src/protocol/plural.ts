/** "1 line", "2 lines", "0 entries": a count and its noun, in the number it needs. */
export const counted = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`
