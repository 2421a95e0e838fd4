/**
 * The return type of every operation method a generated `methods.ts` declares, as the
 * TypeScript checker sees it: what a caller's editor shows, `any` included if it crept in.
 */
import ts from "typescript";

export interface MethodReturn {
  /** `widgets.comments.create`. */
  name: string;
  /** The return type as written out (`Promise<Widget>`). */
  text: string;
  /** Whether the value it resolves to, or yields, is `any`. */
  isAny: boolean;
}

/** Walks `OperationMethods` of `methodsFile` (compiled with the project's own `tsconfig`, found by `ts`). */
export function methodReturnTypes(methodsFile: string): MethodReturn[] {
  const program = ts.createProgram([methodsFile], {
    strict: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ["lib.es2022.d.ts", "lib.dom.d.ts"],
    types: [],
    noEmit: true,
  });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(methodsFile);
  const moduleSymbol = source && checker.getSymbolAtLocation(source);
  const root =
    moduleSymbol && checker.getExportsOfModule(moduleSymbol).find((symbol) => symbol.name === "OperationMethods");
  if (!source || !root) throw new Error(`${methodsFile} exports no OperationMethods`);
  const out: MethodReturn[] = [];
  const visit = (type: ts.Type, prefix: string): void => {
    for (const property of type.getProperties()) {
      const propertyType = checker.getTypeOfSymbolAtLocation(property, source);
      const signatures = propertyType.getCallSignatures();
      if (signatures.length === 0) {
        visit(propertyType, `${prefix}${property.name}.`);
        continue;
      }
      for (const signature of signatures) {
        const returned = signature.getReturnType();
        // A Promise's value, or what an async generator yields.
        const value =
          checker.getAwaitedType(returned) === returned
            ? (checker.getTypeArguments(returned as ts.TypeReference)[0] ?? returned)
            : checker.getAwaitedType(returned)!;
        out.push({
          name: `${prefix}${property.name}`,
          text: checker.typeToString(returned, undefined, ts.TypeFormatFlags.NoTruncation),
          isAny: (returned.flags & ts.TypeFlags.Any) !== 0 || (value.flags & ts.TypeFlags.Any) !== 0,
        });
      }
    }
  };
  visit(checker.getDeclaredTypeOfSymbol(root), "");
  return out;
}
