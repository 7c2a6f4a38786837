import { describeEnd } from "../shell/background-end.ts"
import type { BackgroundShellView } from "../shell/background-types.ts"

/**
 * What the model is told, before the next prompt, of background commands (bash `run_in_background`) that ended
 * while it did not look: each one once, and none whose end a read or a stop already showed it.
 */
export const backgroundNotes = (shells: ReadonlyArray<BackgroundShellView>, told: Set<string>): Array<string> => {
  const notes: Array<string> = []
  for (const shell of shells) {
    if (shell.end === undefined || shell.endSeen || told.has(shell.id)) continue
    told.add(shell.id)
    notes.push(`<system-reminder>\nThe background command ${shell.id} (${shell.command}) ${describeEnd(shell.end)}. Its output: ${shell.outputPath}; bash_output(id="${shell.id}") shows what you have not read.\n</system-reminder>`)
  }
  return notes
}
