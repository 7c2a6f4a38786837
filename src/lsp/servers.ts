import { accessSync, constants, readFileSync, realpathSync } from "node:fs"
import { delimiter, extname, isAbsolute, join, sep } from "node:path"
import { LSP_SETTING_KEYS } from "../config/sections/lsp.ts"
import { isRecord } from "../protocol/is-record.ts"

/** A program a server needs to report some diagnostics (bash-language-server → shellcheck). */
export interface ServerHelper {
  /** What it is, for messages: "shellcheck". */
  readonly name: string
  /** Whether it can be used, given the server's environment and resolved program path. */
  readonly present: (env: Readonly<Record<string, string>>, program: string) => boolean
  /** The command that installs it. */
  readonly install: string
  /** What is lost without it. */
  readonly lost: string
}

/** How to start one language server. */
export interface ServerSpec {
  /** The name shown to the model and in errors: "pylsp", "bash-language-server". */
  readonly name: string
  readonly command: string
  readonly args: ReadonlyArray<string>
  readonly env: Readonly<Record<string, string>>
  readonly initializationOptions?: unknown
  readonly helpers: ReadonlyArray<ServerHelper>
}

/** A language: which files it covers and the servers that can serve it, in order of preference. */
export interface LanguageSpec {
  /** The key in anvil.json's `lsp` section: "python", "shell". */
  readonly id: string
  /** The LSP languageId sent with didOpen. */
  readonly languageId: string
  /** File name endings, with the dot: ".py". */
  readonly extensions: ReadonlyArray<string>
  /** Interpreter names a `#!` line may name for files without an extension. */
  readonly shebangs: ReadonlyArray<string>
  /** Files whose folder becomes the server's root (nearest ancestor inside the project); else the project root. */
  readonly rootMarkers: ReadonlyArray<string>
  /** Candidates, first found on PATH wins. */
  readonly servers: ReadonlyArray<ServerSpec>
  /** How to install a server, for the degraded answer. */
  readonly install: string
  readonly disabled: boolean
  /** Set when the project's anvil.json sets this language's server and the user has not trusted it: nothing is started. */
  readonly untrusted?: string
}

/**
 * Finds a program on `env.PATH`, leaving out folders inside the project `root`
 * and relative ones (`node_modules/.bin`, `.`): a server runs outside the
 * command sandbox, as soon as a file is edited, so a program a repository
 * ships or a confined command planted there must never be picked up by its
 * name. A server inside the project is named by its path in the `lsp` settings.
 */
export const findProgram = (command: string, env: Readonly<Record<string, string | undefined>>, root: string): string | undefined => {
  if (command.includes("/")) return executable(command) ? command : undefined
  const realRoot = realOrSelf(root)
  const dirs = (env.PATH ?? "").split(delimiter).filter((d) => isAbsolute(d) && !within(realOrSelf(d), realRoot))
  for (const dir of dirs) {
    const candidate = join(dir, command)
    if (executable(candidate)) return candidate
  }
  return undefined
}

const realOrSelf = (p: string): string => {
  try {
    return realpathSync(p)
  } catch {
    return p
  }
}

const within = (p: string, dir: string): boolean => p === dir || p.startsWith(dir.endsWith(sep) ? dir : dir + sep)

const executable = (file: string): boolean => {
  try {
    accessSync(file, constants.X_OK)
    return true
  } catch {
    return false
  }
}

/** pylsp reports undefined names only through pyflakes, which must be importable by the Python that runs pylsp. */
const pyflakesHelper: ServerHelper = {
  name: "pyflakes",
  install: "apt-get install python3-pyflakes (or: pip install pyflakes)",
  lost: "errors such as undefined names",
  present: (env, program) => {
    let python = "python3"
    try {
      const first = readFileSync(program, "utf8").slice(0, 200).split("\n")[0] ?? ""
      const m = /^#!\s*(\S+)(?:\s+(\S+))?/.exec(first)
      if (m) python = m[1]!.endsWith("/env") && m[2] ? m[2] : m[1]!
    } catch {
      // not readable: try python3
    }
    const run = Bun.spawnSync([python, "-c", "import pyflakes"], { env: { ...env }, stdout: "ignore", stderr: "ignore" })
    return run.exitCode === 0
  },
}

const shellcheckHelper: ServerHelper = {
  name: "shellcheck",
  install: "apt-get install shellcheck (or: brew install shellcheck)",
  lost: "all diagnostics (bash-language-server reports problems only through shellcheck)",
  present: (env) => findProgram(env.SHELLCHECK_PATH || "shellcheck", env, "/nonexistent") !== undefined,
}

const server = (name: string, command: string, args: ReadonlyArray<string>, helpers: ReadonlyArray<ServerHelper> = []): ServerSpec => ({
  name,
  command,
  args,
  env: {},
  helpers,
})

/** The built-in languages: shell and Python, tried in the order given. */
export const DEFAULT_LANGUAGES: ReadonlyArray<LanguageSpec> = [
  {
    id: "shell",
    languageId: "shellscript",
    extensions: [".sh", ".bash"],
    shebangs: ["sh", "bash", "dash", "ksh"],
    rootMarkers: [],
    servers: [server("bash-language-server", "bash-language-server", ["start"], [shellcheckHelper])],
    install: "npm install -g bash-language-server (and apt-get install shellcheck)",
    disabled: false,
  },
  {
    id: "python",
    languageId: "python",
    extensions: [".py", ".pyi"],
    shebangs: ["python", "python3"],
    rootMarkers: ["pyproject.toml", "setup.py", "setup.cfg", "requirements.txt"],
    servers: [
      server("pylsp", "pylsp", [], [pyflakesHelper]),
      server("pyright", "pyright-langserver", ["--stdio"]),
      server("basedpyright", "basedpyright-langserver", ["--stdio"]),
    ],
    install: "apt-get install python3-pylsp python3-pyflakes (or: pip install 'python-lsp-server[pyflakes]', or: npm install -g pyright)",
    disabled: false,
  },
]

const strings = (v: unknown): ReadonlyArray<string> | undefined =>
  Array.isArray(v) && v.every((e) => typeof e === "string") ? v : undefined


/**
 * The languages after anvil.json's `lsp` section: `lsp.<language>` overrides a
 * built-in one field by field, or adds a language (then `command` and
 * `extensions` are required); `disabled: true` turns one off. A string
 * `command` takes `args`; an array `command` is the program and its arguments.
 * Returns the problems found, so a broken entry is reported, not ignored.
 */
export const languagesFromConfig = (
  section: Readonly<Record<string, unknown>>,
  untrusted: Readonly<Record<string, string>> = {},
): { readonly languages: ReadonlyArray<LanguageSpec>; readonly problems: ReadonlyArray<string> } => {
  const problems: Array<string> = []
  const languages = new Map(DEFAULT_LANGUAGES.map((l) => [l.id, l]))
  for (const [id, notice] of Object.entries(untrusted)) {
    // The project's command (args, env, options) was left out; its other fields still say which files are this language's.
    const value = isRecord(section[id]) ? section[id] : {}
    const base = languages.get(id)
    languages.set(id, {
      id,
      languageId: typeof value.languageId === "string" ? value.languageId : (base?.languageId ?? id),
      extensions: strings(value.extensions)?.map((e) => (e.startsWith(".") ? e : `.${e}`)) ?? base?.extensions ?? [],
      shebangs: strings(value.shebangs) ?? base?.shebangs ?? [],
      rootMarkers: [],
      servers: [],
      install: "",
      disabled: value.disabled === true || value.enabled === false,
      untrusted: notice,
    })
  }
  for (const [id, value] of Object.entries(section)) {
    if ((LSP_SETTING_KEYS as ReadonlyArray<string>).includes(id) || untrusted[id] !== undefined) continue
    if (!isRecord(value)) {
      problems.push(`lsp.${id} must be an object ({ "command": …, "extensions": […] }) or one of the settings ${LSP_SETTING_KEYS.join(", ")}.`)
      continue
    }
    const base = languages.get(id)
    const disabled = value.disabled === true || value.enabled === false
    const commandValue = value.command
    const commandParts = typeof commandValue === "string" ? [commandValue, ...(strings(value.args) ?? [])] : strings(commandValue)
    if (commandValue !== undefined && (commandParts === undefined || commandParts.length === 0)) {
      problems.push(`lsp.${id}.command must be a program name or an array of program and arguments.`)
      continue
    }
    const extensions = strings(value.extensions)?.map((e) => (e.startsWith(".") ? e : `.${e}`))
    if (!base && !disabled && (commandParts === undefined || extensions === undefined)) {
      problems.push(`lsp.${id} adds a language, so it needs "command" and "extensions".`)
      continue
    }
    const env = isRecord(value.env)
      ? Object.fromEntries(Object.entries(value.env).filter((e): e is [string, string] => typeof e[1] === "string"))
      : {}
    const servers: ReadonlyArray<ServerSpec> = commandParts
      ? [
          {
            name:
              typeof value.name === "string"
                ? value.name
                : (DEFAULT_LANGUAGES.flatMap((l) => l.servers).find((s) => s.command === commandParts[0])?.name ?? commandParts[0]!.split("/").pop()!),
            command: commandParts[0]!,
            args: commandParts.slice(1),
            env,
            ...("initializationOptions" in value ? { initializationOptions: value.initializationOptions } : {}),
            helpers: [],
          },
        ]
      : (base?.servers ?? []).map((s) => ({
          ...s,
          env: { ...s.env, ...env },
          ...("initializationOptions" in value ? { initializationOptions: value.initializationOptions } : {}),
        }))
    languages.set(id, {
      id,
      languageId: typeof value.languageId === "string" ? value.languageId : (base?.languageId ?? id),
      extensions: extensions ?? base?.extensions ?? [],
      shebangs: strings(value.shebangs) ?? base?.shebangs ?? [],
      rootMarkers: strings(value.rootMarkers) ?? base?.rootMarkers ?? [],
      servers,
      install: typeof value.install === "string" ? value.install : commandParts ? `install ${commandParts[0]} and put it on PATH` : (base?.install ?? ""),
      disabled,
    })
  }
  return { languages: [...languages.values()], problems }
}

/** The language of a file: by its extension, else by the interpreter its `#!` line names. */
export const languageFor = (languages: ReadonlyArray<LanguageSpec>, file: string, firstLine: string | undefined): LanguageSpec | undefined => {
  const ext = extname(file).toLowerCase()
  if (ext !== "") {
    const byExt = languages.find((l) => l.extensions.some((e) => e.toLowerCase() === ext))
    if (byExt) return byExt
  }
  const m = firstLine !== undefined ? /^#!\s*(\S+)(?:\s+(\S+))?/.exec(firstLine) : null
  if (!m) return undefined
  const interpreter = (m[1]!.endsWith("/env") && m[2] ? m[2] : m[1]!).split("/").pop()!.replace(/[\d.]+$/, "")
  return languages.find((l) => l.shebangs.some((s) => s.replace(/[\d.]+$/, "") === interpreter))
}
