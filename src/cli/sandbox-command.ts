import { shownValue } from "../protocol/shown-value.ts"
import { Effect } from "effect"
import { realpathSync } from "node:fs"
import { join } from "node:path"
import { Path } from "effect/Path"
import { ConfigError } from "../config/config.ts"
import { PlatformLive } from "../runtime.ts"
import { showPath } from "../sandbox/policy.ts"
import { makeSandbox } from "../sandbox/sandbox.ts"
import { abstractScopeAvailable } from "../sandbox/abstract-scope.ts"
import { processLimitLine } from "../sandbox/process-limit.ts"
import { readSandboxSettings, SandboxSettingsError, showNetwork } from "../sandbox/settings.ts"
import { readRuleMasks } from "../permission/read-masks.ts"
import { readAsksEverything } from "../permission/read-asks.ts"
import { ignoredNotice, projectSandboxSection, resolveProjectSandbox, sandboxTrustSubject } from "../trust/project-sandbox.ts"
import { sandboxSummary } from "../sandbox/summary.ts"
import { definedEnv, envFilter } from "../sandbox/command-env.ts"
import { modelSecrets } from "../llm/model-secrets.ts"
import { findProjectRoot } from "../workspace/project-root.ts"
import { parseSandboxFlag } from "./agent-args.ts"
import { UsageError } from "./args.ts"
import type { CliIO } from "./output.ts"
import { commandConfig } from "./project.ts"

export const SANDBOX_HELP = `Usage: anvil sandbox [--json] [--sandbox MODE]
       anvil sandbox trust      apply this project's own sandbox settings that widen the sandbox
       anvil sandbox untrust    ignore them again

Reports what the command sandbox can do on this machine (bubblewrap found, a test
sandbox started, writes, PID namespace and network checked) and the rules in force
for this project: the mode, writable folders, protected paths, hidden secrets, network.
Settings: anvil.json "sandbox": { "mode", "require", "writable", "protected",
"deny_read", "allow_read", "allow_env", "deny_env", "network", "auto_allow", "max_processes" } (see README
"The command sandbox").
A project's own anvil.json may narrow the sandbox freely; what would widen it
(a looser mode, more writable folders or hosts, require or auto_allow relaxed,
more sandbox.allow folders, secrets made readable, secret-looking variables
let through, a higher process limit) applies only after 'anvil sandbox trust', which
records the settings' hash in ~/.config/anvil/trust.json (a change asks again).
`

/** A check run inside a real sandbox: each line "name=ok" or "name=FAIL". */
const CHECK_SCRIPT = [
  'echo x > "$TMPDIR/check" && echo tmp_write=ok || echo tmp_write=FAIL',
  "if (echo x > /anvil-sandbox-check) 2>/dev/null; then rm -f /anvil-sandbox-check; echo outside_refused=FAIL; else echo outside_refused=ok; fi",
  '[ "$$" -lt 10 ] && echo pid_namespace=ok || echo pid_namespace=FAIL',
  "n=$(tail -n +3 /proc/net/dev | grep -vc '^ *lo:'); [ \"$n\" = 0 ] && echo network=isolated || echo network=shared",
].join("\n")

/** The project and its configuration as read (the sandbox's trust is resolved from it); --strict stops on warnings. */
const loadProject = async (io: CliIO, root: string | undefined, strict: boolean) => {
  const dir = await Effect.runPromise(
    Effect.gen(function* () {
      const path = yield* Path
      const given = root ?? io.env.ANVIL_ROOT
      return given ? path.resolve(io.cwd, given) : yield* findProjectRoot(io.cwd)
    }).pipe(Effect.provide(PlatformLive)),
  )
  return { dir, config: await commandConfig(io, dir, { strict }) }
}

/** `anvil sandbox trust|untrust`: the user's decision on the project's widening sandbox settings, in the trust store. */
const trustCommand = async (verb: "trust" | "untrust", rest: ReadonlyArray<string>, io: CliIO, root: string | undefined, strict: boolean): Promise<number> => {
  if (rest.length > 0) throw new UsageError(`anvil sandbox ${verb}: unexpected argument ${shownValue(rest[0]!)}`)
  const { dir, config } = await loadProject(io, root, strict)
  const { makeTrust } = await import("../trust/trust.ts")
  const trust = makeTrust({ root: dir, env: io.env })
  if (verb === "untrust") {
    const had = await Effect.runPromise(trust.untrust("sandbox", "anvil.json"))
    io.out(had ? "The project's sandbox settings are no longer trusted; settings that widen the sandbox are ignored again.\n" : "The project's sandbox settings were not trusted.\n")
    return 0
  }
  const before = await Effect.runPromise(resolveProjectSandbox(config, dir))
  if (before.ignored.length === 0) {
    io.out("Nothing to trust: the project's anvil.json does not widen the sandbox (or is already trusted).\n")
    return 0
  }
  await Effect.runPromise(trust.trust(sandboxTrustSubject(projectSandboxSection(config))))
  io.out(`Trusted the sandbox settings of ${join(dir, "anvil.json")} for this project: ${before.ignored.join(", ")}. A change to them asks again.\n`)
  return 0
}

/** `anvil sandbox [--json] [--sandbox MODE]`, `anvil sandbox trust`, `anvil sandbox untrust`. */
export const sandboxCommand = async (argv: ReadonlyArray<string>, io: CliIO, root: string | undefined, strict = false): Promise<number> => {
  if (argv[0] === "trust" || argv[0] === "untrust") return trustCommand(argv[0], argv.slice(1), io, root, strict)
  let json = false
  let modeFlag: string | undefined
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!
    if (a === "--json") json = true
    else if (a === "--sandbox") modeFlag = parseSandboxFlag(argv[++i] ?? "", "sandbox")
    else if (a.startsWith("--sandbox=")) modeFlag = parseSandboxFlag(a.slice(10), "sandbox")
    else throw new UsageError(`anvil sandbox: unexpected argument ${shownValue(a)}`)
  }
  const { dir, config } = await loadProject(io, root, strict)
  const project = await Effect.runPromise(resolveProjectSandbox(config, dir, modeFlag))
  let settings
  try {
    const notice = ignoredNotice(project)
    settings = {
      ...readSandboxSettings(project.section, modeFlag),
      readMasks: readRuleMasks(config, dir),
      ...(notice ? { projectIgnored: notice } : {}),
    }
  } catch (e) {
    throw new ConfigError(e instanceof SandboxSettingsError ? `anvil.json: ${e.message}` : String(e))
  }
  const secrets = modelSecrets(config)
  const sandbox = makeSandbox({ root: dir, env: io.env, settings, sessionId: "doctor", modelSecrets: secrets })
  try {
    const { status } = sandbox.service
    // What a bash call gets (it is asked about first where read asks about every file).
    const policy = sandbox.service.policy(true)
    const asked = readAsksEverything(config, dir)
    const checks: Record<string, string> = {}
    // With the read rules' places cut short no command runs (sandbox.ts), the check neither: the report says why.
    if (policy && status.support.available && policy.masksRefused === undefined) {
      const wrapped = await Effect.runPromise(sandbox.service.wrap({ cwd: dir, approved: true }))
      // The check runs as a command would (with a host list, through the relay too).
      const command = { argv: ["/bin/sh", "-c", CHECK_SCRIPT], cwd: dir, env: { PATH: io.env.PATH ?? "/usr/bin:/bin" } }
      const spawn = wrapped.wrap ? wrapped.wrap(command) : command
      const run = Bun.spawn([...spawn.argv], { env: spawn.env, stdout: "pipe", stderr: "pipe", stdin: "ignore" })
      const [stdout, stderr] = await Promise.all([new Response(run.stdout).text(), new Response(run.stderr).text(), run.exited])
      await Effect.runPromise(wrapped.finish(""))
      for (const line of stdout.split("\n")) {
        const [k, v] = line.split("=")
        if (k && v) checks[k] = v
      }
      if (run.exitCode !== 0 && Object.keys(checks).length === 0) checks.start = `FAIL: ${stderr.trim()}`
    }
    const home = io.env.HOME
    const realRoot = realpathSync(dir)
    const tilde = (p: string) => (home && p.startsWith(`${home}/`) ? `~/${p.slice(home.length + 1)}` : p)
    const report = {
      ...sandboxSummary(status),
      root: dir,
      bwrap: status.support.available ? status.support.bwrap : null,
      ...(status.support.available ? {} : { unavailable: status.support.reason, fix: status.support.fix }),
      checks,
      writable: policy ? policy.writable.filter((p, i) => i > 0 && p !== realRoot).map((p) => showPath(dir, p)) : [],
      temporary_folder: policy ? "a private folder per session ($TMPDIR, TMP, TEMP)" : null,
      protected: policy ? [...policy.readOnly.map((p) => showPath(dir, p)), ...policy.standIns.map((s) => `${showPath(dir, s.path)} (missing: kept uncreatable)`)] : [],
      hidden: policy ? [...policy.hiddenDirs, ...policy.hiddenFiles].map(tilde) : [],
      redacted: policy ? policy.redacted.map((r) => tilde(r.path)) : [],
      env_withheld: envFilter({ allow: settings.allowEnv, deny: settings.denyEnv, model: secrets })(definedEnv(io.env)).withheld,
      process_limit: processLimitLine(settings.maxProcesses, status.support, status.confining),
      abstract_sockets: !policy
        ? null
        : settings.network.kind !== "on"
          ? "unreachable (the command's own network namespace)"
          : abstractScopeAvailable()
            ? "unreachable when bound outside (Landlock scope)"
            : "REACHABLE: sandbox.network is \"on\" and this kernel has no Landlock scoping (Linux 6.12)",
      missing_writable: policy?.missingWritable ?? [],
      // The places read rules hide, each with its rule, and whether the walk for their patterns stopped early.
      read_rule_masks: policy ? policy.ruleMasks.map((m) => ({ path: showPath(dir, m.path), rule: m.rule })) : [],
      ...(policy?.masksRefused ? { read_rule_walk: `confined commands are refused. ${policy.masksRefused.message.replace(/^The command was not run: /, "")} ${policy.masksRefused.nextStep}` } : {}),
      ...(asked !== undefined && policy ? { read_rule_ask: `each confined bash command is asked about before it runs: the rule ${asked} asks before any file is read, and the sandbox cannot hide every file. An approved command may read what the rule asks about (the places deny rules name stay hidden); the verify command and plugins' hooks, which cannot be asked about, are refused.` } : {}),
    }
    if (json) {
      io.out(`${JSON.stringify(report, null, 2)}\n`)
      return 0
    }
    const lines = [
      status.support.available
        ? `Command sandbox: bubblewrap ${status.support.version} (${status.support.bwrap}) — works on this machine`
        : settings.mode === "off"
          ? "Command sandbox: off (sandbox.mode)"
          : `Command sandbox: NOT AVAILABLE — ${status.support.reason}\n  To fix: ${status.support.fix}\n  Meanwhile commands run unconfined and ask for approval as usual${settings.require ? "; sandbox.require is on, so bash refuses to run" : ""}.`,
      `Mode: ${report.mode}${report.mode !== settings.mode ? ` (configured: ${settings.mode})` : ""}   require: ${settings.require}   auto_allow: ${settings.autoAllow}`,
    ]
    if (Object.keys(checks).length > 0) lines.push(`Checks: ${Object.entries(checks).map(([k, v]) => `${k} ${v}`).join(", ")}`)
    if (policy) {
      lines.push(
        `Writable: ${policy.mode === "read-only" ? "nothing but" : "the project root,"} a private temporary folder per session${report.writable.length > 0 ? `, ${report.writable.join(", ")}` : ""}`,
        `Read-only inside the root: ${report.protected.join(", ") || "(none)"}`,
        `Hidden (unreadable): ${report.hidden.join(", ") || "(none present)"}`,
        `Read without their tokens and passwords: ${report.redacted.join(", ") || "(none with any)"}`,
        `Network: ${showNetwork(settings.network)}`,
      )
      for (const m of report.read_rule_masks) lines.push(`Hidden by a read rule: ${m.path} (${m.rule})`)
      if (report.read_rule_walk) lines.push(`Warning: ${report.read_rule_walk}`)
      if (report.read_rule_ask) lines.push(`Note: ${report.read_rule_ask}`)
      if (policy.missingWritable.length > 0) lines.push(`sandbox.writable entries that do not exist (ignored): ${policy.missingWritable.join(", ")}`)
    }
    lines.push(`Environment variables withheld from commands (sandbox.allow_env lets one through): ${report.env_withheld.join(", ") || "(none set)"}`)
    lines.push(`Process limit: ${report.process_limit}`)
    if (report.abstract_sockets) lines.push(`Abstract Unix sockets outside: ${report.abstract_sockets}`)
    if (settings.projectIgnored) lines.push(`Warning: ${settings.projectIgnored}`)
    io.out(`${lines.join("\n")}\n`)
    return 0
  } finally {
    await sandbox.close()
  }
}
