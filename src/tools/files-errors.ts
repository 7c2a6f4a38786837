import { hint, shellQuote, type RetrievalHint } from "../protocol/hint.ts"
import { invalidParam, toolError, type ToolError } from "../protocol/tool-error.ts"
import { FILES_ERRORS, type FilesError, type PathNotFound } from "../files/files-error.ts"
import { formatBytes } from "../files/read-window.ts"
import { translateDomainErrors } from "./domain-errors.ts"
import { counted } from "../protocol/plural.ts"
import { inTheWayNote } from "../workspace/file-in-the-way.ts"

/** The folder holding a path, for a suggestion to list it ("/" for a file at the root of an absolute path). */
const parentOf = (p: string) => (p.includes("/") ? p.slice(0, p.lastIndexOf("/")) || "/" : ".")

const notFound = (e: PathNotFound): ToolError => {
  const file = e.kind === "file"
  const parent = file ? (e.shown.includes("/") ? e.shown.slice(0, e.shown.lastIndexOf("/")) : ".") : parentOf(e.shown)
  // The nearest folder there is: with a file in the path's way, the one holding it (its listing shows what it is).
  const around = e.folder ?? parent
  const hints: Array<RetrievalHint> = [...e.suggestions.slice(0, 1).map((s) => hint(file ? "Read" : "LS", "high", { path: s })), hint("LS", "medium", { path: around })]
  return toolError("NOT_FOUND", `${file ? "File" : "Directory"} not found: ${e.shown}${e.why}${inTheWayNote(e.inTheWay)}`, {
    hints,
    context: { path_resolved: e.shown },
    ...(e.suggestions.length > 0 ? { details: `Did you mean:\n${e.suggestions.map((s) => `- ${s}`).join("\n")}` } : {}),
  })
}

/** The files domain's errors (reading a file's lines, listing a folder) as envelope errors: the one place for read and list. */
export const filesToolError = (e: FilesError): ToolError => {
  switch (e._tag) {
    case "PathNotFound":
      return notFound(e)
    case "IsAFolder":
      return toolError("IS_DIRECTORY", `${e.shown} is a directory, not a file. Use LS to list it.`, {
        hints: [hint("LS", "high", { path: e.shown })],
        context: { path_resolved: e.shown },
      })
    case "NotAFolder":
      return invalidParam("path", `${e.shown} is a file, not a directory. Use Read to see its contents.`, [
        hint("Read", "high", { path: e.shown }),
        hint("LS", "medium", { path: parentOf(e.shown) }),
      ])
    case "NotARegularFile":
      return invalidParam("path", `${e.shown} is not a regular file (${e.type}); only regular files can be read.`)
    case "BinaryFile":
      return toolError("BINARY_FILE", `${e.shown} looks like a binary file (${formatBytes(e.size)}); it cannot be read as text.`, {
        hints: [hint("Bash", "low", { command: `file ${shellQuote(e.shown)}` })],
        context: { path_resolved: e.shown },
      })
    case "Utf16TooLarge":
      return toolError(
        "EXECUTION_ERROR",
        `${e.shown} is UTF-16 and ${formatBytes(e.size)}; UTF-16 files over ${formatBytes(e.limit)} are not read. Convert it (iconv -f UTF-16 -t UTF-8) first.`,
      )
    case "LinesPastEnd":
      return invalidParam("offset", `offset ${e.offset} is past the end of ${e.shown}, which has ${counted(e.total, "line")}.`, [
        hint("Read", "high", { path: e.shown, offset: e.lastWindow }),
      ])
    case "EntriesPastEnd":
      return invalidParam("offset", `offset ${e.offset} is past the end of the listing of ${e.shown}, which has ${counted(e.total, "entry", "entries")}.`, [
        hint("LS", "high", { path: e.shown, offset: 0, limit: e.limit }),
      ])
    case "IgnoreGlobInvalid":
      return invalidParam(`ignore.${e.index}`, `'${e.pattern}': ${e.message}`)
  }
}

/** A read or a listing with the files domain's errors translated at the boundary (the workspace's pass through). */
export const withFilesErrors = translateDomainErrors<FilesError>(FILES_ERRORS, (e) => filesToolError(e))
