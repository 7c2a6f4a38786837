import type * as Ffi from "bun:ffi"

/**
 * The C library's functions `symbols` names, through bun:ffi; undefined where
 * no libc could be opened (an unusual platform), so callers go on without.
 * Call it when a function is first needed, not at start: bun:ffi costs about
 * a millisecond of CPU.
 */
export const openLibc = <S extends Record<string, Ffi.FFIFunction>>(symbols: (ffi: typeof Ffi.FFIType) => S): Ffi.Library<S>["symbols"] | undefined => {
  const { dlopen, FFIType } = process.getBuiltinModule("bun:ffi") as typeof Ffi
  for (const name of ["libc.so.6", "libc.so", "libc.dylib", "/usr/lib/libSystem.B.dylib"]) {
    try {
      return dlopen(name, symbols(FFIType)).symbols
    } catch {
      // try the next name
    }
  }
  return undefined
}
