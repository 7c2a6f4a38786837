/** Names that are not UTF-8, kept with their bytes escaped: one module for every folder (workspace/path-bytes.ts). */
export { decodePath, encodePath, escapedByte, isUtf8 } from "../workspace/path-bytes.ts"
