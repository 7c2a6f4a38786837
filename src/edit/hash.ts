import { createHash } from "node:crypto"

/** sha256 of bytes as lowercase hex: the file fingerprint in write/edit results and the read ledger. */
export const sha256Hex = (bytes: Uint8Array): string => createHash("sha256").update(bytes).digest("hex")
