/**
 * How deep objects and arrays may nest in a settings file. The JSONC parser, the value builder and the
 * settings' Schema all recurse, so a file nested 20,000 deep ran the stack out and every command crashed;
 * real settings nest a handful of levels.
 */
export const MAX_JSON_DEPTH = 100

/**
 * Whether the text holds more than MAX_JSON_DEPTH opening brackets, the only way it can nest past the
 * limit. Most files answer no here, so the scan that counts real depth (jsonc.ts) is not even loaded.
 */
export const mayNestTooDeep = (text: string): boolean => {
  let brackets = 0
  for (const open of ["{", "["]) {
    for (let i = text.indexOf(open); i !== -1; i = text.indexOf(open, i + 1)) if (++brackets > MAX_JSON_DEPTH) return true
  }
  return false
}
