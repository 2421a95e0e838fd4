/**
 * The spec-coverage checks: each takes the parsed contract (and a row of `spec-tables.ts`)
 * and returns the problems it finds, each naming the operation and field it is about; an
 * empty list means the contract agrees with the spec. Returning problems rather than
 * asserting lets the tests show the same functions report a damaged copy.
 */
import {
  admittedTypes,
  admittedValues,
  admitsType,
  isNode,
  type Node,
  type OpenApiDoc,
  type Operation,
} from "./openapi-doc.js";
import {
  type ParamType,
  type OperationRow,
  OPERATIONS,
  SCOPE_TABLE,
  type QueryParamRow,
  QUERY_PARAMS,
  type LimitRow,
  type BodyRow,
  type EnumRow,
  type ValuesSeenRow,
  VERSION_HEADER,
  API_VERSION,
  SECURITY_SCHEME,
} from "./spec-tables.js";

function rowFor(operationId: string): OperationRow {
  const row = OPERATIONS.find((r) => r.operationId === operationId);
  if (row === undefined) throw new Error(`no fixture row for ${operationId}`);
  return row;
}

export function scopeOf(row: OperationRow): string[] {
  const key = `${row.method} ${row.path}`;
  return SCOPE_TABLE.filter(([, usedBy]) => usedBy.includes(key)).map(([scope]) => scope);
}

export function label(operationId: string): string {
  const row = rowFor(operationId);
  return `${operationId} (${row.method} ${row.path})`;
}

/** The operation at the row's method + path, or a problem saying it is missing. */
export function findOperation(doc: OpenApiDoc, operationId: string): Operation | string {
  const row = rowFor(operationId);
  return doc.operation(row.method, row.path) ?? `${label(operationId)}: operation missing from paths`;
}

function show(value: unknown): string {
  return value === undefined ? "absent" : JSON.stringify(value);
}

function sameValues(
  actual: readonly unknown[],
  expected: readonly unknown[],
): { missing: unknown[]; extra: unknown[] } {
  const key = (v: unknown) => JSON.stringify(v);
  const a = new Set(actual.map(key));
  const e = new Set(expected.map(key));
  return {
    missing: expected.filter((v) => !a.has(key(v))),
    extra: actual.filter((v) => !e.has(key(v))),
  };
}

function unique(problems: string[]): string[] {
  return [...new Set(problems)];
}

/** The type a set of alternatives declares, for messages. */
function describeTypes(leaves: readonly Node[]): string {
  return leaves
    .map((leaf) => {
      const types = admittedTypes(leaf);
      return types === "any" ? "any" : [...types].join("|");
    })
    .join(" or ");
}

/** Every alternative must be typed, and its types other than null must be exactly `expected`. */
function typeProblems(leaves: readonly Node[], expected: ParamType, where: string): string[] {
  if (leaves.length === 0) return [`${where}: schema admits nothing`];
  const problems: string[] = [];
  if (!leaves.some((leaf) => admitsType(leaf, expected))) problems.push(`${where}: does not admit ${expected}`);
  for (const leaf of leaves) {
    const types = admittedTypes(leaf);
    const nonNull = types === "any" ? ["any"] : [...types].filter((t) => t !== "null");
    if (nonNull.length === 0) continue;
    if (nonNull.length !== 1 || nonNull[0] !== expected) {
      problems.push(`${where}: type is ${describeTypes(leaves)}, spec says ${expected}`);
    }
  }
  return unique(problems);
}

function enumProblems(leaves: readonly Node[], expected: readonly unknown[], where: string): string[] {
  const admitted = admittedValues(leaves);
  if (admitted === "open") return [`${where}: not an enum (admits values beyond ${show(expected)})`];
  const { missing, extra } = sameValues(admitted, expected);
  const problems: string[] = [];
  if (missing.length > 0) problems.push(`${where}: enum lacks ${show(missing)}`);
  if (extra.length > 0) problems.push(`${where}: enum has values the spec does not give: ${show(extra)}`);
  return problems;
}

/** Item 1: the exact set of method + path pairs. */
export function operationSetProblems(doc: OpenApiDoc): string[] {
  const expected = OPERATIONS.map((r) => `${r.method} ${r.path}`);
  const actual = doc.operations().map((o) => `${o.method.toUpperCase()} ${o.path}`);
  return [
    ...expected.filter((k) => !actual.includes(k)).map((k) => `${k}: operation missing from paths (spec part 4)`),
    ...actual.filter((k) => !expected.includes(k)).map((k) => `${k}: operation not in spec part 4`),
  ];
}

/** Item 1: operationId, summary, description, one tag, exactly the part-5 scope. */
export function operationProblems(doc: OpenApiDoc, operationId: string): string[] {
  const found = findOperation(doc, operationId);
  if (typeof found === "string") return [found];
  const { op } = found;
  const where = label(operationId);
  const problems: string[] = [];
  if (op.operationId !== operationId) problems.push(`${where}: operationId is ${show(op.operationId)}`);
  if (typeof op.summary !== "string" || op.summary.trim() === "") problems.push(`${where}: no summary`);
  if (typeof op.description !== "string" || op.description.trim() === "") problems.push(`${where}: no description`);
  if (!Array.isArray(op.tags) || op.tags.length !== 1 || typeof op.tags[0] !== "string") {
    problems.push(`${where}: tags is ${show(op.tags)}, expected exactly one tag`);
  }
  const scopes = scopeOf(rowFor(operationId));
  const expectedSecurity = [{ [SECURITY_SCHEME]: scopes }];
  if (JSON.stringify(op.security) !== JSON.stringify(expectedSecurity)) {
    problems.push(`${where}: security is ${show(op.security)}, spec part 5 says ${show(expectedSecurity)}`);
  }
  return problems;
}

export function securitySchemeProblems(doc: OpenApiDoc): string[] {
  const components = isNode(doc.raw.components) ? doc.raw.components : {};
  const schemes = isNode(components.securitySchemes) ? components.securitySchemes : {};
  const scheme = doc.resolveNode(schemes[SECURITY_SCHEME]);
  const problems: string[] = [];
  if (scheme.type !== "http")
    problems.push(`securitySchemes.${SECURITY_SCHEME}: type is ${show(scheme.type)}, expected "http" (spec 5.1)`);
  if (typeof scheme.scheme !== "string" || scheme.scheme.toLowerCase() !== "bearer") {
    problems.push(`securitySchemes.${SECURITY_SCHEME}: scheme is ${show(scheme.scheme)}, expected "bearer" (spec 5.1)`);
  }
  return problems;
}

/** Item 2: path parameters, required, with the spec's types. */
export function pathParamProblems(doc: OpenApiDoc, operationId: string): string[] {
  const found = findOperation(doc, operationId);
  if (typeof found === "string") return [found];
  const where = label(operationId);
  const expected = rowFor(operationId).pathParams;
  const declared = doc.effectiveParameters(found).filter((p) => p.in === "path");
  const problems: string[] = [];
  for (const [name, type] of Object.entries(expected)) {
    const param = declared.find((p) => p.name === name);
    if (param === undefined) {
      problems.push(`${where}: path parameter ${name} missing`);
      continue;
    }
    if (param.required !== true) problems.push(`${where}: path parameter ${name} is not required: true`);
    problems.push(...typeProblems(doc.variants(param.schema), type, `${where} path parameter ${name}`));
  }
  for (const param of declared) {
    if (!(String(param.name) in expected)) problems.push(`${where}: path parameter ${String(param.name)} not in spec`);
  }
  return problems;
}

export function queryParam(doc: OpenApiDoc, operation: Operation, name: string): Node | undefined {
  return doc.effectiveParameters(operation).find((p) => p.in === "query" && p.name === name);
}

/** Item 3: one query parameter of a list operation. */
export function queryParamProblems(doc: OpenApiDoc, row: QueryParamRow): string[] {
  const found = findOperation(doc, row.operationId);
  if (typeof found === "string") return [found];
  const where = `${label(row.operationId)} query parameter ${row.name}`;
  const param = queryParam(doc, found, row.name);
  if (param === undefined) return [`${where}: missing`];
  const problems: string[] = [];
  if (param.required === true) problems.push(`${where}: required, spec says optional`);
  if (param.schema === undefined) return [...problems, `${where}: no schema`];
  const leaves = doc.variants(param.schema);
  problems.push(...typeProblems(leaves, row.type, where));
  if (row.format !== undefined) {
    for (const leaf of leaves.filter((l) => admitsType(l, "string"))) {
      if (leaf.format !== row.format)
        problems.push(`${where}: format is ${show(leaf.format)}, spec says ${row.format}`);
    }
  }
  if (row.enum !== undefined) problems.push(...enumProblems(leaves, row.enum, where));
  return unique(problems);
}

/** Item 3: a list operation has exactly the spec's query parameters. */
export function queryParamSetProblems(doc: OpenApiDoc, operationId: string): string[] {
  const found = findOperation(doc, operationId);
  if (typeof found === "string") return [found];
  const expected = QUERY_PARAMS.filter((r) => r.operationId === operationId).map((r) => r.name);
  const actual = doc
    .effectiveParameters(found)
    .filter((p) => p.in === "query")
    .map((p) => String(p.name));
  const { missing, extra } = sameValues(actual, expected);
  return [
    ...missing.map((n) => `${label(operationId)}: query parameter ${String(n)} missing`),
    ...extra.map((n) => `${label(operationId)}: query parameter ${String(n)} not in spec`),
  ];
}

/** The schemas a request body property has (across `allOf`/`oneOf`/`anyOf`), or a problem. */
function bodyProperty(
  doc: OpenApiDoc,
  operationId: string,
  field: string,
  mediaType = "application/json",
): { where: string; schemas: unknown[] } | string {
  const where = `${label(operationId)} request body (${mediaType}) .${field}`;
  const found = findOperation(doc, operationId);
  if (typeof found === "string") return found;
  const body = doc.requestBodySchema(found, mediaType);
  if (body === undefined) return `${label(operationId)}: no ${mediaType} request body schema`;
  const schemas = doc.findProperty(body, field);
  if (schemas.length === 0) return `${where}: property missing`;
  return { where, schemas };
}

/** Item 4: one limit of spec part 8 on a request body. */
export function limitProblems(doc: OpenApiDoc, row: LimitRow): string[] {
  const prop = bodyProperty(doc, row.operationId, row.field);
  if (typeof prop === "string") return [prop];
  const { where, schemas } = prop;
  const leaves = schemas.flatMap((s) => doc.variants(s));
  const problems: string[] = [];
  const limit = row.limit;
  if ("maxLength" in limit) {
    const strings = leaves.filter((l) => admitsType(l, "string"));
    if (strings.length === 0) problems.push(`${where}: does not admit strings`);
    for (const leaf of strings) {
      if (leaf.maxLength !== limit.maxLength) {
        problems.push(`${where}: maxLength is ${show(leaf.maxLength)}, spec part 8 says ${limit.maxLength}`);
      }
    }
  } else {
    const numbers = leaves.filter((l) => admitsType(l, "integer"));
    if (numbers.length === 0) problems.push(`${where}: does not admit integers`);
    for (const leaf of numbers) {
      const types = admittedTypes(leaf);
      if (types === "any" || types.has("number"))
        problems.push(`${where}: type is ${describeTypes([leaf])}, spec says integer`);
      if (leaf.minimum !== limit.minimum)
        problems.push(`${where}: minimum is ${show(leaf.minimum)}, spec part 8 says ${limit.minimum}`);
      if (limit.maximum !== undefined && leaf.maximum !== limit.maximum) {
        problems.push(`${where}: maximum is ${show(leaf.maximum)}, spec part 8 says ${limit.maximum}`);
      }
    }
  }
  return unique(problems);
}

/** Item 5: a request body's required fields, exactly. */
export function requiredProblems(doc: OpenApiDoc, row: BodyRow): string[] {
  const found = findOperation(doc, row.operationId);
  if (typeof found === "string") return [found];
  const where = `${label(row.operationId)} request body (${row.mediaType})`;
  const body = doc.requestBodySchema(found, row.mediaType);
  if (body === undefined) return [`${where}: missing`];
  const problems: string[] = [];
  if (row.required.length > 0) {
    const requestBody = doc.resolveNode(found.op.requestBody);
    if (requestBody.required !== true)
      problems.push(
        `${where}: requestBody.required is ${show(requestBody.required)}, but the body has required fields`,
      );
  }
  for (const variant of doc.variants(body)) {
    const required = Array.isArray(variant.required) ? variant.required : [];
    const { missing, extra } = sameValues(required, row.required);
    if (missing.length > 0) problems.push(`${where}: ${show(missing)} not required, spec says required`);
    if (extra.length > 0) problems.push(`${where}: ${show(extra)} required, spec says optional`);
  }
  return unique(problems);
}

/** Item 5: a request body declares the spec's fields; any other property must be readOnly. */
export function bodyFieldProblems(doc: OpenApiDoc, row: BodyRow): string[] {
  const found = findOperation(doc, row.operationId);
  if (typeof found === "string") return [found];
  const where = `${label(row.operationId)} request body (${row.mediaType})`;
  const body = doc.requestBodySchema(found, row.mediaType);
  if (body === undefined) return [`${where}: missing`];
  const declared = new Set<string>();
  for (const variant of doc.variants(body)) {
    if (isNode(variant.properties)) Object.keys(variant.properties).forEach((name) => declared.add(name));
  }
  const problems = row.fields.filter((f) => !declared.has(f)).map((f) => `${where} .${f}: property missing`);
  for (const name of declared) {
    if (row.fields.includes(name)) continue;
    const readOnly = doc.findProperty(body, name).every((s) => doc.variants(s).every((leaf) => leaf.readOnly === true));
    if (!readOnly) problems.push(`${where} .${name}: writable property not in spec part 4`);
  }
  return problems;
}

/** Item 5: the multipart `files` field is a binary file (or an array of them). */
export function multipartFilesProblems(doc: OpenApiDoc): string[] {
  const prop = bodyProperty(doc, "createTicketAttachment", "files", "multipart/form-data");
  if (typeof prop === "string") return [prop];
  const leaves = prop.schemas.flatMap((s) => doc.variants(s));
  const files = leaves.flatMap((leaf) => (leaf.items !== undefined ? doc.variants(leaf.items) : [leaf]));
  const problems: string[] = [];
  if (!files.some((leaf) => leaf.format === "binary")) problems.push(`${prop.where}: no format: binary`);
  for (const leaf of files) {
    if (admitsType(leaf, "string") && leaf.format !== "binary")
      problems.push(`${prop.where}: a string alternative without format: binary`);
  }
  return unique(problems);
}

/** Item 6: an enumeration on the request side, exactly. */
export function enumRowProblems(doc: OpenApiDoc, row: EnumRow): string[] {
  if (row.where === "query") {
    const found = findOperation(doc, row.operationId);
    if (typeof found === "string") return [found];
    const param = queryParam(doc, found, row.field);
    if (param === undefined) return [`${row.label}: missing`];
    return enumProblems(doc.variants(param.schema), row.values, row.label);
  }
  const prop = bodyProperty(doc, row.operationId, row.field);
  if (typeof prop === "string") return [prop];
  return enumProblems(
    prop.schemas.flatMap((s) => doc.variants(s)),
    row.values,
    `${label(row.operationId)} request body .${row.field}`,
  );
}

/** Item 7: exactly one required version header admitting only 2024-04-01. */
export function versionHeaderProblems(doc: OpenApiDoc, operationId: string): string[] {
  const found = findOperation(doc, operationId);
  if (typeof found === "string") return [found];
  const where = `${label(operationId)} header ${VERSION_HEADER}`;
  // declared twice in one list (path item or operation) is an error the overlay would hide
  const perList = [found.pathItem.parameters, found.op.parameters].map(
    (list) =>
      (Array.isArray(list) ? list : [])
        .map((p) => doc.resolveNode(p))
        .filter((p) => p.in === "header" && String(p.name).toLowerCase() === VERSION_HEADER.toLowerCase()).length,
  );
  const headers = doc
    .effectiveParameters(found)
    .filter((p) => p.in === "header" && String(p.name).toLowerCase() === VERSION_HEADER.toLowerCase());
  const header = headers[0];
  if (header === undefined) return [`${where}: missing`];
  const problems: string[] = [];
  if (perList.some((n) => n > 1)) problems.push(`${where}: declared more than once`);
  if (header.name !== VERSION_HEADER) problems.push(`${where}: named ${show(header.name)}`);
  if (header.required !== true) problems.push(`${where}: not required: true (spec part 9)`);
  problems.push(...enumProblems(doc.variants(header.schema), [API_VERSION], where));
  return problems;
}

/** The 2xx `application/json` response schemas of an operation. */
export function responseSchemas(doc: OpenApiDoc, operation: Operation): Array<{ status: string; schema: unknown }> {
  return doc.successResponses(operation).flatMap(({ status, response }) => {
    const content = isNode(response.content) ? response.content : {};
    const media = content["application/json"];
    return isNode(media) && media.schema !== undefined ? [{ status, schema: media.schema }] : [];
  });
}

/** Item 7: the paginated envelope `{next, previous, results: [item]}`. */
export function envelopeProblems(doc: OpenApiDoc, operationId: string, item: string): string[] {
  const found = findOperation(doc, operationId);
  if (typeof found === "string") return [found];
  const schemas = responseSchemas(doc, found);
  if (schemas.length === 0) return [`${label(operationId)}: no 2xx application/json response schema`];
  const problems: string[] = [];
  for (const { status, schema } of schemas) {
    const where = `${label(operationId)} ${status} response`;
    for (const name of ["next", "previous", "results"]) {
      if (doc.schemasAt(schema, [name]).length === 0) problems.push(`${where}: property ${name} missing`);
    }
    for (const results of doc.schemasAt(schema, ["results"])) {
      for (const leaf of doc.variants(results)) {
        if (!admitsType(leaf, "array") || leaf.items === undefined) {
          problems.push(`${where}: results is not an array of ${item}`);
        } else if (!doc.referencedComponents(leaf.items).has(item)) {
          problems.push(`${where}: results items are not #/components/schemas/${item}`);
        }
      }
    }
  }
  return unique(problems);
}

/** Item 8: no closed object anywhere in the 2xx response schemas (DESIGN: tolerant responses). */
export function closedObjectProblems(doc: OpenApiDoc, operationId: string): string[] {
  const found = findOperation(doc, operationId);
  if (typeof found === "string") return [found];
  const problems: string[] = [];
  const visited = new Set<Node>();
  const walk = (node: unknown, path: string): void => {
    if (Array.isArray(node)) {
      node.forEach((n, i) => walk(n, `${path}[${i}]`));
      return;
    }
    if (!isNode(node) || visited.has(node)) return;
    visited.add(node);
    if (typeof node.$ref === "string") {
      const name = node.$ref.replace(/^#\/components\/schemas\//, "");
      walk(doc.resolveRef(node.$ref), `${path} → ${name}`);
    }
    if (node.additionalProperties === false) problems.push(`${path}: additionalProperties: false in a response schema`);
    if (node.unevaluatedProperties === false)
      problems.push(`${path}: unevaluatedProperties: false in a response schema`);
    for (const key of ["properties", "patternProperties", "dependentSchemas"]) {
      const map = node[key];
      if (isNode(map)) for (const [name, sub] of Object.entries(map)) walk(sub, `${path}.${name}`);
    }
    for (const key of ["additionalProperties", "unevaluatedProperties"]) walk(node[key], `${path}{*}`);
    for (const key of ["items", "prefixItems", "contains", "unevaluatedItems"]) walk(node[key], `${path}[]`);
    for (const key of ["allOf", "oneOf", "anyOf", "if", "then", "else"]) walk(node[key], path);
  };
  for (const { status, schema } of responseSchemas(doc, found))
    walk(schema, `${label(operationId)} ${status} response`);
  return problems;
}

function leavesHaveNoEnum(doc: OpenApiDoc, schemas: readonly unknown[], where: string): string[] {
  const problems: string[] = [];
  for (const leaf of schemas.flatMap((s) => doc.variants(s))) {
    if (Array.isArray(leaf.enum)) problems.push(`${where}: enum ${show(leaf.enum)}; spec 2.16 gives values seen only`);
    if ("const" in leaf) problems.push(`${where}: const ${show(leaf.const)}; spec 2.16 gives values seen only`);
    if (!admitsType(leaf, "string")) problems.push(`${where}: does not admit strings`);
  }
  return unique(problems);
}

/** Item 8: a 2.16 "values seen" field is present and is no enum or const, in the response and its component. */
export function valuesSeenProblems(doc: OpenApiDoc, row: ValuesSeenRow): string[] {
  const found = findOperation(doc, row.operationId);
  if (typeof found === "string") return [found];
  const problems: string[] = [];
  const inResponse = responseSchemas(doc, found).flatMap(({ schema }) => doc.schemasAt(schema, row.responsePath));
  const responseWhere = `${row.label} in ${label(row.operationId)} response (${row.responsePath.join(".")})`;
  if (inResponse.length === 0) problems.push(`${responseWhere}: field missing`);
  problems.push(...leavesHaveNoEnum(doc, inResponse, responseWhere));
  const components = isNode(doc.raw.components) ? doc.raw.components : {};
  const schemas = isNode(components.schemas) ? components.schemas : {};
  const componentWhere = `${row.label} in #/components/schemas/${row.component} (${row.componentPath.join(".")})`;
  if (!(row.component in schemas)) {
    problems.push(`#/components/schemas/${row.component}: missing`);
  } else {
    const inComponent = doc.schemasAt(schemas[row.component], row.componentPath);
    if (inComponent.length === 0) problems.push(`${componentWhere}: field missing`);
    problems.push(...leavesHaveNoEnum(doc, inComponent, componentWhere));
  }
  return problems;
}

/** Item 8: every 2xx response has a JSON schema and an example on each media type. */
export function exampleProblems(doc: OpenApiDoc, operationId: string): string[] {
  const found = findOperation(doc, operationId);
  if (typeof found === "string") return [found];
  const responses = doc.successResponses(found);
  if (responses.length === 0) return [`${label(operationId)}: no 2xx response`];
  const problems: string[] = [];
  for (const { status, response } of responses) {
    const where = `${label(operationId)} ${status} response`;
    const content = isNode(response.content) ? response.content : {};
    if (!isNode(content["application/json"])) problems.push(`${where}: no application/json content`);
    for (const [mediaType, media] of Object.entries(content)) {
      const m = isNode(media) ? media : {};
      if (m.schema === undefined) problems.push(`${where} ${mediaType}: no schema`);
      const examples = isNode(m.examples) ? Object.entries(m.examples) : [];
      if (m.example === undefined && examples.length === 0)
        problems.push(`${where} ${mediaType}: no example or examples`);
      for (const [name, example] of examples) {
        let resolved: unknown;
        try {
          resolved = doc.resolve(example);
        } catch (error) {
          problems.push(`${where} ${mediaType} examples.${name}: ${(error as Error).message}`);
          continue;
        }
        if (!isNode(resolved) || (!("value" in resolved) && !("externalValue" in resolved))) {
          problems.push(`${where} ${mediaType} examples.${name}: no value`);
        }
      }
    }
  }
  return problems;
}
