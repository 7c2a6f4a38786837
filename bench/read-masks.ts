// What hiding the places `read` patterns match costs each confined command: `bun bench/read-masks.ts [runs]`.
// A git repository of 5,000 files in 500 folders (a few .pem and .env among them, untracked) and a node_modules
// of 20,000 files, with `*.pem` and `.env` denied. Times the first walk (every folder listed), the walk of each
// later command (folders stat'ed, listings kept), and the places looked up in the git index (what a hidden folder
// tracks), which is read again only when git wrote it. Prints medians in ms.
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { makeConfig } from "../src/config/config.ts"
import { readRuleMasks } from "../src/permission/read-masks.ts"
import { hideablePlaces } from "../src/sandbox/hideable-places.ts"

const runs = Number(process.argv[2] ?? 30)
const root = mkdtempSync(join(tmpdir(), "anvil-masks-bench-"))
for (let d = 0; d < 500; d++) {
  mkdirSync(join(root, "src", `d${d}`), { recursive: true })
  for (let f = 0; f < 10; f++) writeFileSync(join(root, "src", `d${d}`, `f${f}.ts`), "x\n")
  if (d % 100 === 0) writeFileSync(join(root, "src", `d${d}`, "k.pem"), "k\n")
}
writeFileSync(join(root, ".env"), "S=1\n")
for (let d = 0; d < 1000; d++) {
  mkdirSync(join(root, "node_modules", `p${d}`), { recursive: true })
  for (let f = 0; f < 20; f++) writeFileSync(join(root, "node_modules", `p${d}`, `m${f}.js`), "x\n")
}
Bun.spawnSync(["git", "init", "-q"], { cwd: root })
Bun.spawnSync(["git", "add", "src"], { cwd: root })
Bun.spawnSync(["git", "rm", "-q", "--cached", ...Array.from({ length: 5 }, (_, i) => `src/d${i * 100}/k.pem`)], { cwd: root })

const median = (xs: Array<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const masks = readRuleMasks(makeConfig({ permission: { read: { "*.pem": "deny", ".env": "deny" } } }, {}), root)!
let t = performance.now()
const first = masks()
const firstMs = performance.now() - t
const later: Array<number> = []
const filtered: Array<number> = []
for (let i = 0; i < runs; i++) {
  t = performance.now()
  const { places } = masks()
  later.push(performance.now() - t)
  t = performance.now()
  hideablePlaces(root, places.map((p) => p.path))
  filtered.push(performance.now() - t)
}
console.log(`places: ${first.places.length} (stopped: ${first.stopped})`)
console.log(`first walk: ${firstMs.toFixed(2)} ms; each later command: ${median(later).toFixed(2)} ms; index filter: ${median(filtered).toFixed(2)} ms`)
const again = readRuleMasks(makeConfig({ permission: { read: { "*.pem": "deny", ".env": "ask" } } }, {}), root)!
t = performance.now()
again()
console.log(`a new session's first walk, code already warm: ${(performance.now() - t).toFixed(2)} ms`)
