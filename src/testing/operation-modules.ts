/**
 * An operation's facts and validators, loaded on its first request: the kit starts with the
 * operations' keys only, and each operation's module (`generated/testing/ops/<key>.ts`:
 * its examples, the precompiled validators of its requests, and its responses' validators,
 * `generated/validators/responses/<key>.ts`, the module response validation loads too)
 * is imported once, when a request first needs it (docs/architecture.md, "Cost per operation").
 */
import type { OperationKey } from "../../generated/operations.js";
import { mockOperations, type MockOperation, type Validator } from "../../generated/testing/operations.js";

/** An operation as the mock checks it: its facts and its validators, by name (`getUser_body`, `getUser_200`). */
export interface LoadedOperation extends MockOperation {
  validators: Readonly<Record<string, Validator>>;
}

const loaded = new Map<OperationKey, Promise<LoadedOperation>>();

/** The operation `key`'s module, imported on first need and kept (every mock shares it). */
export function loadOperation(key: OperationKey): Promise<LoadedOperation> {
  let module = loaded.get(key);
  if (!module) {
    module = mockOperations[key]().then(({ operation, validators, responses }) => ({
      ...operation,
      // A response's validator by the kit's name for it, `<operationId>_<status>`.
      validators: {
        ...validators,
        ...Object.fromEntries(
          Object.entries(responses).map(([status, validator]) => [`${operation.operationId}_${status}`, validator]),
        ),
      },
    }));
    // A failed import (a chunk the server did not send) is tried again by the next request.
    module.catch(() => loaded.delete(key));
    loaded.set(key, module);
  }
  return module;
}
