import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs"
import { dirname } from "node:path"
import { DEFAULT_IGNORED_DIRS } from "../workspace/default-ignored.ts"
import type { Visit, VisitStore, WalkMatch } from "./mask-walk.ts"
import type { PatternRule } from "./rules.ts"

/**
 * The folders of the last read-rule walk of a project (mask-walk.ts), kept between anvil processes: a one-shot
 * `anvil tool bash` would otherwise list and match every folder of the tree before its command (about 40 ms of CPU
 * in a 20,000-file project) where a stat of each suffices. Unlike the nested-git store this holds verdicts (which
 * entries a rule matched), so it counts only for the same rules, the same project and the same anvil program (its
 * size and times: another version may judge names otherwise); each folder's visit counts only while the folder's
 * stamp is unchanged, and a folder changed too recently to trust is not kept. Anything else (no file, another
 * version, a damaged one) is a walk from scratch. The sandbox keeps it in the project's private state folder and
 * only where the commands it confines cannot write (see policy.ts): a command could otherwise lay down a visit
 * that hides a file.
 */

/** The file's format; another is ignored. */
const VERSION = 1

/** [folder, stamp, entries looked at, subfolder names, [name, rule index] of each match]. */
type Line = readonly [dir: string, stamp: string, entries: number, folders: ReadonlyArray<string>, found: ReadonlyArray<readonly [string, number]>]

/** What the visits were worked out with: the rules in order, the folders skipped, the program. */
const keyOf = (root: string, rules: ReadonlyArray<PatternRule>): string => {
  let program = process.execPath
  try {
    const s = statSync(program)
    program = `${program}:${s.size}:${s.mtimeMs}:${s.ctimeMs}`
  } catch {
    // no program file to tell versions apart by: its path alone
  }
  return JSON.stringify([root, rules.map((r) => [r.pattern, r.level]), DEFAULT_IGNORED_DIRS, program])
}

const child = (dir: string, rel: string) => (dir === "" ? rel : rel.slice(dir.length + 1))
const joined = (dir: string, name: string) => (dir === "" ? name : `${dir}/${name}`)

/** The store in `file` for a walk of `root` with `rules` (the array the walker was given: matches refer to it). */
export const maskWalkStore = (file: string, root: string, rules: ReadonlyArray<PatternRule>): VisitStore => {
  const key = keyOf(root, rules)
  return {
    load: () => {
      try {
        const data = JSON.parse(readFileSync(file, "utf8")) as { version?: number; key?: string; folders?: ReadonlyArray<Line> }
        if (data.version !== VERSION || data.key !== key || !Array.isArray(data.folders)) return undefined
        const visits = new Map<string, Visit>()
        for (const [dir, stamp, entries, folders, found] of data.folders) {
          if (typeof dir !== "string" || typeof stamp !== "string" || !Number.isSafeInteger(entries)) return undefined
          const matches: Array<WalkMatch> = []
          for (const [name, index] of found) {
            const rule = rules[index]
            if (rule === undefined) return undefined
            matches.push({ rel: joined(dir, name), rule })
          }
          visits.set(dir, { stamp, entries, folders: folders.map((name: string) => joined(dir, name)), found: matches })
        }
        return visits
      } catch {
        return undefined // none yet, or damaged: the walk lists every folder
      }
    },
    save: (visits) => {
      const folders: Array<Line> = []
      // A folder too recent to trust is left out: the next walk lists it.
      for (const [dir, v] of visits) {
        if (v.stamp !== undefined) folders.push([dir, v.stamp, v.entries, v.folders.map((f) => child(dir, f)), v.found.map((m) => [child(dir, m.rel), rules.indexOf(m.rule)])])
      }
      const tmp = `${file}.${process.pid}.tmp`
      try {
        mkdirSync(dirname(file), { recursive: true, mode: 0o700 })
        writeFileSync(tmp, JSON.stringify({ version: VERSION, key, folders }), { mode: 0o600 })
        renameSync(tmp, file)
      } catch {
        rmSync(tmp, { force: true })
      }
    },
  }
}
