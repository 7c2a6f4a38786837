import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { FileSystem as EffectFileSystem } from "effect/FileSystem"
import { join } from "node:path"
import { FileSystem, lazyFileSystem, loadNodeFileSystem } from "../../src/workspace/file-system.ts"
import { project } from "../support/harness.ts"

describe("the lazily loaded file system", () => {
  test("its key is effect's (by string identity): a service put under one is found under the other", async () => {
    expect(FileSystem.key).toBe(EffectFileSystem.key)
    const fs = lazyFileSystem()
    const found = await Effect.runPromise(Effect.service(EffectFileSystem).pipe(Effect.provideService(FileSystem, fs)))
    expect(found).toBe(fs)
  })

  test("each Effect method answers what the platform's file system answers, errors included", async () => {
    const root = project({ "a.txt": "alpha\n", "d/b.txt": "beta\n" })
    const [lazy, node] = [lazyFileSystem(), await loadNodeFileSystem()]
    const both = async <A, E>(f: (fs: typeof node) => Effect.Effect<A, E, never>) => {
      const [a, b] = await Promise.all([lazy, node].map((fs) => Effect.runPromise(Effect.result(f(fs)))))
      return [a!, b!] as const
    }
    const [text, textNode] = await both((fs) => fs.readFileString(join(root, "a.txt")))
    expect(text).toEqual(textNode)
    expect(text._tag).toBe("Success")
    const [entries, entriesNode] = await both((fs) => fs.readDirectory(root))
    expect(entries).toEqual(entriesNode)
    const [missing, missingNode] = await both((fs) => fs.stat(join(root, "nope")))
    const reason = (r: typeof missing) => (r._tag === "Failure" ? r.failure.reason._tag : "none")
    expect(reason(missing)).toBe("NotFound")
    expect(reason(missingNode)).toBe("NotFound")
    await Effect.runPromise(lazy.writeFileString(join(root, "c.txt"), "gamma"))
    expect(await Effect.runPromise(node.readFileString(join(root, "c.txt")))).toBe("gamma")
    expect(await Effect.runPromise(lazy.exists(join(root, "c.txt")))).toBe(true)
  })

  test("its stream methods say what to do instead (a tool that streams names FileSystem in its requires)", () => {
    const fs = lazyFileSystem()
    expect(() => fs.stream("/x")).toThrow(/names FileSystem in its requires/)
    expect(() => fs.sink("/x")).toThrow(/names FileSystem in its requires/)
    expect(() => fs.watch("/x")).toThrow(/names FileSystem in its requires/)
  })
})
