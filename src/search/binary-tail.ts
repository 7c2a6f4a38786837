/**
 * A file whose first block is text but which holds a NUL byte further on is
 * searched up to the line before that byte, as ripgrep does; the answer says
 * so, as ripgrep's warning does.
 */
export const binaryTailWarning = (path: string, offset: number): string =>
  `${path}: searched up to a NUL byte at offset ${offset} (binary data); matches after it are not shown`
