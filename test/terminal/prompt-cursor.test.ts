import { describe, expect, test } from "bun:test"
import * as readline from "node:readline"
import { PassThrough, Writable } from "node:stream"
import { incrementalCursorPos } from "../../src/terminal/prompt-cursor.ts"

/** A readline over a fake terminal `columns` wide, as the chat makes it; `typed` feeds it keys one at a time. */
const terminal = (columns: number) => {
  const input = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => undefined })
  let screen = ""
  const output = Object.assign(new Writable({ write: (chunk, _enc, done) => void ((screen += String(chunk)), done()) }), { isTTY: true, columns, rows: 40 })
  const rl = readline.createInterface({ input, output, terminal: true, historySize: 0 } as readline.ReadLineOptions)
  rl.setPrompt("\x1b[1m\x1b[36m› \x1b[39m\x1b[22m")
  rl.prompt()
  return { rl, type: (keys: string) => void input.write(keys), screen: () => screen }
}

describe("the chat's prompt: the cursor position is worked out from what was typed since, not the whole line", () => {
  test("typing 2,000 characters at the end measures the line once, and the positions equal readline's own", () => {
    const plain = terminal(80)
    const fast = terminal(80)
    const { measured } = incrementalCursorPos(fast.rl)
    for (let i = 0; i < 2000; i++) {
      const key = String.fromCharCode(97 + (i % 26))
      plain.type(key)
      fast.type(key)
      // Asked now and then: each of readline's own answers costs the whole line.
      if (i % 37 === 0) expect(fast.rl.getCursorPos()).toEqual(plain.rl.getCursorPos())
    }
    expect(fast.rl.getCursorPos()).toEqual(plain.rl.getCursorPos())
    expect(fast.rl.line).toBe(plain.rl.line)
    // What is echoed, refreshes at each new row included, is the same byte for byte.
    expect(fast.screen()).toBe(plain.screen())
    expect(measured()).toBe(1)
    plain.rl.close()
    fast.rl.close()
  })

  test("wide characters, a tab, a line edited in the middle, a new width: measured in full, still readline's answer", () => {
    const plain = terminal(20)
    const fast = terminal(20)
    const { measured } = incrementalCursorPos(fast.rl)
    const keys = [..."abcdefghijklmnopq", "界", "界", "\t", ..."xyz", "\x1b[D", "\x1b[D", "M", "\x1b[F", ..."rs", "\x7f", "\x7f"]
    for (const key of keys) {
      plain.type(key)
      fast.type(key)
      expect(fast.rl.getCursorPos()).toEqual(plain.rl.getCursorPos())
    }
    const widthBefore = measured()
    // A window made narrower: the next answer is measured again at the new width.
    for (const t of [plain, fast]) (t.rl as unknown as { output: { columns: number } }).output.columns = 7
    fast.type("u")
    plain.type("u")
    expect(fast.rl.getCursorPos()).toEqual(plain.rl.getCursorPos())
    expect(measured()).toBeGreaterThan(widthBefore)
    expect(fast.rl.line).toBe(plain.rl.line)
    expect(fast.screen()).toBe(plain.screen())
    plain.rl.close()
    fast.rl.close()
  })
})
