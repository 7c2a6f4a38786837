/** `anvil run --help`. */
export const RUN_HELP = `Usage: anvil run [options] "<prompt>"      (or the prompt on standard input)

Runs one agent turn and exits when it ends. Piped input and a prompt together:
the prompt comes first, the piped text is attached after it (git diff | anvil run "review this").

Options:
  --model, -m PROVIDER/MODEL  the model (e.g. openai/gpt-4.1, anthropic/claude-sonnet-4-5, ollama/qwen2.5-coder:7b)
  --format, -f FORMAT         text (final answer on stdout), json (one result object, as claude -p --output-format json),
                              stream-json (one JSON message a line, as claude -p --output-format stream-json)
  --input-format stream-json  read user messages as JSON lines on stdin, one turn each (needs --format stream-json)
  --yes, -y                   approve every call that would ask (deny rules still deny)
  --trust-plugins             load the project's untrusted plugins for this run (see 'anvil plugins')
  --trust-mcp                 start the project's untrusted MCP servers for this run (see 'anvil mcp')
  --allow RULE                approve matching calls: TOOL or TOOL:PATTERN, e.g. --allow "bash:npm test" --allow edit:src/**
  --continue, -c              continue the last session that has an answer (its model and profile too)
  --session ID                continue the session ID (see 'anvil sessions')
  --max-steps N               stop after N model requests (default 50, anvil.json max_steps)
  --timeout SECONDS           model deadlines: response headers and silences in the stream (default 120 s / 180 s,
                              anvil.json model_timeout.request_sec / idle_sec); 90, 90s, 5m
  --profile NAME              code (default), plan, explore, test
  --engine native|react       native tool calls (default) or the ReAct text protocol
  --verify CMD, --no-verify   the auto-verification command (default: anvil.json verify)
  --sandbox MODE              the command sandbox: workspace-write (default), read-only, off, or
                              require (workspace-write, and an error where it cannot run)
  --show-raw                  print the raw model responses to stderr

Without a terminal, calls that need approval are denied (the model is told PERMISSION_DENIED)
unless --yes or a matching --allow is given.

Exit codes:
  0  the turn ended with an answer and nothing failed
  1  the model or its server failed (HTTP error, timeout, no answer)
  2  usage error (the command line)
  3  configuration error (no model, broken anvil.json, no such session or --root folder)
  4  a tool call was denied and that work was not done
  5  the verify command still failed at the end
  6  the step limit was reached
  7  the same failing call was repeated until the turn was stopped
  130 / 143 / 129  interrupted by SIGINT (Ctrl-C) / SIGTERM / SIGHUP
`
