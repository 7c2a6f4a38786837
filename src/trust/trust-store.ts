import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs"
import { dirname } from "node:path"
import { Schema } from "effect"

/** One trusted subject of one project, as stored. */
export const TrustRecord = Schema.Struct({
  hash: Schema.String,
  /** Metadata fingerprint matching `hash` (see stampContent); absent for text subjects. */
  stamp: Schema.optional(Schema.String),
  /** ISO time the user trusted it. */
  trusted_at: Schema.String,
})
export type TrustRecord = typeof TrustRecord.Type

/**
 * trust.json in the user's config folder: for each project (its real root
 * path), the trusted subjects by key `<kind>:<name>`.
 */
export const TrustFile = Schema.Struct({
  version: Schema.Literal(1),
  projects: Schema.Record(Schema.String, Schema.Record(Schema.String, TrustRecord)),
})
export type TrustFile = typeof TrustFile.Type

export const emptyTrustFile = (): TrustFile => ({ version: 1, projects: {} })

const decode = Schema.decodeUnknownSync(TrustFile)

/** Reads the store; a missing file is empty. Throws with a message naming the file when it is damaged. */
export const readTrustFile = (file: string): TrustFile => {
  let text: string
  try {
    text = readFileSync(file, "utf8")
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return emptyTrustFile()
    throw e
  }
  try {
    return decode(JSON.parse(text))
  } catch (e) {
    throw new Error(`${file} is damaged (${(e as Error).message.split("\n")[0]}); remove it and trust again`)
  }
}

/** Writes the store by temp file and rename (never half a file), readable by the user only. */
export const writeTrustFile = (file: string, data: TrustFile): void => {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 })
  const temp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`
  writeFileSync(temp, `${JSON.stringify(data, null, 2)}\n`, { mode: 0o600 })
  renameSync(temp, file)
}
