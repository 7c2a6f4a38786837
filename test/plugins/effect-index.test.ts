import { describe, expect, test } from "bun:test"
import * as effect from "effect"
import { EFFECT_FUNCTION_EXPORTS, EFFECT_NAMESPACES } from "../../src/plugins/effect-index.ts"

describe("what a plugin's `import … from \"effect\"` gets", () => {
  test("src/plugins/effect-index.ts lists exactly the installed effect's index, module by module", async () => {
    const index = Object.keys(effect)
    const listed = [...Object.keys(EFFECT_NAMESPACES), ...EFFECT_FUNCTION_EXPORTS]
    expect([...listed].sort()).toEqual([...index].sort())
    for (const [name, load] of Object.entries(EFFECT_NAMESPACES)) {
      // The same module objects the host uses, so a plugin's Schemas and Effects are the host's own.
      const loaded = (await load()) as Record<string, unknown>
      const host = (effect as Record<string, unknown>)[name] as Record<string, unknown>
      for (const key of Object.keys(host).slice(0, 3)) expect(loaded[key]).toBe(host[key])
    }
  })
})
