import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { Path } from "effect/Path"
import * as NodePath from "@effect/platform-node/NodePath"
import { nodePath } from "../../src/workspace/node-path.ts"

describe("nodePath", () => {
  test("answers as @effect/platform-node's Path does: node:path's functions, file URLs both ways, a bad URL as BadArgument", async () => {
    const platform = await Effect.runPromise(Effect.service(Path).pipe(Effect.provide(NodePath.layer)))
    for (const p of [nodePath, platform]) {
      expect(p.sep).toBe("/")
      expect(p.join("a", "../b", "c")).toBe("b/c")
      expect(p.resolve("/x", "y")).toBe("/x/y")
      expect(p.relative("/x/y", "/x/z/w")).toBe("../z/w")
    }
    const toUrl = (p: typeof nodePath) => Effect.runPromise(p.toFileUrl("/tmp/a b#c")).then(String)
    expect(await toUrl(nodePath)).toBe(await toUrl(platform))
    expect(await Effect.runPromise(nodePath.fromFileUrl(new URL("file:///tmp/a%20b")))).toBe("/tmp/a b")
    const bad = await Effect.runPromise(Effect.flip(nodePath.fromFileUrl(new URL("http://example.test/x"))))
    const badPlatform = await Effect.runPromise(Effect.flip(platform.fromFileUrl(new URL("http://example.test/x"))))
    expect(bad._tag).toBe(badPlatform._tag)
    expect(bad.message).toBe(badPlatform.message)
  })
})
