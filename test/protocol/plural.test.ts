import { expect, test } from "bun:test"
import { counted } from "../../src/protocol/plural.ts"

test("counted: one is singular, zero and many plural, irregular plurals given", () => {
  expect([counted(0, "line"), counted(1, "line"), counted(2, "line")]).toEqual(["0 lines", "1 line", "2 lines"])
  expect(counted(1, "entry", "entries")).toBe("1 entry")
  expect(counted(3, "entry", "entries")).toBe("3 entries")
})
