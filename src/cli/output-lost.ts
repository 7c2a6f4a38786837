/**
 * The line said when standard output could not take the answer (a full disk, a file over its size limit), the same
 * for `--version` and `--help` (main.ts, before the CLI loads) and for every command (index.ts).
 */
export const outputLostMessage = (code: string): string =>
  `anvil: standard output could not be written (${code}${code === "ENOSPC" ? ": no space left on the device" : ""}); what the command printed is lost.\n`
