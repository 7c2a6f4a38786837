/**
 * Rust regex's Unicode property names (`\pL`, `\p{Greek}`, `\p{sc=Greek}`, loose spelling and aliases) resolved to the
 * property escape JavaScript's RegExp knows, or to nothing when JavaScript has none.
 */

const GENERAL_CATEGORY_ALIASES: Record<string, string> = {
  letter: "L", casedletter: "LC", uppercaseletter: "Lu", lowercaseletter: "Ll", titlecaseletter: "Lt", modifierletter: "Lm",
  otherletter: "Lo", mark: "M", combiningmark: "M", nonspacingmark: "Mn", spacingmark: "Mc", enclosingmark: "Me", number: "N",
  decimalnumber: "Nd", digit: "Nd", letternumber: "Nl", othernumber: "No", punctuation: "P", punct: "P", connectorpunctuation: "Pc",
  dashpunctuation: "Pd", openpunctuation: "Ps", closepunctuation: "Pe", initialpunctuation: "Pi", finalpunctuation: "Pf",
  otherpunctuation: "Po", symbol: "S", mathsymbol: "Sm", currencysymbol: "Sc", modifiersymbol: "Sk", othersymbol: "So",
  separator: "Z", spaceseparator: "Zs", lineseparator: "Zl", paragraphseparator: "Zp", other: "C", control: "Cc", cntrl: "Cc",
  format: "Cf", surrogate: "Cs", privateuse: "Co", unassigned: "Cn",
}

const BINARY_ALIASES: Record<string, string> = {
  any: "Any", ascii: "ASCII", assigned: "Assigned", alphabetic: "Alphabetic", alpha: "Alphabetic", whitespace: "White_Space",
  space: "White_Space", wspace: "White_Space", uppercase: "Uppercase", upper: "Uppercase", lowercase: "Lowercase", lower: "Lowercase",
  emoji: "Emoji", math: "Math", ideographic: "Ideographic", ideo: "Ideographic", hexdigit: "Hex_Digit", xdigit: "Hex_Digit",
  joincontrol: "Join_Control", dash: "Dash", diacritic: "Diacritic", extender: "Extender",
}

const normalizeName = (s: string) => s.toLowerCase().replace(/[\s_-]/g, "")
const titleCase = (s: string) =>
  s
    .split(/[\s_-]+/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1).toLowerCase())
    .join("_")

const validProperty = (body: string): string | undefined => {
  try {
    new RegExp(`\\p{${body}}`, "v")
    return `\\p{${body}}`
  } catch {
    return undefined
  }
}

/** A JavaScript property escape for a Rust `\p{…}` body, or undefined when JavaScript has none. */
/** `table[key]` for the table's own names only: `\p{constructor}` names no property, not Object's constructor. */
const own = (table: Readonly<Record<string, string>>, key: string): string | undefined => (Object.hasOwn(table, key) ? table[key] : undefined)

export const resolveProperty = (key: string | undefined, value: string): string | undefined => {
  const v = normalizeName(value)
  const candidates: Array<string> = []
  const k = key === undefined ? undefined : normalizeName(key)
  if (k === undefined) {
    const gc = own(GENERAL_CATEGORY_ALIASES, v)
    if (gc) candidates.push(gc)
    const binary = own(BINARY_ALIASES, v)
    if (binary) candidates.push(binary)
    candidates.push(value, value.length <= 2 ? value[0]!.toUpperCase() + value.slice(1).toLowerCase() : titleCase(value))
    candidates.push(`Script=${value}`, `Script=${titleCase(value)}`)
  } else if (k === "gc" || k === "generalcategory") {
    candidates.push(`General_Category=${own(GENERAL_CATEGORY_ALIASES, v) ?? value}`)
  } else if (k === "sc" || k === "script") {
    candidates.push(`Script=${value}`, `Script=${titleCase(value)}`)
  } else if (k === "scx" || k === "scriptextensions") {
    candidates.push(`Script_Extensions=${value}`, `Script_Extensions=${titleCase(value)}`)
  } else {
    return undefined
  }
  for (const c of candidates) {
    const ok = validProperty(c)
    if (ok) return ok
  }
  return undefined
}
