/**
 * The type-level proof: does code written against the BASE contract still compile against
 * the types the HEAD contract generates?
 *
 * The probe is TypeScript generated from the base contract. Per operation it writes two
 * requests, one with the smallest valid request (required parameters and fields only) and
 * one with every parameter and field, and it reads every field of the success response
 * into a variable typed as the base declares it. Every value sent is `pick<T>()` with `T`
 * the base's type of that field (for an enum, the union of every old value), so a type
 * narrowed or an enum value removed in the head fails to compile, as it would in a
 * caller's code. A response field of a literal type (an enum, a `const`) is also used as
 * callers use one: compared with each old value (`=== "fi"`), switched on with a case per
 * old value, and mapped exhaustively (`Record<NonNullable<T>, …>` over the old values), so
 * a response enum that loses a value is a proven type break too (see docs/contract-diff.md).
 *
 * Each line of the probe is tagged with the operation and the field it exercises, so a
 * compile error names both; errors are then matched to the changes of compare.ts.
 *
 * The probe uses openapi-fetch's own types over the generated `paths`: a request is a
 * `FetchOptions<paths[P][M]>`, the type `client.METHOD(P, init)` checks `init` against,
 * and the answer is a `FetchResponse<paths[P][M], …>`, the type such a call returns. Going
 * through these types instead of calling a `Client<paths>` gives the same errors (checked
 * on this contract) at a third of the check time, because TypeScript no longer resolves
 * the path among every path of the client. It does not use the SDK's `StoreAdminClient`
 * type: that is openapi-fetch's client over the same `paths`, and its types change for
 * reasons of their own. One difference: openapi-fetch asks for the required version
 * header, which the SDK sets itself; the probe passes it.
 */
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import openapiTS, { astToString } from "openapi-typescript";
import ts from "typescript";
import {
  child,
  deref,
  fieldPath,
  isNode,
  isSuccess,
  objectView,
  operations,
  parameters,
  preferredMediaType,
  typesOf,
  type At,
  type Node,
} from "./document.js";
import { kindRule } from "./kinds.js";
import { jsonCode, stringLiteral } from "../encode.js";
import { schemaTypeOptions } from "../schema-types.js";
import type { Change } from "./compare.js";

/** Generate the types of a contract with the options scripts/generate.ts uses (a test compares the two). */
export async function generateTypes(doc: Node): Promise<string> {
  const ast = await openapiTS(
    structuredClone(doc) as unknown as Parameters<typeof openapiTS>[0],
    schemaTypeOptions(doc),
  );
  return astToString(ast);
}

/** Which operation and field one line of the probe exercises. */
interface ProbeLine {
  operation: string;
  field: string;
}

interface Probe {
  text: string;
  /** `lines[i]` tags line i (0-based) of `text`. */
  lines: Array<ProbeLine | undefined>;
}

const key = (name: string): string =>
  /^[A-Za-z_$][\w$]*$/.test(name) && name !== "__proto__" ? name : stringLiteral(name);
const literal = (value: unknown): string => (value === null ? "null" : jsonCode(value));

class ProbeWriter {
  private readonly out: string[] = [];
  private readonly tags: Array<ProbeLine | undefined> = [];
  private operation = "";
  private counter = 0;

  constructor(
    private readonly doc: Node,
    private readonly only?: ReadonlySet<string>,
  ) {}

  private emit(indent: number, text: string, field?: string): void {
    this.out.push(" ".repeat(indent) + text);
    this.tags.push(field === undefined ? undefined : { operation: this.operation, field });
  }

  private fresh(prefix: string): string {
    return `${prefix}${++this.counter}`;
  }

  /** The TypeScript type of a value of this schema, at most `depth` levels of objects deep. */
  typeOf(schema: At, shallow: boolean, depth = 0): string {
    const s = deref(this.doc, schema.node, schema.ptr);
    const alternatives = [
      ...(Array.isArray(s.node.oneOf) ? s.node.oneOf : []),
      ...(Array.isArray(s.node.anyOf) ? s.node.anyOf : []),
    ];
    if (alternatives.length > 0) {
      const list = alternatives.map(
        (alt, i) => `(${this.typeOf({ node: alt as Node, ptr: child(s.ptr, "oneOf", i) }, shallow, depth)})`,
      );
      return [...new Set(list)].join(" | ");
    }
    const values = Array.isArray(s.node.enum) ? s.node.enum : "const" in s.node ? [s.node.const] : undefined;
    if (values !== undefined) return values.length === 0 ? "never" : values.map(literal).join(" | ");
    const view = objectView(this.doc, s);
    let types = typesOf(s.node);
    if (types.length === 0 && view.properties.size > 0) types = ["object"];
    if (types.length === 0) return "unknown";
    return types
      .map((t) => {
        switch (t) {
          case "string":
            return s.node.format === "binary" ? "Blob" : "string";
          case "integer":
          case "number":
            return "number";
          case "boolean":
            return "boolean";
          case "null":
            return "null";
          case "array":
            if (shallow || s.node.items === undefined || depth > 4) return "unknown[]";
            return `(${this.typeOf({ node: s.node.items as Node, ptr: child(s.ptr, "items") }, false, depth + 1)})[]`;
          case "object": {
            if (shallow || view.properties.size === 0 || depth > 4)
              return view.properties.size === 0 ? "Record<string, unknown>" : "object";
            const fields = [...view.properties]
              .filter(([, p]) => deref(this.doc, p.node, p.ptr).node.writeOnly !== true)
              .map(
                ([name, p]) => `${key(name)}${view.required.has(name) ? "" : "?"}: ${this.typeOf(p, false, depth + 1)}`,
              );
            return `{ ${fields.join("; ")} }`;
          }
          default:
            return "unknown";
        }
      })
      .join(" | ");
  }

  /** A request value for `schema`: objects and arrays written out, one field a line; leaves are `pick<T>()`. */
  private writeValue(
    indent: number,
    prefix: string,
    schema: At,
    field: string,
    full: boolean,
    suffix: string,
    depth = 0,
  ): void {
    const s = deref(this.doc, schema.node, schema.ptr);
    const combinator = Array.isArray(s.node.oneOf) ? "oneOf" : Array.isArray(s.node.anyOf) ? "anyOf" : undefined;
    if (combinator !== undefined) {
      const branches = s.node[combinator] as Node[];
      const index = full ? branches.length - 1 : 0;
      this.writeValue(
        indent,
        prefix,
        { node: branches[index] as Node, ptr: child(s.ptr, combinator, index) },
        field,
        full,
        suffix,
        depth,
      );
      return;
    }
    const view = objectView(this.doc, s);
    const types = typesOf(s.node);
    const hasEnum = Array.isArray(s.node.enum) || "const" in s.node;
    if (!hasEnum && depth < 6 && view.properties.size > 0 && (types.length === 0 || types.includes("object"))) {
      this.emit(indent, `${prefix}{`, field);
      for (const [name, p] of view.properties) {
        if (deref(this.doc, p.node, p.ptr).node.readOnly === true || p.node.readOnly === true) continue;
        if (!full && !view.required.has(name)) continue;
        this.writeValue(indent + 2, `${key(name)}: `, p, fieldPath(field, name), full, ",", depth + 1);
      }
      this.emit(indent, `}${suffix}`, field);
      return;
    }
    if (!hasEnum && depth < 6 && types.includes("array") && s.node.items !== undefined) {
      this.emit(indent, `${prefix}[`, field);
      this.writeValue(
        indent + 2,
        "",
        { node: s.node.items as Node, ptr: child(s.ptr, "items") },
        `${field}[]`,
        full,
        ",",
        depth + 1,
      );
      this.emit(indent, `]${suffix}`, field);
      return;
    }
    this.emit(indent, `${prefix}pick<${this.typeOf(s, false)}>()${suffix}`, field);
  }

  /** Read a response value into variables typed as the base declares them, level by level. */
  private readValue(indent: number, expr: string, schema: At, field: string, optional: boolean, depth = 0): void {
    const s = deref(this.doc, schema.node, schema.ptr);
    const orUndefined = optional ? " | undefined" : "";
    const shape = this.shapeOf(s);
    if (depth > 6 || shape === "leaf") {
      // A leaf, or a union of shapes no narrowing can tell apart: one check of the whole value.
      this.emit(indent, `const ${this.fresh("c")}: ${this.typeOf(s, false)}${orUndefined} = ${expr};`, field);
      this.useLiterals(indent, expr, s, field);
      return;
    }
    const value = this.fresh("v");
    this.emit(indent, `const ${value} = ${expr};`, field);
    this.emit(indent, `const ${this.fresh("c")}: ${this.typeOf(s, true)}${orUndefined} = ${value};`, field);
    // Each shape the base allows (an array, an object, or one of each in a union) is read in its own narrowed branch.
    const branches = shape === "union" ? this.branchesOf(s) : [s];
    for (const branch of branches) {
      const branchShape = this.shapeOf(branch);
      if (branchShape === "array") {
        const item = this.fresh("i");
        this.emit(indent, `if (Array.isArray(${value})) for (const ${item} of ${value}) {`, field);
        this.readValue(
          indent + 2,
          item,
          { node: branch.node.items as Node, ptr: child(branch.ptr, "items") },
          `${field}[]`,
          false,
          depth + 1,
        );
        this.emit(indent, "}", field);
      } else if (branchShape === "object") {
        const view = objectView(this.doc, branch);
        this.emit(
          indent,
          `if (typeof ${value} === "object" && ${value} !== null && !Array.isArray(${value})) {`,
          field,
        );
        for (const [name, p] of view.properties) {
          if (deref(this.doc, p.node, p.ptr).node.writeOnly === true || p.node.writeOnly === true) continue;
          const access = /^[A-Za-z_$][\w$]*$/.test(name) ? `${value}.${name}` : `${value}[${stringLiteral(name)}]`;
          this.readValue(indent + 2, access, p, fieldPath(field, name), !view.required.has(name), depth + 1);
        }
        this.emit(indent, "}", field);
      }
    }
  }

  /**
   * What callers write with a value of a literal type (an enum, a `const`): a comparison
   * with each value, a `switch` with a case per value, and an exhaustive map over the
   * values. Assigning the value to a variable of the old type compiles when values are
   * removed, but each of these fails on a removed value (TS2367, TS2678, TS2353), and the
   * exhaustive map also fails on an added one (TS2741).
   */
  private useLiterals(indent: number, expr: string, s: At, field: string): void {
    const values = this.literalsOf(s, 0);
    if (values === undefined || values.length === 0) return;
    for (const value of values)
      this.emit(indent, `if (${expr} === ${literal(value)}) { /* the caller handles this value */ }`, field);
    this.emit(indent, `switch (${expr}) {`, field);
    for (const value of values) this.emit(indent + 2, `case ${literal(value)}: break;`, field);
    this.emit(indent, "}", field);
    if (values.every((v) => typeof v === "string" || typeof v === "number")) {
      const entries = values.map((v) => `${stringLiteral(String(v))}: true`).join(", ");
      this.emit(indent, `const ${this.fresh("m")}: Record<NonNullable<typeof ${expr}>, true> = { ${entries} };`, field);
    }
  }

  /**
   * The literal values a schema admits (null left out), when it admits nothing else: an
   * `enum` or `const`, possibly made nullable or split in `anyOf`/`oneOf` branches that are
   * themselves literal. Otherwise undefined.
   */
  private literalsOf(schema: At, depth: number): unknown[] | undefined {
    if (depth > 8) return undefined;
    const s = deref(this.doc, schema.node, schema.ptr);
    if (Array.isArray(s.node.enum)) return s.node.enum.filter((v) => v !== null && typeof v !== "object");
    if ("const" in s.node) return s.node.const === null || typeof s.node.const === "object" ? [] : [s.node.const];
    if (Array.isArray(s.node.oneOf) || Array.isArray(s.node.anyOf)) {
      const out: unknown[] = [];
      for (const branch of this.branchesOf(s)) {
        const types = typesOf(branch.node);
        if (types.length === 1 && types[0] === "null" && !("enum" in branch.node)) continue;
        const inner = this.literalsOf(branch, depth + 1);
        if (inner === undefined) return undefined;
        for (const v of inner) if (!out.includes(v)) out.push(v);
      }
      return out;
    }
    return undefined;
  }

  private branchesOf(s: At): At[] {
    const combinator = Array.isArray(s.node.oneOf) ? "oneOf" : "anyOf";
    return (s.node[combinator] as unknown[]).map((b, i) => deref(this.doc, b, child(s.ptr, combinator, i)));
  }

  /**
   * How a response value of this schema is read: field by field (an object), item by item
   * (an array), as a whole (a leaf), or, for a `oneOf`/`anyOf` of at most one array and one
   * object shape, each shape in the branch that narrows to it ("union").
   */
  private shapeOf(s: At): "object" | "array" | "union" | "leaf" {
    if (Array.isArray(s.node.oneOf) || Array.isArray(s.node.anyOf)) {
      const shapes = this.branchesOf(s).map((b) => this.shapeOf(b));
      const arrays = shapes.filter((x) => x === "array").length;
      const objects = shapes.filter((x) => x === "object").length;
      return shapes.every((x) => x !== "union") && arrays <= 1 && objects <= 1 && arrays + objects > 0
        ? "union"
        : "leaf";
    }
    const types = typesOf(s.node);
    if (objectView(this.doc, s).properties.size > 0 && (types.length === 0 || types.includes("object")))
      return "object";
    if (types.includes("array") && s.node.items !== undefined) return "array";
    return "leaf";
  }

  /** A request as openapi-fetch types it for this operation (`FetchOptions`, what `client.METHOD(path, init)` takes). */
  private writeRequest(
    indent: number,
    method: string,
    path: string,
    op: At,
    params: Map<string, At>,
    full: boolean,
  ): void {
    this.emit(
      indent,
      `const ${this.fresh("init")}: FetchOptions<paths[${stringLiteral(path)}][${stringLiteral(method)}]> = {`,
      "",
    );
    const groups = new Map<string, Array<[string, At]>>();
    for (const p of params.values()) {
      if (!full && p.node.required !== true) continue;
      const where = String(p.node.in);
      groups.set(where, [...(groups.get(where) ?? []), [String(p.node.name), p]]);
    }
    if (groups.size > 0) {
      this.emit(indent + 2, "params: {", "params");
      for (const [where, list] of groups) {
        this.emit(indent + 4, `${where}: {`, `params.${where}`);
        for (const [name, p] of list) {
          this.writeValue(
            indent + 6,
            `${key(name)}: `,
            { node: isNode(p.node.schema) ? p.node.schema : {}, ptr: child(p.ptr, "schema") },
            `params.${where}.${name}`,
            full,
            ",",
          );
        }
        this.emit(indent + 4, "},", `params.${where}`);
      }
      this.emit(indent + 2, "},", "params");
    }
    if (op.node.requestBody !== undefined) {
      const body = deref(this.doc, op.node.requestBody, child(op.ptr, "requestBody"));
      const content = isNode(body.node.content) ? body.node.content : {};
      const type = preferredMediaType(content);
      const media = type === undefined ? undefined : content[type];
      if ((full || body.node.required === true) && type !== undefined && isNode(media)) {
        this.writeValue(
          indent + 2,
          "body: ",
          { node: isNode(media.schema) ? media.schema : {}, ptr: child(body.ptr, "content", type, "schema") },
          "body",
          full,
          ",",
        );
      }
    }
    this.emit(indent, "};", "");
  }

  /** The schema of a response's preferred media type, if it has content. */
  private mediaSchema(value: unknown, ptr: string): At | undefined {
    const response = deref(this.doc, value, ptr);
    const content = isNode(response.node.content) ? response.node.content : {};
    const type = preferredMediaType(content);
    const media = type === undefined ? undefined : content[type];
    if (type === undefined || !isNode(media)) return undefined;
    return { node: isNode(media.schema) ? media.schema : {}, ptr: child(response.ptr, "content", type, "schema") };
  }

  write(): Probe {
    this.emit(0, `import type { FetchOptions, FetchResponse } from "openapi-fetch";`);
    this.emit(0, `import type { paths } from "./schema.js";`);
    this.emit(0, "/** A value of type T, as a caller's code would have one. */");
    this.emit(0, "declare function pick<T>(): T;");
    let index = 0;
    for (const operation of operations(this.doc).values()) {
      if (this.only !== undefined && !this.only.has(operation.key)) continue;
      this.operation = operation.key;
      const params = parameters(this.doc, operation);
      this.emit(0, "");
      // (No comment naming the operation: a // comment carries no contract text, whose line break would end it.)
      this.emit(0, `export function operation${++index}(): void {`);
      this.writeRequest(2, operation.method, operation.path, operation.op, params, false);
      this.writeRequest(2, operation.method, operation.path, operation.op, params, true);
      const answer = `FetchResponse<paths[${stringLiteral(operation.path)}][${stringLiteral(operation.method)}], {}, \`\${string}/\${string}\`>`;
      this.emit(2, `const { data, error } = pick<${answer}>();`, "");
      const responses = isNode(operation.op.node.responses) ? operation.op.node.responses : {};
      // \`data\` is typed from the success responses, \`error\` from the others: read the first of each.
      for (const [success, variable, field] of [
        [true, "data", "data"],
        [false, "error", "error"],
      ] as const) {
        const status = Object.keys(responses).find(
          (s) =>
            isSuccess(s) === success &&
            this.mediaSchema(responses[s], child(operation.op.ptr, "responses", s)) !== undefined,
        );
        if (status === undefined) continue;
        const schema = this.mediaSchema(responses[status], child(operation.op.ptr, "responses", status)) as At;
        this.emit(2, `if (${variable} !== undefined) {`, field);
        this.readValue(4, variable, schema, field, false);
        this.emit(2, "}", field);
      }
      this.emit(0, "}");
    }
    return { text: this.out.join("\n") + "\n", lines: this.tags };
  }
}

/** The probe for a contract: code a caller could have written against it. */
function buildProbe(base: Node, only?: ReadonlySet<string>): Probe {
  return new ProbeWriter(base, only).write();
}

export interface ProbeError {
  operation: string | null;
  field: string;
  /** 1-based line in the probe. */
  line: number;
  message: string;
}

interface ProbeJob {
  id: string;
  base: Node;
  head: Node;
  /**
   * The structural changes from base to head, when known: the self-check then skips the
   * operations whose every error sits on a changed field (see `runProbes`).
   */
  changes?: readonly Change[];
  /** Probe only these operations (default: all). The tests use it to compile less. */
  operations?: ReadonlySet<string>;
}

export interface ProbeOutcome {
  /** Errors of the probe compiled against the head's types. */
  errors: ProbeError[];
  /** Errors the probe has against the base's own types: a defect of the probe, excluded from the proof. */
  selfErrors: ProbeError[];
  probeDir: string;
}

/** Compile errors quote whole object types; a report line needs their start only. */
const shorten = (message: string): string => message.replace(/\s+/g, " ").replace(/'([^']{60})[^']{20,}'/g, "'$1…'");

const openapiFetchTypes = createRequire(import.meta.url)
  .resolve("openapi-fetch")
  .replace(/index\.(c?js|mjs)$/, "index.d.mts");

const COMPILER_OPTIONS: ts.CompilerOptions = {
  strict: true,
  noUncheckedIndexedAccess: true,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  lib: ["lib.es2022.d.ts", "lib.dom.d.ts", "lib.dom.iterable.d.ts"],
  types: [],
  skipLibCheck: true,
  noEmit: true,
  paths: { "openapi-fetch": [openapiFetchTypes] },
};

interface Unit {
  file: string;
  probe: Probe;
}

function errorsOf(program: ts.Program, unit: Unit): ProbeError[] {
  const source = program.getSourceFile(unit.file);
  if (source === undefined) throw new Error(`the probe ${unit.file} was not compiled`);
  return [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)].map((d) => {
    const line = d.start === undefined ? 0 : source.getLineAndCharacterOfPosition(d.start).line;
    const tag = unit.probe.lines[line];
    return {
      operation: tag?.operation ?? null,
      field: tag?.field ?? "",
      line: line + 1,
      message: shorten(ts.flattenDiagnosticMessageText(d.messageText, "\n").split("\n").slice(0, 2).join(" ")),
    };
  });
}

async function writeUnit(dir: string, types: Node, probe: Probe, label: string): Promise<Unit> {
  mkdirSync(dir, { recursive: true });
  const schema = await generateTypes(types).catch((error: unknown) => {
    throw new Error(`openapi-typescript cannot generate types from the ${label} contract: ${(error as Error).message}`);
  });
  writeFileSync(join(dir, "schema.ts"), schema);
  writeFileSync(join(dir, "probe.ts"), probe.text);
  return { file: join(dir, "probe.ts"), probe };
}

/**
 * Compile the probe of each job's base against the job's head types, all jobs in one
 * TypeScript program (the libraries are loaded once for the whole batch). Then, for the
 * operations that failed, compile the same probe against the base's own types: an error
 * there is a defect of the probe, not an effect of the change, and is left out of the proof.
 * Files go to a temporary folder, removed afterwards unless `keep` is set.
 */
export async function runProbes(
  jobs: readonly ProbeJob[],
  options: { keep?: boolean } = {},
): Promise<Map<string, ProbeOutcome>> {
  const root = mkdtempSync(join(tmpdir(), "contract-diff-"));
  try {
    const heads: Array<{ job: ProbeJob; unit: Unit; dir: string }> = [];
    for (const [index, job] of jobs.entries()) {
      const probe = buildProbe(job.base, job.operations);
      const dir = join(root, `head-${index + 1}`);
      heads.push({ job, dir, unit: await writeUnit(dir, job.head, probe, `head (${job.id})`) });
    }
    const program = ts.createProgram(
      heads.map((h) => h.unit.file),
      COMPILER_OPTIONS,
    );
    const headErrors = heads.map((h) => errorsOf(program, h.unit));

    // The self-check: one probe per distinct base, reduced to the operations with an error
    // that no change at its own field explains (an error on a changed field is that change's doing).
    const failing = new Map<Node, Set<string>>();
    heads.forEach((h, i) => {
      for (const e of headErrors[i] ?? []) {
        if (h.job.changes !== undefined && directCauses(h.job.changes, e).length > 0) continue;
        if (e.operation !== null) failing.set(h.job.base, (failing.get(h.job.base) ?? new Set()).add(e.operation));
      }
    });
    const selfUnits = new Map<Node, Unit>();
    let n = 0;
    for (const [base, ops] of failing)
      selfUnits.set(base, await writeUnit(join(root, `base-${++n}`), base, buildProbe(base, ops), "base"));
    const selfErrors = new Map<Node, ProbeError[]>();
    if (selfUnits.size > 0) {
      const selfProgram = ts.createProgram(
        [...selfUnits.values()].map((u) => u.file),
        COMPILER_OPTIONS,
        undefined,
        program,
      );
      for (const [base, unit] of selfUnits) selfErrors.set(base, errorsOf(selfProgram, unit));
    }

    const outcomes = new Map<string, ProbeOutcome>();
    heads.forEach((h, i) => {
      const self = selfErrors.get(h.job.base) ?? [];
      const broken = new Set(self.map((e) => `${e.operation}|${e.field}`));
      const errors = (headErrors[i] ?? []).filter((e) => !broken.has(`${e.operation}|${e.field}`));
      outcomes.set(h.job.id, { errors, selfErrors: self, probeDir: h.dir });
    });
    return outcomes;
  } finally {
    if (!options.keep) rmSync(root, { recursive: true, force: true });
  }
}

/** `"GET /users/"` → `#/paths/~1users~1/get`. */
const operationPointer = (operation: string): string => {
  const [method = "", ...path] = operation.split(" ");
  return child("#/paths", path.join(" "), method.toLowerCase());
};

const isAncestor = (ancestor: string, path: string): boolean =>
  ancestor === "" || path.startsWith(`${ancestor}.`) || path.startsWith(`${ancestor}[]`);
const parentOf = (path: string): string => path.replace(/(\.[^.]*|\[\])$/, "");

/**
 * The changes at the error's own field or, when there is none, a field added, removed or
 * made required just under it. A change at the field itself comes first: when an object
 * is made nullable and one of its fields made required, the error on the object is the
 * nullability's doing, not the field's.
 */
function directCauses<C extends Change>(changes: readonly C[], error: ProbeError): C[] {
  const typed = changes.filter((c) => c.operation === error.operation && kindRule(c.kind).typed);
  const own = typed.filter((c) => c.field === error.field);
  if (own.length > 0) return own;
  return typed.filter(
    (c) => kindRule(c.kind).presence === true && parentOf(c.field) === error.field && c.field !== error.field,
  );
}

/**
 * Match compile errors to changes and set `typeBreak`. An error on a field is the doing
 * of a type-changing change at that field, or of a field added, removed or made required
 * under it (the error then sits on the object around the field). Failing that, of the only
 * type-changing change below it. An error below a change already proven is its echo.
 * Failing that, of the only type-changing change above it (a status added to `data`). Any
 * other error is reported as a change of its own, `type-break-unattributed`: we say so
 * rather than guess.
 */
export function attribute(changes: Change[], errors: readonly ProbeError[]): Change[] {
  const typed = (c: Change): boolean => kindRule(c.kind).typed;
  const unexplained: ProbeError[] = [];
  const pending: ProbeError[] = [];
  for (const error of errors) {
    const direct = directCauses(changes, error);
    if (direct.length > 0) direct.forEach((c) => (c.typeBreak = true));
    else pending.push(error);
  }
  for (const error of pending) {
    const inOperation = changes.filter((c) => c.operation === error.operation && typed(c));
    const below = inOperation.filter((c) => isAncestor(error.field, c.field) && c.field !== error.field);
    if (below.length === 1 && below[0] !== undefined) {
      below[0].typeBreak = true;
      continue;
    }
    const echo = inOperation.some((c) => c.typeBreak && isAncestor(c.field, error.field));
    if (echo || below.some((c) => c.typeBreak)) continue;
    const above = inOperation.filter((c) => isAncestor(c.field, error.field) && c.field !== error.field);
    if (below.length === 0 && above.length === 1 && above[0] !== undefined) {
      above[0].typeBreak = true;
      continue;
    }
    unexplained.push(error);
  }
  const seen = new Set<string>();
  for (const error of unexplained) {
    const id = `${error.operation}|${error.field}|${error.message}`;
    if (seen.has(id)) continue;
    seen.add(id);
    changes.push({
      operation: error.operation,
      location: error.operation === null ? "" : operationPointer(error.operation),
      kind: "type-break-unattributed",
      breaking: true,
      typeBreak: true,
      message: `Code written for the old contract no longer compiles${error.field === "" ? "" : ` at \`${error.field}\``}, and no single change explains it: ${error.message}`,
      field: error.field,
      direction: /^(data|error)\b/.test(error.field) ? "response" : "request",
      bump: "major",
    });
  }
  // The compile is the proof: a change that breaks it is breaking, whatever its rule said.
  for (const change of changes) {
    if (change.typeBreak && !change.breaking) {
      change.breaking = true;
      change.bump = "major";
    }
  }
  return changes;
}
