/**
 * The measure behind test/unit/function-length.test.ts: every function under a folder whose
 * body runs over MAX_LINES lines, and what is wrong against an allow-list. Read with
 * TypeScript's own parser, from any copy of the project.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";

export const MAX_LINES = 80;

/** One allowed long function: its file (from the root, with `/`), its name as reported, and why. */
export interface Allowed {
  file: string;
  name: string;
  reason: string;
}

export interface LongFunction {
  file: string;
  line: number;
  name: string;
  lines: number;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.(?:c|m)?tsx?$/.test(entry.name) && !entry.name.endsWith(".d.ts"))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

/** What a reader calls the function: its own name, or the variable, property or class member it is assigned to. */
function functionName(node: ts.FunctionLikeDeclaration): string {
  if (ts.isConstructorDeclaration(node)) return "constructor";
  if (node.name !== undefined) return node.name.getText();
  const parent = node.parent;
  if (
    (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) &&
    parent.name !== undefined
  ) {
    return parent.name.getText();
  }
  if (ts.isBinaryExpression(parent) && parent.operatorToken.kind === ts.SyntaxKind.EqualsToken)
    return parent.left.getText();
  return "<anonymous>";
}

/** Every function under `dir` whose body spans more than `max` lines (the body's first to last line). */
export function longFunctions(base: string, dir: string, max = MAX_LINES): LongFunction[] {
  const found: LongFunction[] = [];
  for (const path of sourceFiles(dir)) {
    const source = ts.createSourceFile(path, readFileSync(path, "utf8"), ts.ScriptTarget.Latest, true);
    const file = relative(base, path).split("\\").join("/");
    const visit = (node: ts.Node): void => {
      if (ts.isFunctionLike(node) && "body" in node && node.body !== undefined) {
        const fn = node as ts.FunctionLikeDeclaration & { body: ts.Node };
        const first = source.getLineAndCharacterOfPosition(fn.body.getStart(source)).line;
        const last = source.getLineAndCharacterOfPosition(fn.body.getEnd()).line;
        const lines = last - first + 1;
        if (lines > max) {
          found.push({
            file,
            line: source.getLineAndCharacterOfPosition(fn.getStart(source)).line + 1,
            name: functionName(fn),
            lines,
          });
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

/** The problems, each naming file:line, the function and its length; and each allow-list entry that matches nothing. */
export function lengthProblems(found: readonly LongFunction[], allowed: readonly Allowed[], max = MAX_LINES): string[] {
  const isAllowed = (fn: LongFunction): boolean => allowed.some((a) => a.file === fn.file && a.name === fn.name);
  const problems = found
    .filter((fn) => !isAllowed(fn))
    .map(
      (fn) =>
        `${fn.file}:${fn.line}: function ${fn.name} has a body of ${fn.lines} lines (at most ${max}); split it into named steps, or allow it in test/unit/function-length.allow.json with a reason.`,
    );
  for (const entry of allowed) {
    if (entry.reason.trim() === "")
      problems.push(`function-length.allow.json: ${entry.file} ${entry.name} has no reason.`);
    if (!found.some((fn) => fn.file === entry.file && fn.name === entry.name)) {
      problems.push(
        `function-length.allow.json: ${entry.file} ${entry.name} matches no function over ${max} lines; remove the entry.`,
      );
    }
  }
  return problems;
}
