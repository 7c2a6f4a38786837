/** The top-level help. Plain text with no imports, so `anvil --help` loads nothing else. */
export const GLOBAL_HELP = `anvil — a coding agent in one executable

Usage:
  anvil tool <name> [JSON | - | --key value ...]   run one tool and print its envelope
  anvil tools [--json]                            list the tools with their parameter schemas

Options (anywhere on the command line):
  --root DIR     the project root (default: nearest folder with .git or anvil.json)
  --help, -h     help for anvil or for a command
  --version, -V  print the version

Options of 'anvil tool':
  --text         print what the model would read instead of the envelope JSON
  --meta         print {"envelope": …, "execution_meta": …}
  -              read the JSON parameters from standard input

Exit codes: 0 success or partial, 1 the tool returned an error, 2 usage error.
`
