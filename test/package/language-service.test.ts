/**
 * What an editor shows a user of the packed package: TypeScript's language service (what VS
 * Code asks) over a consumer file in a fresh project with the tarball installed, under
 * `strict` and `exactOptionalPropertyTypes`. Quick info on a method (summary, description,
 * scope, parameters, the named return type, errors, an example from docs/samples/), on a
 * result (the contract's name), on body and response fields (description and limits);
 * completions after `store.` (each resource documented); signature help inside a call.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createConsumerProject, ROOT, type ConsumerProject } from "./tarball.js";

const SETUP_TIMEOUT_MS = 300_000;

/** The consumer's code; `/*name*\/` marks the position right after it. */
const SOURCE = `import { createStoreAdminClient } from "store-admin-sdk";

const store = createStoreAdminClient({ baseUrl: "https://shop.example.com", accessToken: "token" });

export async function editing(): Promise<void> {
  const /*user*/user = await store.users./*retrieve*/retrieve(42);
  const /*dispute*/dispute = await store.disputes.retrieve(7);
  const /*order*/order = await store.orders.lines.update("100234", 3301, { /*quantity*/quantity: 1 });
  await store.products.images.create(1201, { /*caption*/caption: "The 1 kg bag" });
  await store.users.update(42, { /*language*/language: "sv" });
  console.log(user./*email*/email, user./*id*/id, dispute.id, order.number);
  for await (const /*listed*/listed of store.users./*list*/list({ is_blocked: false })) console.log(listed.id);
  await store.users.addresses.update(42, /*signature*/7, { country: "SE", line1: "Drottninggatan 12", line4: "Stockholm" });
  store./*members*/users;
  await store.GET(/*path*/"/users/{id}/", { params: { path: { id: 42 } } });
}
`;

let project: ConsumerProject | undefined;
let service: ts.LanguageService;
let file: string;

/** The offset right after the marker `/*name*\/`. */
function at(name: string): number {
  const marker = `/*${name}*/`;
  const index = SOURCE.indexOf(marker);
  if (index < 0) throw new Error(`no marker ${marker}`);
  return index + marker.length;
}

const text = (parts: readonly ts.SymbolDisplayPart[] | undefined) => ts.displayPartsToString([...(parts ?? [])]);

function quickInfo(name: string): { display: string; documentation: string; tags: string[] } {
  const info = service.getQuickInfoAtPosition(file, at(name));
  if (!info) throw new Error(`no quick info at /*${name}*/`);
  return {
    display: text(info.displayParts),
    documentation: text(info.documentation),
    tags: (info.tags ?? []).map((tag) => `@${tag.name} ${text(tag.text)}`),
  };
}

beforeAll(async () => {
  project = await createConsumerProject();
  file = join(project.dir, "editor.ts");
  await writeFile(file, SOURCE);
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ["lib.es2022.d.ts", "lib.dom.d.ts", "lib.dom.asynciterable.d.ts"],
    types: [],
    strict: true,
    exactOptionalPropertyTypes: true,
    noEmit: true,
  };
  const host: ts.LanguageServiceHost = {
    getCompilationSettings: () => options,
    getScriptFileNames: () => [file],
    getScriptVersion: () => "1",
    getScriptSnapshot: (name) => {
      const content = ts.sys.readFile(name);
      return content === undefined ? undefined : ts.ScriptSnapshot.fromString(content);
    },
    getCurrentDirectory: () => project!.dir,
    getDefaultLibFileName: (settings) => ts.getDefaultLibFilePath(settings),
    fileExists: ts.sys.fileExists,
    readFile: ts.sys.readFile,
    readDirectory: ts.sys.readDirectory,
    directoryExists: ts.sys.directoryExists,
    getDirectories: ts.sys.getDirectories,
    realpath: ts.sys.realpath!,
  };
  service = ts.createLanguageService(host, ts.createDocumentRegistry());
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  service?.dispose();
  await project?.remove();
});

describe("what an editor shows over the packed package (TypeScript language service)", () => {
  it("the consumer file has no errors, under strict and exactOptionalPropertyTypes", () => {
    const diagnostics = [...service.getSyntacticDiagnostics(file), ...service.getSemanticDiagnostics(file)];
    expect(diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"))).toEqual([]);
  });

  it("hover on a method: summary, description, scope, parameters, the named return type, errors and an example", async () => {
    const info = quickInfo("retrieve");
    expect(info.display).toBe(
      "(method) UsersMethods.retrieve(id: number, options?: MethodOptions): ResponsePromise<User>",
    );
    expect(info.documentation).toContain("Retrieve a customer.");
    expect(info.documentation).toContain("Returns one customer with their addresses.");
    expect(info.documentation).toContain("Requires the scope `users:read`.");
    expect(info.tags).toContain("@param id Customer id.");
    expect(
      info.tags.some((tag) =>
        tag.startsWith("@param options Per-call `signal`, `headers`, `timeoutMs` and `maxRetries`"),
      ),
    ).toBe(true);
    expect(info.tags).toContain(
      "@returns Resolves to the `User`; `.withResponse()` adds the `Response` and its request id, `.asResponse()` gives the `Response` unread.",
    );
    expect(info.tags).toContain("@throws {NotFoundError} 404: there is no such resource.");
    expect(info.tags).toContain("@throws {PermissionDeniedError} 403: the token lacks the scope.");
    // The example is the operation's sample from docs/samples/, without its set-up.
    const sample = await readFile(join(ROOT, "docs", "samples", "getUser.ts"), "utf8");
    const example = info.tags.find((tag) => tag.startsWith("@example"));
    expect(example).toContain("const customer = await store.users.retrieve(42);");
    expect(sample).toContain("const customer = await store.users.retrieve(42);");
    expect(example).not.toContain("createStoreAdminClient");
  });

  it("hover on a list method: an async iterable of the named item type", () => {
    const info = quickInfo("list");
    expect(info.display).toBe(
      "(method) UsersMethods.list(query?: ListUsersQuery, options?: MethodOptions): AsyncGenerator<User, void, undefined>",
    );
    expect(info.documentation).toContain("List customers.");
    expect(info.tags.find((tag) => tag.startsWith("@returns"))).toMatch(/async iterable of every `User`/);
    expect(quickInfo("listed").display).toBe("const listed: User");
  });

  it("hover on a result: the contract's name, not an expanded object", () => {
    expect(quickInfo("user").display).toBe("const user: User");
    expect(quickInfo("dispute").display).toBe("const dispute: Dispute");
    expect(quickInfo("order").display).toBe("const order: Order");
  });

  // openapi-typescript writes a field's description as a `@description` tag, which editors
  // show under the type: the field's hover text is its documentation and its tags.
  const fieldDoc = (name: string) => {
    const info = quickInfo(name);
    return [info.documentation, ...info.tags].filter(Boolean).join("\n");
  };

  it("hover on a body field: its description and its limits", () => {
    expect(quickInfo("caption").display).toBe("(property) caption?: string");
    expect(fieldDoc("caption")).toBe("@description At most 200 characters.");
    expect(fieldDoc("quantity")).toBe("@description The new quantity. At least 0.");
    expect(fieldDoc("language")).toContain('One of `"en"`, `"fr"`');
  });

  it("hover on a response field: may be null, read-only", () => {
    expect(fieldDoc("email")).toBe("Format: email\n@description May be null.");
    expect(fieldDoc("id")).toBe("@description Read-only (set by the store).");
  });

  it("completions after `store.` list the resources, each with a line of documentation", () => {
    const completions = service.getCompletionsAtPosition(file, at("members"), {});
    const names = completions?.entries.map((entry) => entry.name) ?? [];
    const resources = [
      "users",
      "giftCards",
      "products",
      "stockRecords",
      "disputes",
      "gateways",
      "orders",
      "subscriptions",
      "tickets",
    ];
    for (const name of [...resources, "GET", "POST", "paginate"]) expect(names).toContain(name);
    for (const name of resources) {
      const details = service.getCompletionEntryDetails(file, at("members"), name, {}, undefined, undefined, undefined);
      expect(text(details?.documentation), name).toMatch(new RegExp(`^\`store\\.${name}\`: \`\\w+\``));
    }
    const users = service.getCompletionEntryDetails(file, at("members"), "users", {}, undefined, undefined, undefined);
    expect(text(users?.displayParts)).toBe("(property) OperationMethods.users: UsersMethods");
    expect(text(users?.documentation)).toContain("`retrieve` (Retrieve a customer)");
  });

  it("path-string completions list the paths; TypeScript gives a string literal no documentation", () => {
    // Inside the string, right after its opening quote.
    const completions = service.getCompletionsAtPosition(file, at("path") + 1, {});
    const names = completions?.entries.map((entry) => entry.name) ?? [];
    expect(names).toContain("/users/{id}/");
    expect(names).toContain("/gift-cards/");
    // The details of a string-literal completion are the literal itself: the language service
    // has no place for the operation's summary there (it is on the methods instead).
    const details = service.getCompletionEntryDetails(
      file,
      at("path") + 1,
      "/users/{id}/",
      {},
      undefined,
      undefined,
      undefined,
    );
    expect(text(details?.displayParts)).toBe("/users/{id}/");
    expect(text(details?.documentation)).toBe("");
  });

  it("signature help inside a call: the parameters by name, the active one documented", () => {
    const help = service.getSignatureHelpItems(file, at("signature"), undefined);
    expect(help?.items).toHaveLength(1);
    const item = help!.items[0]!;
    expect(item.parameters.map((parameter) => text(parameter.displayParts))).toEqual([
      "id: number",
      "addressId: number",
      "body: AddressUpdate",
      "options?: MethodOptions",
    ]);
    expect(help!.argumentIndex).toBe(1);
    expect(text(item.parameters[1]!.documentation)).toBe("A unique integer identifying the user address.");
    expect(text(item.documentation)).toContain("Update a customer address.");
    expect(text(item.suffixDisplayParts)).toBe("): ResponsePromise<Address>");
  });
});
