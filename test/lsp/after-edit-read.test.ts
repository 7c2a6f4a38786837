import { describe, expect, test } from "bun:test"
import { Effect, Layer } from "effect"
import { symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { PlatformLive } from "../../src/runtime.ts"
import { Lsp, type LspShape } from "../../src/lsp/service.ts"
import { makeLspAfterChange } from "../../src/tools/lsp-after-edit.ts"
import { Workspace } from "../../src/workspace/workspace.ts"
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
    const layer = Layer.mergeAll(Workspace.layer({ root, cwd: root, extraAllowed: [] }), Layer.succeed(Lsp, lsp)).pipe(Layer.provideMerge(PlatformLive))
    const run = Effect.gen(function* () {
      const after = yield* makeLspAfterChange
      return yield* after.check(["fifo.ts", "link.ts", "ok.ts"])
    }).pipe(Effect.provide(layer))
    const result = await Promise.race([Effect.runPromise(run), Bun.sleep(5_000).then(() => "hung")])
    expect(result).not.toBe("hung")
    expect(seen).toEqual([{ file: join(root, "ok.ts"), text: "const ok = 1\n" }])
  })
})
