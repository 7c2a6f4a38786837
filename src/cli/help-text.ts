/** The top-level help. Plain text with no imports, so `anvil --help` loads nothing else. */
export const GLOBAL_HELP = `anvil — a coding agent in one executable

Usage:
  anvil [chat] [options]                          interactive chat in a terminal (see 'anvil chat --help')
  anvil run [options] "<prompt>"                  one scripted turn: --format text|json|stream-json,
                                                  --input-format stream-json, --model P/M, --yes, --allow RULE,
                                                  --trust-plugins, --continue, --session ID, --max-steps N,
                                                  --timeout SECONDS (see 'anvil run --help')
  anvil config [--json] | schema                  the effective configuration and where each value came
                                                  from; 'schema' prints anvil.json's JSON Schema
  anvil mcp [list|tools|resources|prompts|trust]  MCP servers: status, tools, trust (see 'anvil mcp --help')
  anvil plugins [--json]                          list the plugins (user, project) with status, tools, hooks;
                                                  check PATH, trust [NAME], untrust NAME, init NAME
  anvil sandbox [--json] [--sandbox MODE]         what the command sandbox can do here and the rules in force
  anvil sessions [--json]                         list this project's sessions
  anvil sessions prune [--older-than 7d]          remove old sessions and ones that never finished a turn
  anvil skills [--json]                           list the skills (built-in, project, user) and invalid ones
  anvil tool <name> [JSON | - | --key value ...]   run one tool and print its envelope
  anvil tools [--json]                            list the tools with their parameter schemas
  anvil self-check                                check the executable: embedded skills and ripgrep work
  anvil help [COMMAND]                            this help, or a command's (same as --help)

Options (anywhere on the command line):
  --root DIR     the project root (default: nearest folder with .git or anvil.json)
  --strict       anvil.json's warnings (unknown keys, wrong types) are errors (exit code 2)
  --help, -h     help for anvil or for a command
  --version, -V  print the version

Options of 'anvil tool':
  --text         print what the model would read instead of the envelope JSON
  --meta         print {"envelope": …, "execution_meta": …}
  -              read the JSON parameters from standard input
  --sandbox MODE the command sandbox for bash: workspace-write (default), read-only, off, require

Model: --model provider/model, or ANVIL_MODEL, or "model" in anvil.json, or the environment:
  ANTHROPIC_API_KEY, OPENAI_API_KEY (+ OPENAI_BASE_URL for any OpenAI-compatible server),
  LLM_MODEL_ID + LLM_BASE_URL (+ LLM_API_KEY). Local servers: ollama/…, lmstudio/…, vllm/….

Exit codes: 0 success (or a partial tool result), 1 the tool or the model failed, 2 usage error (or a
  configuration warning with --strict), 3 configuration error; 'anvil run' adds 4 denied, 5 verify failed,
  6 step limit, 7 repeated failure, 130/143/129 interrupted (see 'anvil run --help'); 'anvil plugins check'
  exits 4 when the plugin loads with warnings.
`

/** \`anvil tool --help\` without a tool's name: how a call is written (a tool's own help comes with its name). */
export const TOOL_HELP = `Usage: anvil tool NAME [JSON | - | --key value ...] [--text] [--meta] [--sandbox MODE]
       anvil tool NAME --help     the tool's description and its parameters (JSON Schema)

Runs one tool through the same pipeline the agent uses (parameter checks, permission rules, output limits)
and prints its envelope. Parameters: one JSON object, '-' to read it from standard input, or --key value
flags (a flag's value is read as JSON unless the parameter is a string). 'anvil tools' lists the tools.

  --text         print what the model would read instead of the envelope JSON
  --meta         print {"envelope": …, "execution_meta": …}
  --sandbox MODE the command sandbox for bash: workspace-write (default), read-only, off, require

Exit codes: 0 success or partial, 1 the tool failed (the envelope says why), 2 usage error, 3 configuration error.
`
