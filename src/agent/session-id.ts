const pad = (n: number, w = 2) => String(n).padStart(w, "0")

/** A sortable session id: `YYYYMMDD-HHMMSS-xxxx` (UTC). Apart from the session files, for the results of runs that never opened one. */
export const newSessionId = (ms: number, random: () => number = Math.random): string => {
  const d = new Date(ms)
  const stamp = `${d.getUTCFullYear()}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}-${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}${pad(d.getUTCSeconds())}`
  const suffix = Math.floor(random() * 0xffff)
    .toString(16)
    .padStart(4, "0")
  return `${stamp}-${suffix}`
}
