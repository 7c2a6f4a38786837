import { describe, expect, test } from "bun:test"
import { argumentNames, skillPrompt, splitArguments, substituteArguments } from "../../src/skills/skill-arguments.ts"

describe("skill arguments, filled in as Claude Code fills them", () => {
  test("words are split as a shell splits them: quotes group and go, a backslash escapes, nothing is expanded", () => {
    expect(splitArguments(`one "two words" 'three $HOME' four\\ five ""`)).toEqual(["one", "two words", "three $HOME", "four five", ""])
    expect(splitArguments("  ")).toEqual([])
    expect(splitArguments(`a"b c"d`)).toEqual(["ab cd"])
  })

  test("$ARGUMENTS is the string as given; $N and $ARGUMENTS[N] count from 0; a missing word is empty", () => {
    const text = "All: $ARGUMENTS. First: $0, second: $ARGUMENTS[1], third: $2."
    expect(substituteArguments(text, `"My Button" React`)).toBe(`All: "My Button" React. First: My Button, second: React, third: .`)
    expect(substituteArguments("Ship $0 to $1, not $10", "1.2 prod")).toBe("Ship 1.2 to prod, not ")
  })

  test("named arguments from the front matter, longer names first; names that only start alike are left alone", () => {
    const names = argumentNames(["issue", "issue-id"])
    expect(substituteArguments("Fix $issue ($issue-id); $issues stays", "login 42", { names })).toBe("Fix login (42); $issues stays")
    expect(argumentNames("old-name new-name, scope")).toEqual(["old-name", "new-name", "scope"])
    expect(argumentNames(42)).toEqual([])
  })

  test("a text that names no argument gets them after it; none given changes nothing", () => {
    expect(substituteArguments("Review the code.", "src/a.ts")).toBe("Review the code.\n\nARGUMENTS: src/a.ts")
    expect(substituteArguments("Review the code.", "")).toBe("Review the code.")
    expect(substituteArguments("Costs $ and $HOME", "x")).toBe("Costs $ and $HOME\n\nARGUMENTS: x")
  })

  test("a prompt /name args runs a skill a person may run: its folder, then its filled instructions", () => {
    const skills = [
      { name: "greet", content: "Greet $0 from ${CLAUDE_SKILL_DIR} in ${CLAUDE_SESSION_ID}", dir: "/skills/greet", fields: {} },
      { name: "hidden", content: "Not for people", dir: "/skills/hidden", fields: { "user-invocable": "false" } },
    ]
    expect(skillPrompt("/greet Ada", skills, "s1", "(built in)")).toBe("Base directory for this skill: /skills/greet\n\nGreet Ada from /skills/greet in s1")
    expect(skillPrompt("/hidden", skills, "s1", "(built in)")).toBeUndefined()
    expect(skillPrompt("/other x", skills, "s1", "(built in)")).toBeUndefined()
    expect(skillPrompt("greet Ada", skills, "s1", "(built in)")).toBeUndefined()
  })
})
