import { describe, expect, test } from "bun:test"
import { Effect, Schema } from "effect"
import { PROFILES } from "../../src/agent/profiles.ts"
import { defineTool, type Tool } from "../../src/tool-framework/definition.ts"
import { parameterJsonSchema } from "../../src/tool-framework/json-schema.ts"
import { decodeParams } from "../../src/tool-framework/params.ts"
import { LOAD_TOOLS, registryWithLoader } from "../../src/tools/load_tools.ts"
import { builtinTools } from "../support/harness.ts"

const mcp = (name: string): Tool =>
  defineTool({ name, title: name, description: `${name}.`, parameters: Schema.Struct({}), run: () => Effect.succeed({ data: {}, text: "" }) })

const registry = registryWithLoader([...PROFILES.code.select(builtinTools), mcp("mcp__docs__search"), mcp("mcp__docs__fetch_page"), mcp("mcp__other__x")])
const loader = registry.lookup(LOAD_TOOLS)!

/** What load_tools loads for these parameters (as the model sends them), or the error code. */
const load = async (params: unknown): Promise<ReadonlyArray<string> | string> => {
  const decoded = decodeParams(loader, params)
  if (!decoded.ok) return decoded.error.code
  const exit = await Effect.runPromiseExit(loader.run(decoded.value, { callId: "c", rawParams: params } as never) as unknown as Effect.Effect<any, { code: string }>)
  if (exit._tag === "Success") return exit.value.data.loaded as ReadonlyArray<string>
  const failure = exit.cause.reasons.find((r) => r._tag === "Fail") as { error: { code: string } } | undefined
  return failure?.error.code ?? "DEFECT"
}

describe("load_tools finds tools by the names a model would use", () => {
  test("exact names and aliases, spaced or hyphenated names, and groups by their prefix", async () => {
    expect(await load({ names: ["git_status"] })).toEqual(["git_status"])
    expect(await load({ names: ["GitStatus"] })).toEqual(["git_status"])
    expect(await load({ names: ["git status", "lsp-hover"] })).toEqual(["git_status", "lsp_hover"])
    expect(await load({ names: ["git"] })).toEqual(["git_status", "git_diff", "git_log", "git_add", "git_commit"])
    expect(await load({ names: ["lsp"] })).toEqual(["lsp_diagnostics", "lsp_definition", "lsp_hover"])
    expect(await load({ names: ["mcp__docs"] })).toEqual(["mcp__docs__search", "mcp__docs__fetch_page"])
    // A family as the catalogue writes it.
    expect(await load({ names: ["git_*"] })).toEqual(["git_status", "git_diff", "git_log", "git_add", "git_commit"])
    expect(await load({ names: ["mcp__docs__*"] })).toEqual(["mcp__docs__search", "mcp__docs__fetch_page"])
    expect(await load({ names: ["nothing"] })).toBe("INVALID_PARAM")
    expect(await load({ names: [] })).toBe("INVALID_PARAM")
  })

  test("a name close to a tool's is asked for again under that tool's name; a name close to none gets the list", async () => {
    const refusal = async (params: unknown) => {
      const decoded = decodeParams(loader, params)
      if (!decoded.ok) throw new Error("not decoded")
      const exit = await Effect.runPromiseExit(loader.run(decoded.value, { callId: "c", rawParams: params } as never) as unknown as Effect.Effect<unknown, { hints?: ReadonlyArray<unknown> }>)
      return exit._tag === "Failure" ? (exit.cause.reasons.find((r) => r._tag === "Fail") as unknown as { error: { hints?: ReadonlyArray<unknown> } }).error : undefined
    }
    expect((await refusal({ names: ["git_stat", "lsp_hovr"] }))?.hints).toEqual([{ action: "LoadTools", priority: "high", args: { names: ["git_status", "lsp_hover"] } }])
    expect((await refusal({ names: ["frobnicate"] }))?.hints).toBeUndefined()
  })

  test("one name sent as a plain string is taken; the schema offered still asks for an array", async () => {
    expect(await load({ names: "git_diff" })).toEqual(["git_diff"])
    expect(await load("fetch")).toEqual(["fetch"])
    const schema = parameterJsonSchema(loader) as { properties: { names: { type: string } }; required: Array<string> }
    expect(schema.properties.names.type).toBe("array")
    expect(schema.required).toEqual(["names"])
  })
})

describe("tools the permission rules deny outright are neither offered nor loadable", () => {
  const denied = new Set(["git_commit", "fetch"])
  const guarded = registryWithLoader(PROFILES.code.select(builtinTools), [], undefined, (t) =>
    denied.has(t.name) ? `The '${t.name}' call is denied by the rule "${t.name}": "deny".` : undefined,
  )
  const guardedLoader = guarded.lookup(LOAD_TOOLS)!
  const run = (params: unknown) =>
    Effect.runPromiseExit(guardedLoader.run(params as never, { callId: "c", rawParams: params } as never) as unknown as Effect.Effect<any, { code: string; message: string }>)

  test("the registry's list (what is offered) leaves them out; lookup still finds them, so a call gets the rule's refusal", () => {
    const names = guarded.tools.map((t) => t.name)
    expect(names).not.toContain("git_commit")
    expect(names).not.toContain("fetch")
    expect(names).toContain("git_status")
    expect(guarded.lookup("fetch")?.name).toBe("fetch")
  })

  test("asking for one says why it is not loaded; a group loads only what may run", async () => {
    const one = await run({ names: ["fetch"] })
    expect(one._tag).toBe("Failure")
    const error = one._tag === "Failure" ? (one.cause.reasons.find((r) => r._tag === "Fail") as { error: { code: string; message: string } }).error : undefined
    expect(error?.code).toBe("INVALID_PARAM")
    expect(error?.message).toContain(`denied by the rule "fetch": "deny"`)
    const mixed = await run({ names: ["git", "fetch"] })
    expect(mixed._tag).toBe("Success")
    const value = mixed._tag === "Success" ? mixed.value : undefined
    expect(value.data.loaded).toEqual(["git_status", "git_diff", "git_log", "git_add"])
    expect(value.data.denied).toEqual([{ name: "fetch", reason: `The 'fetch' call is denied by the rule "fetch": "deny".` }])
    expect(value.status).toBe("partial")
  })
})
