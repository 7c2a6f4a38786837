import { describe, expect, test } from "bun:test"
import { Effect, Layer } from "effect"
import { symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { PlatformLive } from "../../src/runtime.ts"
import { Lsp, type LspShape } from "../../src/lsp/service.ts"
import { makeLspAfterChange } from "../../src/tools/lsp-after-edit.ts"
import { Workspace } from "../../src/workspace/workspace.ts"
import { Config } from "../../src/config/config.ts"
import type { Diagnostic } from "../../src/lsp/engine.ts"
import { splitDiagnostics } from "../../src/tools/lsp-withheld.ts"
import { project, tempDir } from "../support/harness.ts"

// After a change, the files it wrote are read again for their language server. By then another process may have put
// a FIFO or a link to a file outside in a file's place: the read must neither hang (a FIFO opened for reading waits
// for a writer, and no signal ended anvil then) nor follow the link out of the project.
describe("the language-server check after a change reads the file as the file tools do", () => {
  test("a FIFO or a link outside in a changed file's place is passed over; the file itself is checked", async () => {
    const root = project({ "ok.ts": "const ok = 1\n" })
    const outside = join(tempDir("anvil-lsp-outside-"), "secret.ts")
    writeFileSync(outside, "SECRET\n")
    symlinkSync(outside, join(root, "link.ts"))
    Bun.spawnSync(["mkfifo", join(root, "fifo.ts")])
    const seen: Array<{ file: string; text: string }> = []
    const lsp: LspShape = {
      enabled: true,
      afterEdit: true,
      settings: { idleMs: 0, maxRestarts: 0, diagnosticsWaitMs: 0, requestTimeoutMs: 0, startTimeoutMs: 0 },
      covers: () => true,
      use: (f) =>
        Effect.promise(() =>
          f({
            diagnostics: async (file: string, text: string) => {
              seen.push({ file, text })
              return { kind: "diagnostics", server: "stub", freshness: "current", diagnostics: [], missingHelpers: [] }
            },
          } as never),
        ),
    }
    const layer = Layer.mergeAll(Workspace.layer({ root, cwd: root, extraAllowed: [] }), Layer.succeed(Lsp, lsp), Config.layerFrom({}, {})).pipe(Layer.provideMerge(PlatformLive))
    const run = Effect.gen(function* () {
      const after = yield* makeLspAfterChange
      return yield* after.check(["fifo.ts", "link.ts", "ok.ts"])
    }).pipe(Effect.provide(layer))
    const result = await Promise.race([Effect.runPromise(run), Bun.sleep(5_000).then(() => "hung")])
    expect(result).not.toBe("hung")
    expect(seen).toEqual([{ file: join(root, "ok.ts"), text: "const ok = 1\n" }])
  })
})

const diag = (message: string): Diagnostic => ({ severity: "error", line: 1, character: 1, end_line: 1, end_character: 2, message, source: "stub", code: null })

describe("diagnostics that show what read rules hide are withheld", () => {
  const rule = { rule: `"read": {"secret.ts": "deny"}`, where: "/p/anvil.json (this project's settings)" }
  const hidden = { hidingRule: (path: string) => (path === "secret.ts" || path === "conf/keys.py" ? { ...rule, level: "deny" as const } : undefined) }
  const file = (display: string, text: string) => ({ display, bytes: new TextEncoder().encode(text) })
  const texts = () => [file("secret.ts", 'export const KEY = "sk-live-0123"\n')]

  test("a message naming a hidden file (as a path, from the file's folder, as a module) or quoting its text; the rest kept", () => {
    const source = { display: "src/../main.ts", text: 'import { KEY } from "./secret"\nconst n: number = KEY\nconst s = "plain"\n' }
    const list = [
      diag(`Type '"sk-live-0123"' is not assignable to type 'number'.`),
      diag(`Module './secret' has no exported member 'KEY2'.`),
      diag(`Cannot find name 'other'.`),
      diag(`Type '"plain"' is not assignable to type 'number'.`),
      diag(`'conf.keys' imported but unused`),
    ]
    const split = splitDiagnostics(list, { ...source, display: "main.ts" }, hidden, texts)
    // conf.keys is the module conf/keys.py only from a Python file (here it would be conf/keys.ts).
    expect(split.kept.map((d) => d.message)).toEqual([`Cannot find name 'other'.`, `Type '"plain"' is not assignable to type 'number'.`, `'conf.keys' imported but unused`])
    expect(split.withheld.length).toBe(2)
    expect(split.rules).toEqual([rule])
    const py = splitDiagnostics([diag(`'conf.keys' imported but unused`)], { display: "app.py", text: "import conf.keys\n" }, hidden, texts)
    expect(py.withheld.length).toBe(1)
  })

  test("hidden files are read only when a message quotes text the diagnosed file does not hold", () => {
    let reads = 0
    const counting = () => {
      reads++
      return texts()
    }
    const source = { display: "main.ts", text: 'const s = "plain text"\n' }
    splitDiagnostics([diag(`Type '"plain text"' is wrong.`), diag("Cannot find name 'x'.")], source, hidden, counting)
    expect(reads).toBe(0)
    splitDiagnostics([diag(`Type '"elsewhere"' is wrong.`), diag(`Type '"also elsewhere"' is wrong.`)], source, hidden, counting)
    expect(reads).toBe(1)
  })

  test("hidden files are read one at a time, and no further than until every quoting message found its file", () => {
    const rules = (path: string) => ({ rule: `"read": {"${path}": "deny"}`, where: "/p/anvil.json (this project's settings)", level: "deny" as const })
    const many = { hidingRule: (path: string) => (path.startsWith("vault/") ? rules(path) : undefined) }
    const read: Array<string> = []
    function* files() {
      for (let i = 0; i < 200; i++) {
        read.push(`vault/f${i}.ts`)
        yield file(`vault/f${i}.ts`, i === 2 ? 'export const A = "alpha-key"\n' : i === 5 ? 'export const B = "beta-key"\n' : "nothing here\n")
      }
    }
    const source = { display: "main.ts", text: "import { A, B } from './vault'\n" }
    const list = [diag(`Type '"beta-key"' is wrong.`), diag("Cannot find name 'x'."), diag(`Type '"alpha-key"' is wrong.`)]
    const split = splitDiagnostics(list, source, many, files)
    expect(split.withheld.map((d) => d.message)).toEqual([`Type '"beta-key"' is wrong.`, `Type '"alpha-key"' is wrong.`])
    expect(split.kept.map((d) => d.message)).toEqual(["Cannot find name 'x'."])
    expect(split.rules.map((r) => r.rule)).toEqual([`"read": {"vault/f5.ts": "deny"}`, `"read": {"vault/f2.ts": "deny"}`])
    expect(read).toEqual(["vault/f0.ts", "vault/f1.ts", "vault/f2.ts", "vault/f3.ts", "vault/f4.ts", "vault/f5.ts"])
    // A quote no hidden file holds: every file is looked at, the message kept.
    read.length = 0
    expect(splitDiagnostics([diag(`Type '"gamma-key"' is wrong.`)], source, many, files).kept).toHaveLength(1)
    expect(read).toHaveLength(200)
  })
})
