/**
 * Start-up floor 2: the least a tool call made of Effect services and a Schema
 * can do, compiled as anvil is. Two services from a Context (as
 * src/runtime.ts makes them), the parameters decoded by a Schema with the
 * options the tool pipeline uses, the file read with node:fs, its lines
 * numbered and an envelope printed as JSON. Nothing of anvil is imported:
 * its CPU time against `anvil --version` is where `anvil tool read` could get
 * at best on this runtime.
 */
import { Context, Effect, Schema } from "effect"
import { readFileSync } from "node:fs"
import { resolve } from "node:path"

class Root extends Context.Service<Root, { readonly dir: string }>()("floor/Root") {}
class Limits extends Context.Service<Limits, { readonly lines: number }>()("floor/Limits") {}

const Params = Schema.Struct({
  path: Schema.String,
  offset: Schema.optionalKey(Schema.Int),
  limit: Schema.optionalKey(Schema.Int.check(Schema.isGreaterThan(0))),
})

const call = (raw: unknown) =>
  Effect.gen(function* () {
    const { dir } = yield* Root
    const { lines } = yield* Limits
    const decoded = Schema.decodeUnknownExit(Params, { errors: "all", onExcessProperty: "error" })(raw)
    if (decoded._tag === "Failure") return { status: "error", error: { code: "INVALID_PARAM" } }
    const { path, offset = 0, limit = lines } = decoded.value
    const text = readFileSync(resolve(dir, path), "utf8")
    const shown = text.split("\n").slice(offset, offset + limit)
    const content = shown.map((line, i) => `${String(offset + i + 1).padStart(6)}\t${line}`).join("\n")
    return { status: "success", data: { path, content, lines_returned: shown.length }, text: content }
  })

const context = Context.make(Root, { dir: process.cwd() }).pipe(Context.add(Limits, { lines: 50 }))
const envelope = await Effect.runPromise(Effect.provideContext(call(JSON.parse(process.argv[2] ?? "{}")), context))
await Bun.write(Bun.stdout, `${JSON.stringify(envelope, null, 2)}\n`)
