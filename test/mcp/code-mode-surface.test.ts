/**
 * Code mode's surface: the declarations an agent's code is checked against
 * (generated/code-mode-declarations.ts) and the stubs the sandbox builds (src/mcp/code/prelude.ts)
 * agree with each other and with the contract, for every operation: the same method names, the
 * same arguments, a paginated list an async generator in both; nothing else on `store`. And
 * what code mode says when TypeScript or QuickJS cannot serve it.
 */
import ts from "typescript";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { contractModel } from "../../scripts/contract-model.js";
import { loadContractFile } from "../../scripts/load-contract.js";
import { isPaginated } from "../../scripts/samples.js";
import { declarationFiles } from "../../generated/code-mode-declarations.js";
import { loadQuickJS, runInSandbox } from "../../src/mcp/code/sandbox.js";
import { loadTypeScript } from "../../src/mcp/code/typecheck.js";

interface Method {
  name: string;
  arity: number;
  paginated: boolean;
}

const byName = (a: Method, b: Method) => (a.name < b.name ? -1 : 1);

/** Every operation as the contract has it: its method name, its arguments (path parameters, then body and query), whether it pages. */
function fromContract(): Method[] {
  const model = contractModel(
    loadContractFile(fileURLToPath(new URL("../../openapi/store-admin.yaml", import.meta.url))),
  );
  return model.operations
    .map((op) => ({
      name: op.methodName,
      arity: op.pathParams.length + (op.body ? 1 : 0) + (op.hasQuery ? 1 : 0),
      paginated: isPaginated(model, op),
    }))
    .sort(byName);
}

/** Every method of the declared `store`, walked with the compiler: its parameters (an `options` must be `never`), and whether it returns an async generator. */
function fromDeclarations(): { methods: Method[]; options: string[] } {
  const root = "/code-mode/";
  const files = new Map(Object.entries(declarationFiles).map(([name, text]) => [`${root}${name}`, text]));
  files.set(`${root}probe.ts`, "export const probe = store;\n");
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib: ["lib.es2022.d.ts"],
    types: [],
    strict: true,
    noEmit: true,
  };
  const host = ts.createCompilerHost(options);
  const read = host.readFile.bind(host);
  host.readFile = (path) => files.get(path) ?? read(path);
  host.fileExists = (path) => files.has(path) || ts.sys.fileExists(path);
  host.directoryExists = (path) => path.startsWith(root.slice(0, -1)) || ts.sys.directoryExists(path);
  host.getSourceFile = (path, language) => {
    const text = host.readFile(path);
    return text === undefined ? undefined : ts.createSourceFile(path, text, language);
  };
  const program = ts.createProgram([...files.keys()], options, host);
  const diagnostics = ts
    .getPreEmitDiagnostics(program)
    .map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
  expect(diagnostics).toEqual([]);
  const checker = program.getTypeChecker();
  const probe = program.getSourceFile(`${root}probe.ts`)!;
  const declaration = (probe.statements[0] as ts.VariableStatement).declarationList.declarations[0]!;
  const methods: Method[] = [];
  const optionTypes: string[] = [];
  const walk = (type: ts.Type, path: string[]) => {
    for (const property of type.getProperties()) {
      const member = checker.getTypeOfSymbol(property);
      const [signature, ...more] = member.getCallSignatures();
      const name = [...path, property.name];
      if (signature === undefined) {
        walk(member, name);
        continue;
      }
      expect(more, name.join(".")).toEqual([]);
      const parameters = signature.getParameters();
      const last = parameters.at(-1);
      if (last?.name === "options") optionTypes.push(checker.typeToString(checker.getTypeOfSymbol(last)));
      const returns = checker.getReturnTypeOfSignature(signature);
      methods.push({
        name: name.join("."),
        arity: parameters.filter((p) => p.name !== "options").length,
        paginated: returns.getSymbol()?.name === "AsyncGenerator",
      });
    }
  };
  walk(checker.getTypeAtLocation(declaration.name), []);
  return { methods: methods.sort(byName), options: optionTypes };
}

/** Every stub the sandbox's `store` holds, walked inside the sandbox. */
async function fromSandbox(): Promise<{ methods: Method[]; top: string[] }> {
  const walk = `async function __codeModeMain() {
    const out = [];
    const walk = (node, path) => {
      for (const key of Object.keys(node)) {
        const value = node[key];
        if (typeof value === "function") out.push({ name: [...path, key].join("."), arity: value.length, paginated: value.constructor.name === "AsyncGeneratorFunction" });
        else walk(value, [...path, key]);
      }
    };
    walk(store, []);
    return { methods: out, top: Object.getOwnPropertyNames(store) };
  }`;
  const outcome = await runInSandbox(await loadQuickJS(), walk, () => Promise.reject(new Error("no call expected")), {
    cpuMs: 2_000,
    memoryBytes: 32 << 20,
    stackBytes: 256 << 10,
    logChars: 0,
  });
  const value = JSON.parse(outcome.value!) as { methods: Method[]; top: string[] };
  return { methods: value.methods.sort(byName), top: value.top };
}

describe("code mode's surface", () => {
  let contract: Method[];
  beforeAll(() => {
    contract = fromContract();
  });

  it("declares every operation of the contract, and nothing else, with its arguments and no per-call options", () => {
    const { methods, options } = fromDeclarations();
    expect(methods).toEqual(contract);
    // Every method's per-call options can only be left out.
    expect(options).toHaveLength(contract.length);
    expect(new Set(options)).toEqual(new Set(["undefined"]));
  });

  it("builds a stub in the sandbox for every operation, and nothing else: no GET, paginate, use or fetch", async () => {
    const { methods, top } = await fromSandbox();
    expect(methods).toEqual(contract);
    expect(top.sort()).toEqual([...new Set(contract.map((m) => m.name.split(".")[0]!))].sort());
  });
});

describe("what code mode needs installed", () => {
  it("names TypeScript 5 when typescript is missing", async () => {
    await expect(loadTypeScript("typescript-missing-for-this-test")).rejects.toThrow(
      "Code mode type-checks the agent's code with TypeScript's compiler API, and typescript is not installed. Install TypeScript 5 beside store-admin-sdk: npm install typescript@5",
    );
  });

  it("names TypeScript 5 when the installed one is TypeScript 7, which has no in-process compiler API", async () => {
    await expect(loadTypeScript("typescript7")).rejects.toThrow(
      "Code mode type-checks the agent's code with TypeScript's in-process compiler API, which the installed typescript 7.0.2 does not have (TypeScript 7's native compiler has none). Install TypeScript 5 beside store-admin-sdk: npm install typescript@5",
    );
  });

  it("names quickjs-emscripten when it is missing", async () => {
    await expect(loadQuickJS("quickjs-emscripten-missing-for-this-test")).rejects.toThrow(
      "Code mode runs the agent's code in QuickJS (WebAssembly), and quickjs-missing-for-this-test is not installed.".replace(
        "quickjs-missing-for-this-test",
        "quickjs-emscripten",
      ),
    );
  });
});
