import { describe, expect, test } from "bun:test"
import { errorText } from "../../src/git/repository.ts"

describe("errorText", () => {
  test("an isomorphic-git internal error keeps only its cause, not the advice to report a bug to isomorphic-git", () => {
    const wrapped = new Error(
      "An internal error caused this command to fail.\n\nIf you're using an application that depends on isomorphic-git, please report this error to that application's developers.\n\n" +
        "If you're a developer and you believe this is a bug in isomorphic-git, please file an issue at https://github.com/isomorphic-git/isomorphic-git/issues with a minimal reproduction, version and environment details, and this error message: Invalid checksum in GitIndex buffer: expected 00 but saw 09.",
    )
    expect(errorText(wrapped)).toBe("Invalid checksum in GitIndex buffer: expected 00 but saw 09.")
    expect(errorText(new Error("Could not find main."))).toBe("Could not find main.")
    expect(errorText("plain")).toBe("plain")
  })
})
