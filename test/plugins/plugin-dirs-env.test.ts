import { describe, expect, test } from "bun:test"
import { readPluginDirs, writePluginDirs } from "../../src/plugins/plugin-dirs-env.ts"

describe("ANVIL_PLUGIN_DIRS", () => {
  test("the separated form is split at ':'; a JSON array names any path", () => {
    expect(readPluginDirs("/a:/b::")).toEqual({ dirs: ["/a", "/b"] })
    expect(readPluginDirs('["/x:y", "/line\\nbreak", "/sp ace"]')).toEqual({ dirs: ["/x:y", "/line\nbreak", "/sp ace"] })
    expect(readPluginDirs(undefined)).toEqual({ dirs: [] })
  })

  test("a value that starts with '[' but is no array of strings loads nothing and says why", () => {
    for (const bad of ["[/a:/b", '["/a", 3]', '[{"path": "/a"}]']) {
      const read = readPluginDirs(bad)
      expect(read.dirs).toEqual([])
      expect(read.problem).toContain("is not a JSON array of strings")
    }
  })

  test("written back, every list of paths reads as it was", () => {
    for (const dirs of [["/a", "/b"], ["/a", "/team:x"], ["/n\nl"], ["[x]"], []]) {
      expect(readPluginDirs(writePluginDirs(dirs)).dirs).toEqual(dirs)
    }
    expect(writePluginDirs(["/a", "/b"])).toBe("/a:/b")
  })
})
