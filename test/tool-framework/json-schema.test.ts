import { describe, expect, test } from "bun:test"
import { Effect, Schema } from "effect"
import { defineTool } from "../../src/tool-framework/definition.ts"
import { parameterJsonSchema } from "../../src/tool-framework/json-schema.ts"
import { builtinTools } from "../support/harness.ts"

const tool = (parameters: Schema.Codec<any, any, never, never>) =>
  defineTool({ name: "t", title: "T", description: "d", parameters, run: () => Effect.succeed({ data: {}, text: "" }) })

describe("parameterJsonSchema", () => {
  test("a tool without parameters is an empty object schema, not Schema's {not: null}", () => {
    expect(parameterJsonSchema(tool(Schema.Struct({})))).toEqual({ type: "object", properties: {}, additionalProperties: false })
  })
  test("a tool's own JSON Schema (an MCP tool's) gets the properties an object schema must carry", () => {
    const own = { ...tool(Schema.Struct({})), jsonSchema: { type: "object" } }
    expect(parameterJsonSchema(own)).toEqual({ type: "object", properties: {} })
    const full = { ...tool(Schema.Struct({})), jsonSchema: { type: "object", properties: { a: { type: "string" } } } }
    expect(parameterJsonSchema(full)).toEqual({ type: "object", properties: { a: { type: "string" } } })
  })
  test("an object schema at any depth carries properties: a record parameter, an MCP tool's nested objects; data keywords are left alone", () => {
    const objectsWithout = (value: unknown, path = "", out: Array<string> = []): Array<string> => {
      if (Array.isArray(value)) value.forEach((v, i) => objectsWithout(v, `${path}[${i}]`, out))
      else if (typeof value === "object" && value !== null) {
        const node = value as Record<string, unknown>
        if (node.type === "object" && node.properties === undefined) out.push(path || "(root)")
        for (const [k, v] of Object.entries(node)) if (k !== "enum" && k !== "default") objectsWithout(v, `${path}.${k}`, out)
      }
      return out
    }
    const record = parameterJsonSchema(tool(Schema.Struct({ headers: Schema.optionalKey(Schema.Record(Schema.String, Schema.String)) })))
    expect(record.properties).toEqual({ headers: { type: "object", properties: {}, additionalProperties: { type: "string" } } })
    const nested = {
      type: "object",
      properties: { opts: { type: "object" }, list: { type: "array", items: { type: "object", additionalProperties: true } }, d: { default: { type: "object" } } },
    }
    const mcp = { ...tool(Schema.Struct({})), jsonSchema: nested }
    expect(objectsWithout(parameterJsonSchema(mcp))).toEqual([])
    expect((parameterJsonSchema(mcp) as any).properties.d.default).toEqual({ type: "object" })
    expect(nested.properties.opts).toEqual({ type: "object" }) // the tool's own schema is not changed
    for (const t of builtinTools) expect(objectsWithout(parameterJsonSchema(t)).map((p) => `${t.name}${p}`)).toEqual([])
  })
  test("optional keys are optional and unknown keys are refused", () => {
    const s = parameterJsonSchema(tool(Schema.Struct({ a: Schema.String, b: Schema.optionalKey(Schema.Int) })))
    expect(s.required).toEqual(["a"])
    expect(s.additionalProperties).toBe(false)
  })
  test("every built-in tool offers an object schema with described properties", () => {
    for (const t of builtinTools) {
      const s = parameterJsonSchema(t)
      expect(s.type).toBe("object")
      expect(s.properties).toBeObject()
      expect(JSON.stringify(s)).not.toContain('"not"')
    }
  })
})

describe("parameterJsonSchema stays small", () => {
  test("no ±2^53 integer bounds and no additionalProperties: true (they say nothing)", () => {
    const s = JSON.stringify(parameterJsonSchema(tool(Schema.Struct({ n: Schema.Int, items: Schema.Array(Schema.Struct({ a: Schema.String })) }))))
    expect(s).not.toContain("9007199254740991")
    expect(s).not.toContain('"additionalProperties":true')
  })
  test("real bounds stay", () => {
    const s = parameterJsonSchema(tool(Schema.Struct({ n: Schema.Int.check(Schema.isGreaterThanOrEqualTo(100)) })))
    expect((s.properties as any).n.minimum).toBe(100)
  })
  test("an integer above n is written as the same bound, at least n+1", () => {
    const s = parameterJsonSchema(tool(Schema.Struct({ n: Schema.Int.check(Schema.isGreaterThan(0)), m: Schema.Int.check(Schema.isGreaterThan(-5)) })))
    expect((s.properties as any).n).toEqual({ type: "integer", minimum: 1 })
    expect((s.properties as any).m).toEqual({ type: "integer", minimum: -4 })
  })
})
