import { describe, expect, test } from "bun:test"
import { Effect, Layer } from "effect"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import { statSync, utimesSync } from "node:fs"
import { join } from "node:path"
import { BulkFs } from "../../src/workspace/bulk-fs.ts"
import { project } from "../support/harness.ts"

const mtimesWith = (layer: Layer.Layer<BulkFs>, paths: ReadonlyArray<string>) =>
  Effect.runPromise(Effect.flatMap(BulkFs, (bulk) => bulk.mtimes(paths)).pipe(Effect.provide(layer)))

describe("BulkFs.mtimes", () => {
  test("a small batch (stat'ed at once) and a large one (in flight) answer what stat does, 0 for what cannot be stat'ed", async () => {
    const tree: Record<string, string> = {}
    for (let i = 0; i < 1_100; i++) tree[`d${i % 10}/f${i}.txt`] = ""
    const root = project(tree)
    const files = Object.keys(tree).map((p) => join(root, p))
    files.forEach((f, i) => utimesSync(f, 1_000 + i, 1_000 + i))
    const paths = [...files, join(root, "missing.txt"), join(root, "d0/f0.txt/below")]
    const expected = [...files.map((f) => statSync(f).mtimeMs), 0, 0]
    expect(expected[5]).toBe(1_005_000)

    const viaFs = BulkFs.fromFileSystem.pipe(Layer.provide(NodeFileSystem.layer))
    for (const layer of [BulkFs.layer, viaFs]) {
      expect(await mtimesWith(layer, paths)).toEqual(expected)
      expect(await mtimesWith(layer, paths.slice(-20))).toEqual(expected.slice(-20))
      expect(await mtimesWith(layer, [])).toEqual([])
    }
  })
})
