/**
 * The error of a mock that would break the contract: a handler's reply whose status the
 * operation does not declare or whose body does not match that status's schema, or an
 * example of the contract that does not match its own schema.
 *
 * `mock.fetch` rejects with it. It is a `StoreAdminError`, so the SDK's client rethrows it
 * as it is, without retrying: the test fails at the call, with the operation and the field.
 */
import { StoreAdminError } from "#shared";

export class MockContractError extends StoreAdminError {
  override name = "MockContractError";
}
