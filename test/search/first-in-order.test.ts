import { describe, expect, test } from "bun:test"
import { firstInOrder } from "../../src/search/first-in-order.ts"

/** A small deterministic generator (the same lists every run). */
const random = (seed: number) => () => {
  seed = (seed * 1103515245 + 12345) % 2147483648
  return seed / 2147483648
}

interface Item {
  readonly id: number
  readonly time: number
}

const newestFirst = (a: Item, b: Item) => b.time - a.time

describe("firstInOrder: the first k of a list in order, without sorting the rest", () => {
  test("the same items in the same order as a stable sort's first k, ties kept in input order", () => {
    const next = random(7)
    for (const n of [0, 1, 2, 5, 50, 1_000]) {
      // Few distinct times, so many items compare equal.
      const items: Array<Item> = Array.from({ length: n }, (_, id) => ({ id, time: Math.floor(next() * 10) }))
      for (const k of [0, 1, 2, 3, 10, 199, n - 1, n, n + 5]) {
        if (k < 0) continue
        const expected = [...items].sort(newestFirst).slice(0, k)
        expect(firstInOrder(items, k, newestFirst)).toEqual(expected)
      }
    }
  })

  test("a total order (time, then path), as grep uses it", () => {
    const next = random(11)
    const items = Array.from({ length: 5_000 }, (_, i) => ({ path: `dir${i % 37}/file${i}.ts`, time: Math.floor(next() * 1000) }))
    const order = (a: (typeof items)[number], b: (typeof items)[number]) => b.time - a.time || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)
    expect(firstInOrder(items, 200, order)).toEqual([...items].sort(order).slice(0, 200))
  })

  test("the input is left as it was", () => {
    const items: Array<Item> = [3, 1, 2].map((time, id) => ({ id, time }))
    const copy = [...items]
    expect(firstInOrder(items, 2, newestFirst).map((i) => i.time)).toEqual([3, 2])
    expect(firstInOrder(items, 5, newestFirst).map((i) => i.time)).toEqual([3, 2, 1])
    expect(items).toEqual(copy)
  })
})
