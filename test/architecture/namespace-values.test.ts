import { describe, expect, test } from "bun:test"
import { join } from "node:path"
import { readTree } from "./layers.ts"
import { namespaceExportsOf, namespaceValueUses } from "./namespace-values.ts"

const SRC = join(import.meta.dir, "..", "..", "src")

/** The names of `snippet`'s uses of a namespace as a value, as `line:name`. */
const uses = (snippet: string) => namespaceValueUses("snippet.ts", snippet).map((u) => `${u.line}:${u.name}`)

describe("effect namespaces used as values (checker)", () => {
  test("effect's index re-exports its modules as namespaces; a plain function of it is not one", () => {
    expect(namespaceExportsOf("effect")).toContain("Schema")
    expect(namespaceExportsOf("effect")).toContain("Effect")
    expect(namespaceExportsOf("effect")).not.toContain("pipe")
  })

  test("a namespace passed, stored, spread, defaulted to, put in an object or re-exported is reported", () => {
    const snippet = [
      'import { Schema, Effect as E, pipe } from "effect"',
      'import * as Layer from "effect/Layer"',
      "const a = (tool.schemaModule ?? Schema).decodeUnknownExit",
      "use(E)",
      "const b = Layer",
      "const c = { ...Schema }",
      "const d = { Schema }",
      "const e = Schema[name]",
      "export { Layer }",
      'export * as Option from "effect/Option"',
      'export { Cause } from "effect"',
      "const f = pipe(1, (x) => x)",
    ].join("\n")
    expect(uses(snippet)).toEqual(["10:Option", "11:Cause", "3:Schema", "4:E", "5:Layer", "6:Schema", "7:Schema", "8:Schema", "9:Layer"])
  })

  test("members, types, a type-only import and a local of the same name are not", () => {
    const snippet = [
      'import { Schema, Effect, Context } from "effect"',
      'import type { Layer } from "effect"',
      'import { type Option } from "effect"',
      'import * as Exit from "effect/Exit"',
      "const P = Schema.Struct({ a: Schema.String })",
      "type T = typeof Schema.Type & Effect.Effect<number> & typeof Exit",
      "const f = (x: Layer.Layer<never>, y: Option.Option<1>): Exit.Exit<1> => Exit.succeed(1)",
      "class S extends Context.Service<S, {}>()('s') implements Effect.Yieldable<S> {}",
      "const o = { Schema: 1, Effect: 2 }.Schema",
      "function g(Effect: number) { return Effect }",
      "const { Schema: renamed } = other",
      "x.Effect = 1",
      "const t = <A>(v: A): v is A & typeof Schema => true",
    ].join("\n")
    expect(uses(snippet)).toEqual([])
  })
})

describe("effect namespaces used as values (src/)", () => {
  test("no file under src/ uses an effect namespace as a value", () => {
    const found = [...readTree(SRC)].flatMap(([file, text]) => namespaceValueUses(file, text).map((u) => `src/${file}:${u.line} ${u.name}: ${u.text}`))
    expect(found).toEqual([])
  }, 60_000)
})
