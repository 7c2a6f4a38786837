import { describe, expect, test } from "bun:test"
import { readFileSync } from "node:fs"
import { DTS_FILE, generatePluginApiDts } from "../../embedded/generate-plugin-api.ts"
import * as api from "../../src/plugins/api.ts"

describe("the plugin API's embedded declarations", () => {
  test("embedded/plugin-api.dts.txt matches src/plugins/api.ts (run: bun embedded/generate-plugin-api.ts)", () => {
    expect(readFileSync(DTS_FILE, "utf8")).toBe(generatePluginApiDts())
  }, 60_000)

  test("every export of the API is declared with a doc comment", () => {
    const dts = readFileSync(DTS_FILE, "utf8")
    const exported = [...dts.matchAll(/^export (?:declare )?(?:const|class|interface|type|function) (\w+)/gm)].map((m) => m[1]!)
    expect(exported.length).toBeGreaterThan(20)
    for (const value of Object.keys(api)) expect(exported).toContain(value)
    for (const name of exported) {
      const at = dts.search(new RegExp(`^export (?:declare )?(?:const|class|interface|type|function) ${name}\\b`, "m"))
      const before = dts.slice(0, at).trimEnd()
      expect({ name, documented: before.endsWith("*/") }).toEqual({ name, documented: true })
    }
  })
})
