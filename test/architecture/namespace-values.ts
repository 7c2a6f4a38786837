import { readFileSync } from "node:fs"
import { join } from "node:path"
import ts from "typescript"

/**
 * An effect namespace (`import { Schema } from "effect"`, `import * as Effect from "effect/Effect"`) used as
 * a value rather than only as `Ns.member`: passed, stored, spread, `x ?? Schema`, re-exported. The bundler
 * then builds the whole module as an object in every command that loads the file (`(tool.schemaModule ??
 * Schema).decodeUnknownExit` made `anvil tool read` 14.4 → 17.8 ms of CPU). Type positions are free.
 */
export interface NamespaceValueUse {
  readonly line: number
  readonly name: string
  readonly text: string
}

const NODE_MODULES = join(import.meta.dir, "..", "..", "node_modules")
const namespacesOfModule = new Map<string, ReadonlySet<string>>()

/** The first file path a package.json `exports` entry gives (its "import" or "default" condition). */
const exportTarget = (entry: unknown): string | undefined => {
  if (typeof entry === "string") return entry
  if (entry === null || typeof entry !== "object") return undefined
  const conditions = entry as Record<string, unknown>
  return exportTarget(conditions.import ?? conditions.default)
}

/**
 * The installed file an import of `specifier` loads, read from the package's `exports` (a subpath of its own
 * or a `./*` pattern). Not through the runtime's resolver: once a test has loaded a plugin, `effect` resolves to
 * the plugin host's virtual module (plugins/host-modules.ts), which has no file.
 */
const installedFile = (specifier: string): string => {
  const parts = specifier.split("/")
  const name = specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!
  const subpath = `.${specifier.slice(name.length)}`
  const dir = join(NODE_MODULES, name)
  const { exports } = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { exports: Record<string, unknown> }
  let target = exportTarget(exports[subpath])
  if (target === undefined && subpath.startsWith("./")) {
    const pattern = exportTarget(exports["./*"])
    target = pattern?.replace("*", subpath.slice(2))
  }
  if (target === undefined) throw new Error(`${specifier}: no entry in ${name}'s package.json exports`)
  return join(dir, target)
}

/** The names a module re-exports as whole namespaces (`export * as NAME from …`), read from its installed file. */
export const namespaceExportsOf = (specifier: string): ReadonlySet<string> => {
  let names = namespacesOfModule.get(specifier)
  if (names === undefined) {
    const source = readFileSync(installedFile(specifier), "utf8")
    names = new Set([...source.matchAll(/export \* as (\w+) from/g)].map((m) => m[1]!))
    namespacesOfModule.set(specifier, names)
  }
  return names
}

const isEffectPackage = (specifier: string) => specifier === "effect" || specifier.startsWith("effect/") || specifier.startsWith("@effect/")

/** The local names bound to a whole effect module in `file` (type-only imports left out). */
const namespaceBindings = (file: ts.SourceFile, exportsOf: (specifier: string) => ReadonlySet<string>): ReadonlySet<string> => {
  const names = new Set<string>()
  for (const statement of file.statements) {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue
    const clause = statement.importClause
    const specifier = statement.moduleSpecifier.text
    if (clause === undefined || clause.isTypeOnly || !isEffectPackage(specifier)) continue
    const bindings = clause.namedBindings
    if (bindings && ts.isNamespaceImport(bindings)) names.add(bindings.name.text)
    else if (bindings && ts.isNamedImports(bindings)) {
      const namespaces = exportsOf(specifier)
      for (const element of bindings.elements) {
        if (!element.isTypeOnly && namespaces.has((element.propertyName ?? element.name).text)) names.add(element.name.text)
      }
    }
  }
  return names
}

/** Whether `node` sits in a type (an annotation, `typeof Ns`, an `implements` clause): nothing of it is evaluated. */
const inTypePosition = (node: ts.Node): boolean => {
  for (let at: ts.Node = node; at.parent !== undefined; at = at.parent) {
    const parent = at.parent
    if (ts.isExpressionWithTypeArguments(parent)) {
      // `extends Ns.Class(…)` is evaluated; `implements Ns.X` is not.
      return ts.isHeritageClause(parent.parent) && parent.parent.token === ts.SyntaxKind.ImplementsKeyword
    }
    if (ts.isTypeNode(parent)) return true
    if (ts.isExpression(parent) || ts.isStatement(parent)) return false
  }
  return false
}

/** Whether the identifier `node` names something other than the binding (a member, a key, a declaration of its own). */
const notAReference = (node: ts.Identifier): boolean => {
  const parent = node.parent
  if (ts.isPropertyAccessExpression(parent)) return parent.name === node
  if (ts.isQualifiedName(parent)) return parent.right === node
  if (ts.isImportSpecifier(parent) || ts.isNamespaceImport(parent) || ts.isImportClause(parent)) return true
  if (ts.isBindingElement(parent)) return parent.propertyName === node || parent.name === node
  if (ts.isShorthandPropertyAssignment(parent) || ts.isExportSpecifier(parent)) return false
  // A key or a declaration's own name (a property, a parameter, a local variable that shadows the import).
  return (parent as { name?: ts.Node }).name === node
}

/** The names a binding pattern (or a plain name) declares. */
const boundNames = (name: ts.BindingName): ReadonlyArray<string> =>
  ts.isIdentifier(name) ? [name.text] : name.elements.flatMap((e) => (ts.isOmittedExpression(e) ? [] : boundNames(e.name)))

/** The names a block-like node declares for its own scope (its statements' variables, functions and classes). */
const declaredIn = (statements: ts.NodeArray<ts.Statement>): ReadonlyArray<string> =>
  statements.flatMap((s) =>
    ts.isVariableStatement(s)
      ? s.declarationList.declarations.flatMap((d) => boundNames(d.name))
      : (ts.isFunctionDeclaration(s) || ts.isClassDeclaration(s)) && s.name
        ? [s.name.text]
        : [],
  )

/** Whether a parameter, local or catch variable between `node` and the file's top level is named `name`. */
const shadowed = (node: ts.Node, name: string): boolean => {
  for (let at = node.parent; at !== undefined && !ts.isSourceFile(at); at = at.parent) {
    const names = ts.isFunctionLike(at)
      ? [...at.parameters.flatMap((p) => boundNames(p.name)), ...((ts.isFunctionExpression(at) || ts.isClassExpression(at)) && at.name ? [at.name.text] : [])]
      : ts.isBlock(at) || ts.isModuleBlock(at)
        ? declaredIn(at.statements)
        : ts.isCaseBlock(at)
          ? at.clauses.flatMap((c) => declaredIn(c.statements))
          : ts.isCatchClause(at) && at.variableDeclaration
            ? boundNames(at.variableDeclaration.name)
            : (ts.isForStatement(at) || ts.isForOfStatement(at) || ts.isForInStatement(at)) && at.initializer && ts.isVariableDeclarationList(at.initializer)
              ? at.initializer.declarations.flatMap((d) => boundNames(d.name))
              : []
    if (names.includes(name)) return true
  }
  return false
}

/** Each use of an effect namespace as a value in one file's source. */
export const namespaceValueUses = (
  fileName: string,
  text: string,
  exportsOf: (specifier: string) => ReadonlySet<string> = namespaceExportsOf,
): ReadonlyArray<NamespaceValueUse> => {
  // Only a file importing from an effect package can hold one (parsing every file costs seconds).
  if (!/from\s*["'](?:effect|@effect\/)/.test(text)) return []
  const file = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS)
  const names = namespaceBindings(file, exportsOf)
  const uses: Array<NamespaceValueUse> = []
  const report = (node: ts.Node, name: string) => {
    const { line } = file.getLineAndCharacterOfPosition(node.getStart(file))
    uses.push({ line: line + 1, name, text: node.getText(file).split("\n")[0]!.slice(0, 120) })
  }
  // `export * as X from "effect/X"`, `export { Schema } from "effect"`: the namespace as a value of this module.
  for (const statement of file.statements) {
    if (!ts.isExportDeclaration(statement) || statement.isTypeOnly || !statement.moduleSpecifier) continue
    if (!ts.isStringLiteral(statement.moduleSpecifier) || !isEffectPackage(statement.moduleSpecifier.text)) continue
    const clause = statement.exportClause
    if (clause && ts.isNamespaceExport(clause)) report(statement, clause.name.text)
    else if (clause && ts.isNamedExports(clause)) {
      const namespaces = exportsOf(statement.moduleSpecifier.text)
      for (const e of clause.elements) if (!e.isTypeOnly && namespaces.has((e.propertyName ?? e.name).text)) report(statement, e.name.text)
    } else if (!clause && exportsOf(statement.moduleSpecifier.text).size > 0) report(statement, "*")
  }
  if (names.size === 0) return uses
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node) && names.has(node.text) && !notAReference(node)) {
      const member = ts.isPropertyAccessExpression(node.parent) && node.parent.expression === node
      if (!member && !inTypePosition(node) && !shadowed(node, node.text)) report(node.parent, node.text)
    }
    ts.forEachChild(node, visit)
  }
  visit(file)
  return uses
}
