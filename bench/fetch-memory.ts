/**
 * Peak memory of `anvil tool fetch` on a large HTML page (about 11 MB) served
 * from 127.0.0.1, against curl saving the same page (the reference, measured
 * in the same run), and of the converter alone in a fresh process.
 *
 *   bun bench/fetch-memory.ts [--binary dist/anvil]
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"

const binary = resolve(process.argv.includes("--binary") ? process.argv[process.argv.indexOf("--binary") + 1]! : "dist/anvil")

const section = (i: number) => `<article><h2 id="s${i}">Section ${i}</h2>
<p>Install the <strong>CLI</strong> with <code>pip install example</code>, then read the <a href="../reference/api-${i}.html">API reference</a>.</p>
<ol><li>Download the package.</li><li>Run the installer:<ul><li>on Linux: <code>./install.sh</code></li><li>on macOS: use <em>Homebrew</em></li></ul></li></ol>
<pre><code class="language-python">def greet(name):
    return f"Hello, {name} &amp; co"
</code></pre>
<table><tr><th>Option</th><th>Meaning</th></tr><tr><td><code>--jobs N</code></td><td>Parallel jobs</td></tr></table>
<blockquote><p>Note: the installer needs network access.</p></blockquote></article>\n`

export const largePage = (bytes: number): string => {
  const parts = ["<!doctype html><html><head><title>Big page</title><script>var x = 1</script></head><body><main>"]
  let size = parts[0]!.length
  for (let i = 0; size < bytes; i++) {
    const s = section(i)
    parts.push(s)
    size += s.length
  }
  parts.push("</main></body></html>")
  return parts.join("")
}

/** Peak RSS (GNU time) and wall time of one run; asynchronous, so the server in this process keeps answering. */
const peak = async (argv: ReadonlyArray<string>, cwd: string): Promise<{ rssMiB: number; ms: number; stdout: string }> => {
  const t = performance.now()
  const child = Bun.spawn(["/usr/bin/time", "-f", "%M", ...argv], { cwd, env: { ...process.env, XDG_CACHE_HOME: join(cwd, ".cache") }, stdout: "pipe", stderr: "pipe" })
  const [stdout, stderr] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited])
  const ms = performance.now() - t
  const lines = stderr.trim().split("\n")
  return { rssMiB: Number(lines[lines.length - 1]) / 1024, ms, stdout }
}

if (import.meta.main) {
  const page = largePage(11 * 1024 * 1024)
  const dir = mkdtempSync(join(tmpdir(), "anvil-fetch-mem-"))
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response(page, { headers: { "content-type": "text/html; charset=utf-8" } }) })
  try {
    const url = `http://127.0.0.1:${server.port}/big.html`
    const curl = await peak(["curl", "-s", "-o", join(dir, "page.html"), url], dir)
    writeFileSync(join(dir, "anvil.json"), "{}")
    const anvil = await peak([binary, "tool", "fetch", JSON.stringify({ url })], dir)
    const status = JSON.parse(anvil.stdout).status
    console.log(`page ${(page.length / 1024 / 1024).toFixed(1)} MiB`)
    console.log(`anvil tool fetch: peak RSS ${anvil.rssMiB.toFixed(1)} MiB, ${anvil.ms.toFixed(0)} ms (status ${status})`)
    console.log(`curl -o file:     peak RSS ${curl.rssMiB.toFixed(1)} MiB, ${curl.ms.toFixed(0)} ms`)
    console.log(`ratio: ${(anvil.rssMiB / curl.rssMiB).toFixed(2)}x curl's peak RSS`)
  } finally {
    server.stop(true)
    rmSync(dir, { recursive: true, force: true })
  }
}
