import { describe, expect, test } from "bun:test"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { parseFrontMatter } from "../../src/skills/front-matter.ts"
import { parseSkillDocument } from "../../src/skills/skill-document.ts"

const fm = (...lines: Array<string>) => `---\n${lines.join("\n")}\n---\nBody\n`
const fields = (...lines: Array<string>) => {
  const r = parseFrontMatter(fm(...lines))
  if (!r.ok) throw new Error(`unexpected failure: ${r.reason} (line ${r.line})`)
  return r.fields
}
const failure = (...lines: Array<string>) => {
  const r = parseFrontMatter(fm(...lines))
  if (r.ok) throw new Error(`expected a failure, got ${JSON.stringify(r.fields)}`)
  return r
}

describe("parseFrontMatter", () => {
  test("plain, quoted and commented values; the body after the closing line", () => {
    const r = parseFrontMatter("---\nname: my-skill  # the id\ndescription: 'It''s: fine'\nlicense: \"MIT \\u00e9\\n\"\n---\n# Title\ntext\n")
    expect(r).toEqual({ ok: true, fields: { name: "my-skill", description: "It's: fine", license: "MIT é\n" }, body: "# Title\ntext\n", notes: [] })
  })

  test("CRLF line endings and a byte-order mark are accepted", () => {
    const r = parseFrontMatter("\uFEFF---\r\nname: a\r\ndescription: b\r\n---\r\nBody\r\n")
    expect(r).toEqual({ ok: true, fields: { name: "a", description: "b" }, body: "Body\n", notes: [] })
  })

  test("a plain value continues on indented lines, folded into one line", () => {
    expect(fields("description: Draft release notes", "  from the git history.", "name: x")).toEqual({
      description: "Draft release notes from the git history.",
      name: "x",
    })
  })

  test("quoted values may span lines", () => {
    expect(fields('description: "one', '  two"')).toEqual({ description: "one two" })
    expect(fields("description: 'one", "", "  two'")).toEqual({ description: "one\ntwo" })
    expect(fields('description: "one\\', '  two"')).toEqual({ description: "onetwo" })
  })

  test("literal and folded block scalars with chomping", () => {
    expect(fields("a: |", "  line 1", "    indented", "  line 3", "b: x")).toEqual({ a: "line 1\n  indented\nline 3\n", b: "x" })
    expect(fields("a: >", "  folded", "  text", "", "  para", "b: x")).toEqual({ a: "folded text\npara\n", b: "x" })
    expect(fields("a: >-", "  folded", "  text", "", "")).toEqual({ a: "folded text" })
    expect(fields("a: |+", "  kept", "", "b: x")).toEqual({ a: "kept\n\n", b: "x" })
    expect(fields("a: |2", "    two extra", "b: x")).toEqual({ a: "  two extra\n", b: "x" })
    expect(fields("a: |", "b: x")).toEqual({ a: "", b: "x" })
    // A tab after the indentation is content, not indentation.
    expect(fields("a: |", "  \tcode")).toEqual({ a: "\tcode\n" })
  })

  test("lists: flow on one line, or '- item' lines (indented or not)", () => {
    expect(fields('tags: [a, "b, c", \'d\', ]')).toEqual({ tags: ["a", "b, c", "d"] })
    expect(fields("tags: []")).toEqual({ tags: [] })
    expect(fields("tags:", "  - one", "  - 'two'", "  # comment", "  - three", "name: x")).toEqual({ tags: ["one", "two", "three"], name: "x" })
    expect(fields("tags:", "- one", "- two")).toEqual({ tags: ["one", "two"] })
  })

  test("one level of mapping, values as strings (no type conversion)", () => {
    expect(fields("metadata:", "  author: someone", "  version: 1.0", "  flag: true", "name: x")).toEqual({
      metadata: { author: "someone", version: "1.0", flag: "true" },
      name: "x",
    })
    expect(fields("metadata: {}")).toEqual({ metadata: {} })
    expect(fields("empty:", "name: x")).toEqual({ empty: "", name: "x" })
  })

  test("the Agent Skills fields as a SKILL.md writes them", () => {
    expect(
      fields(
        "name: pdf-processing",
        "description: Extract text and tables from PDF files. Use when working with PDFs.",
        "license: Apache-2.0",
        "compatibility: Requires poppler-utils on PATH",
        "metadata:",
        '  author: "example-org"',
        '  version: "1.0"',
        "allowed-tools: Bash(pdftotext:*) Read",
      ),
    ).toEqual({
      name: "pdf-processing",
      description: "Extract text and tables from PDF files. Use when working with PDFs.",
      license: "Apache-2.0",
      compatibility: "Requires poppler-utils on PATH",
      metadata: { author: "example-org", version: "1.0" },
      "allowed-tools": "Bash(pdftotext:*) Read",
    })
  })

  test("no front matter, or an unclosed one, is reported", () => {
    expect(parseFrontMatter("# Just markdown\n")).toEqual({ ok: false, reason: expect.stringContaining("does not start with YAML front matter"), line: 1 })
    expect(parseFrontMatter("---\nname: x\n")).toEqual({ ok: false, reason: expect.stringContaining("not closed") })
  })

  test("strictness: each refusal names the reason and the file line", () => {
    expect(failure("name: x", "name: y")).toEqual({ ok: false, reason: "duplicate key 'name'", line: 3 })
    expect(failure("description: Use when: always", "  and more").reason).toContain("put the value in quotes")
    expect(failure("description: one", "  two: three").reason).toContain("put the value in quotes")
    expect(failure("\tname: x").reason).toContain("tabs")
    expect(failure("metadata:", "\tauthor: x").reason).toContain("tabs")
    expect(failure("  name: x")).toEqual({ ok: false, reason: expect.stringContaining("unexpected indentation"), line: 2 })
    expect(failure("just text").reason).toContain("expected 'key: value'")
    expect(failure("a: &anchor x").reason).toContain("anchors")
    expect(failure("tags:", "  - *alias").reason).toContain("anchors")
    expect(failure("a: !!str x").reason).toContain("tags")
    expect(failure("a: [x, y").reason).toContain("same line")
    expect(failure('a: "open').reason).toContain("unterminated double-quoted")
    expect(failure("a: 'open", "b: x").reason).toContain("unterminated single-quoted")
    expect(failure('a: "x" y').reason).toContain("after the closing quote")
    expect(failure('a: "bad \\q"').reason).toContain("invalid escape")
    expect(failure("a: - x").reason).toContain("line below")
    expect(failure("metadata:", "  author: x", "    more: y").reason).toContain("put the value in quotes")
    expect(failure("tags:", "  -").reason).toContain("empty list item")
    expect(failure("tags:", "  - a", " - b").reason).toContain("unexpected indentation")
    expect(failure("a: |x").reason).toContain("block scalar header")
    expect(failure("a: |", "    four", "  two").reason).toContain("indented less")
  })

  test("prose on one line that YAML refuses is read as written, with a note, as Claude Code reads it", () => {
    // Published Claude Code plugins write agents' and skills' descriptions so: "Use this agent when: ...".
    const r = parseFrontMatter(fm("name: a", "description: Use when: always \\n <example>Context: x</example>", "tools: [Read, Grep]"))
    expect(r).toEqual({
      ok: true,
      fields: { name: "a", description: "Use when: always \\n <example>Context: x</example>", tools: ["Read", "Grep"] },
      body: "Body\n",
      notes: ["line 3: the value of 'description' is not valid YAML as written (a ':' that YAML reads as a key); it was read as the text written (quote it for other YAML readers)"],
    })
    expect(fields("description: *bold* first")).toEqual({ description: "*bold* first" })
    expect(fields("description: `code` first", "name: x")).toEqual({ description: "`code` first", name: "x" })
    expect(fields("description: @mention and %pct", "name: x")).toEqual({ description: "@mention and %pct", name: "x" })
    expect(fields("description: ends with:", "argument-hint: say \"hi\": now")).toEqual({ description: "ends with:", "argument-hint": 'say "hi": now' })
    // What YAML reads is never rewritten, nor is a value that spans lines or a refusal of another kind.
    expect(fields("description: see http://x.y")).toEqual({ description: "see http://x.y" })
    expect(parseFrontMatter(fm("name: a", "description: b")).ok && (parseFrontMatter(fm("name: a", "description: b")) as { notes: unknown }).notes).toEqual([])
    expect(failure("description: Use when: x", "  more").line).toBe(2)
    expect(failure("description: x", "name: a", "name: b").reason).toBe("duplicate key 'name'")
    expect(failure("description: Use when: x", "name: a", "name: b")).toMatchObject({ reason: expect.stringContaining("put the value in quotes"), line: 2 })
    expect(failure("description: 'it: is' tail").reason).toContain("after the closing quote")
  })

  test("what it accepts, it reads as Bun's YAML parser does", () => {
    const cases = [
      "name: my-skill  # the id\ndescription: 'It''s: fine'\nlicense: \"MIT \\u00e9\\n\"",
      "description: Draft release notes\n  from the git history.\nname: x",
      'description: "one\n  two"',
      "description: 'one\n\n  two'",
      'description: "one\\\n  two"',
      'a: "tab\\there \\x41 \\U0001F600"',
      "a: |\n  line 1\n    indented\n  line 3\nb: x",
      "a: >\n  one\n    more\n  two\n\n  three\n",
      "a: >\n\n  lead\n",
      "a: |-\n  x\n\n\n",
      "a: |+\n  kept\n\nb: x",
      "a: |2\n    two extra\nb: x",
      "a: |\n  \tcode",
      "tags: [a, \"b, c\", 'd', ]",
      "tags:\n  - one\n  - 'two'\n  # comment\n  - three\nname: x",
      "tags:\n- one\n- two",
      "tags:\n  - a\n    - b",
      "metadata:\n  author: someone\n  version: x1.0\nname: x",
      "a: x # c\nb: 'y' # c\nc: \"z\"   # c",
      "a: http://x.y/z#frag\nb: b:c",
      "a: x\n\n  y",
      // Nested as Claude Code's skills and agents write `hooks:` and `metadata:`.
      "hooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n        - type: command\n          command: ./check.sh\nname: x",
      "metadata:\n  inner:\n    deep: x\n  tags:\n    - a\n    - b: c\n    - - d",
      "a: {b: c, d: [e, {f: g}]}\nb: [x, [y]]",
    ]
    for (const yaml of cases) {
      const mine = parseFrontMatter(`---\n${yaml}\n---\n`)
      expect({ yaml, fields: mine.ok ? mine.fields : mine.reason }).toEqual({ yaml, fields: Bun.YAML.parse(yaml) as never })
    }
  })

  test("a closing '...' line ends the front matter too", () => {
    expect(parseFrontMatter("---\nname: a\n...\nrest")).toEqual({ ok: true, fields: { name: "a" }, body: "rest", notes: [] })
  })
})

describe("parseSkillDocument", () => {
  const doc = (text: string, folder?: string) => parseSkillDocument(text, folder)

  test("name, description and the instructions without the front matter", () => {
    const r = doc("---\nname: my-skill\ndescription: Does things. Use when asked.\n---\n\n\n# My skill\n\nStep 1.\n\n", "my-skill")
    expect(r).toEqual({
      ok: true,
      skill: {
        name: "my-skill",
        description: "Does things. Use when asked.",
        content: "# My skill\n\nStep 1.",
        fields: { name: "my-skill", description: "Does things. Use when asked." },
        warnings: [],
      },
    })
  })

  test("as Claude Code reads a SKILL.md: a name from the folder, a description from the first line, a warning for each", () => {
    const loaded = (text: string, folder?: string) => {
      const r = doc(text, folder)
      if (!r.ok) throw new Error(`unexpected failure: ${r.reason}`)
      return { name: r.skill.name, description: r.skill.description, content: r.skill.content, warnings: r.skill.warnings }
    }
    expect(loaded("---\ndescription: Reads PDFs.\n---\nx", "pdf")).toEqual({ name: "pdf", description: "Reads PDFs.", content: "x", warnings: [] })
    expect(loaded("---\nname: deploy\n---\n\n## Deploy helper\n\nSteps.", "deploy")).toEqual({
      name: "deploy",
      description: "Deploy helper",
      content: "## Deploy helper\n\nSteps.",
      warnings: ["the front matter has no 'description': it is the first line of the instructions, as in Claude Code"],
    })
    expect(loaded("---\nname: x\ndescription: ''\n---\nFirst line.", "x").warnings).toEqual(["'description' is empty: it is the first line of the instructions, as in Claude Code"])
    expect(loaded(`---\nname: x\n---\n${"w".repeat(120)}`, "x").description).toBe(`${"w".repeat(97)}...`)
    expect(loaded("---\nname: My Skill\ndescription: d\n---\nx", "upper")).toMatchObject({
      name: "upper",
      warnings: [expect.stringMatching(/^'My Skill' is not a valid skill name .*; the skill is named after its folder, 'upper', as Claude Code names it$/)],
    })
    expect(loaded("---\nname: [a]\ndescription: d\n---\nx", "folder")).toMatchObject({ name: "folder", warnings: ["'name' must be a string; the skill is named after its folder, 'folder', as Claude Code names it"] })
    expect(loaded("# PDF tools\n\nUse pypdf.\n", "pdf")).toEqual({
      name: "pdf",
      description: "PDF tools",
      content: "# PDF tools\n\nUse pypdf.",
      // One warning says it all: the description and the name follow from there being no front matter.
      warnings: ["there is no front matter (a first line '---', which the Agent Skills format asks for): the skill is named after its folder and described by its first line"],
    })
    expect(loaded('---\nname: q\ndescription: "open\nmodel: x\n---\nThe body.\n', "q")).toEqual({
      name: "q",
      description: "The body.",
      content: "The body.",
      warnings: ["the front matter was not read (line 3: unterminated double-quoted value); the skill loads without it, as in Claude Code"],
    })
    expect(loaded("---\nname: a\ndescription: Use: this\n  and that\n---\nx", "a")).toMatchObject({ description: "Use: this and that", warnings: [expect.stringMatching(/^lines 3-4: the value of 'description' holds ': ' and runs on over several lines unquoted, which YAML does not allow/)] })
    // What cannot be a skill stays invalid, with the reason.
    expect(doc("---\ndescription: d\n---\nx")).toEqual({ ok: false, reason: "the front matter has no 'name'" })
    expect(doc("---\nname: x\n---\n", "x")).toEqual({ ok: false, reason: "the front matter has no 'description', and there are no instructions to take one from" })
    expect(doc("---\ndescription: d\n---\nx", "Under_Score")).toEqual({ ok: false, reason: expect.stringMatching(/^the front matter has no 'name', and the folder's name is no skill name: 'Under_Score' is not a valid skill name/) })
    expect(doc("---\nname: -x\ndescription: d\n---\nx")).toEqual({ ok: false, reason: expect.stringContaining("not a valid skill name") })
    expect(doc(`---\nname: ${"a".repeat(65)}\ndescription: d\n---\nx`)).toEqual({ ok: false, reason: expect.stringContaining("longer than 64") })
    expect(doc("no front matter")).toEqual({ ok: false, reason: expect.stringMatching(/^invalid front matter \(line 1\): /) })
  })

  test("a name that differs from its folder, a long description and an empty body are warnings", () => {
    const r = doc(`---\nname: other\ndescription: ${"d".repeat(1025)}\n---\n`, "folder")
    expect(r.ok && r.skill.warnings).toEqual([
      "the front matter's name 'other' differs from its folder 'folder': the skill is 'folder' (run as /folder, loaded by that name), as Claude Code names it; 'other' is only its display name",
      "the description is longer than 1024 characters",
      "there are no instructions after the front matter",
    ])
  })

  test("the folder names the skill, as in Claude Code; the front matter's other name is a display name; a plugin-root SKILL.md is named by its front matter", () => {
    const named = (text: string, folder: string | undefined, from?: "folder" | "front-matter") => {
      const r = parseSkillDocument(text, folder, from)
      return r.ok ? { name: r.skill.name, displayName: r.skill.displayName, warnings: r.skill.warnings } : r.reason
    }
    expect(named("---\nname: stage-deploy\ndescription: d\n---\nx", "deploy-staging")).toEqual({
      name: "deploy-staging",
      displayName: "stage-deploy",
      warnings: [expect.stringContaining("the skill is 'deploy-staging' (run as /deploy-staging")],
    })
    expect(named("---\nname: same\ndescription: d\n---\nx", "same")).toEqual({ name: "same", displayName: undefined, warnings: [] })
    // A folder whose name is no skill name leaves the front matter's name, said so.
    expect(named("---\nname: tidy\ndescription: d\n---\nx", "Tidy_Up")).toEqual({
      name: "tidy",
      displayName: undefined,
      warnings: [expect.stringMatching(/^the folder's name 'Tidy_Up' is no skill name \(.*\): the skill is named by its front matter, 'tidy'$/)],
    })
    // The one SKILL.md at a plugin's root: the front matter's name, else the folder's, and no warning for the difference.
    expect(named("---\nname: review\ndescription: d\n---\nx", "my-plugin", "front-matter")).toEqual({ name: "review", displayName: undefined, warnings: [] })
    expect(named("---\ndescription: d\n---\nx", "my-plugin", "front-matter")).toEqual({ name: "my-plugin", displayName: undefined, warnings: [] })
  })

  test("the built-in create-skill parses cleanly", () => {
    const text = readFileSync(join(import.meta.dir, "..", "..", "skills", "create-skill", "SKILL.md"), "utf8")
    const r = doc(text, "create-skill")
    expect(r.ok).toBe(true)
    if (!r.ok) return
    expect(r.skill.name).toBe("create-skill")
    expect(r.skill.warnings).toEqual([])
    expect(r.skill.content.startsWith("# Creating a skill\n")).toBe(true)
    expect(r.skill.content).not.toContain("description:\u0020Write")
  })
})
