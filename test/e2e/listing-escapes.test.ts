import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { Chalk } from "chalk"
import { anvilBinary } from "../support/binary.ts"
import { project } from "../support/harness.ts"
import { tmuxSession } from "../support/tmux.ts"
import { visibleKeepingColours } from "../../src/terminal/visible-text.ts"

// What anvil's listings and notices quote from a repository (a skill's description, an anvil.json key) reaches a
// terminal shown, never acted on: no screen cleared, no title set, no text concealed or coloured like the background.
setDefaultTimeout(120_000)

const { available, tmux, waitFor, kill } = tmuxSession(`anvil-listing-${process.pid}`, "listing")
afterAll(() => kill())

const quoted = (args: ReadonlyArray<string>) => args.map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(" ")

describe("listings and notices on a terminal", () => {
  test("anvil's own colours pass; any other SGR (conceal, black, backgrounds, 256/RGB colours, reset, several parameters) is shown", () => {
    const c = new Chalk({ level: 1 })
    const own = [c.bold("b"), c.dim("d"), c.italic("i"), c.underline("u"), c.red("r"), c.green("g"), c.yellow("y"), c.cyan("c"), c.magenta("m"), c.blue("l"), c.gray("x"), c.bold.underline("h")].join(" ")
    expect(visibleKeepingColours(own)).toBe(own)
    expect(visibleKeepingColours("a\x1b[8mhidden\x1b[28m")).toBe("a␛[8mhidden␛[28m")
    expect(visibleKeepingColours("\x1b[30mblack\x1b[37mwhite\x1b[40m\x1b[107m")).toBe("␛[30mblack␛[37mwhite␛[40m␛[107m")
    expect(visibleKeepingColours("\x1b[38;5;0mx\x1b[38;2;0;0;0my\x1b[0m\x1b[m\x1b[1;8mz")).toBe("␛[38;5;0mx␛[38;2;0;0;0my␛[0m␛[m␛[1;8mz")
    // Around anvil's own colours, the rest is still shown.
    expect(visibleKeepingColours(`${c.yellow("warning:")} key '\x1b[8mk'`)).toBe(`${c.yellow("warning:")} key '␛[8mk'`)
  })

  test.skipIf(!available)("through the binary: anvil skills on a terminal shows a skill's escapes; piped and --json output keep their bytes; a notice on stderr shows conceal and black-on-black", async () => {
    const description = "hello \x1b]0;pwned-title\x07 \x1b[2J\x1b[H cleared \x1b[8mconcealed\x1b[0m"
    const root = project({
      ".claude/skills/odd/SKILL.md": `---\nname: odd\ndescription: ${JSON.stringify(description)}\n---\nbody\n`,
      "anvil.json": '{"key\\u001b[8mconcealed\\u001b[30;40mblack\\u001b[0m": 1}',
    })
    const anvil = quoted(["env", "-i", `PATH=${process.env.PATH}`, `HOME=${root}`, "TERM=xterm-256color", anvilBinary()])
    const script = `echo MARK-BEFORE; ${anvil} skills; ${anvil} skills --json | grep concealed; ${anvil} config >/dev/null; echo "[exited $?]"; sleep 60`
    tmux("new-session", "-d", "-s", "listing", "-x", "250", "-y", "60", "-c", root, script)
    const pane = await waitFor("[exited")
    // The clear-screen did not wipe what came before; the description and the key are shown as written.
    expect(pane).toContain("MARK-BEFORE")
    expect(pane).toContain("odd           project  hello ␛]0;pwned-title␇ ␛[2J␛[H cleared ␛[8mconcealed␛[0m")
    expect(pane).toContain("unknown key 'key␛[8mconcealed␛[30;40mblack␛[0m'")
    // JSON escapes them itself: its bytes are the same on a terminal as in a pipe.
    expect(pane).toContain('"description": "hello \\u001b]0;pwned-title\\u0007 \\u001b[2J\\u001b[H cleared \\u001b[8mconcealed\\u001b[0m"')
    const piped = Bun.spawnSync([anvilBinary(), "config"], { cwd: root, env: { PATH: process.env.PATH, HOME: root }, stdout: "pipe", stderr: "pipe" })
    expect(piped.stderr.toString()).toContain("unknown key 'key\x1b[8mconcealed\x1b[30;40mblack\x1b[0m'")
    const listed = Bun.spawnSync([anvilBinary(), "skills"], { cwd: root, env: { PATH: process.env.PATH, HOME: root }, stdout: "pipe", stderr: "pipe" })
    expect(listed.stdout.toString()).toContain(`odd           project  ${description}`)
  })
})
