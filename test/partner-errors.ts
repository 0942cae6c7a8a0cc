import { expect } from "vitest";
import { PartnerError } from "../lib/partners/errors";

/** Awaits a promise that must reject with a PartnerError of this code. */
export async function expectPartnerError(
  promise: Promise<unknown>,
  code: PartnerError["code"],
): Promise<PartnerError> {
  const error = await promise.then(
    () => null,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(PartnerError);
  expect((error as PartnerError).code).toBe(code);
  return error as PartnerError;
}
