import { rawSetting } from "../lib/env";
import {
  nativeAgreement,
  nativeAgreementUnavailable,
  type NativeAgreement,
} from "../lib/crypto/p256-agree";

/**
 * The native P-256 key agreement for the tests that exercise it, or null when
 * it is not available: `npm install` builds it (native/p256-agree) wherever a
 * C compiler is present. In CI (CI=true, as .ci/run sets) it is required and
 * its absence fails the test file; elsewhere those tests skip, and this says
 * why once per file.
 */
export function nativeAgreementForTests(file: string): NativeAgreement | null {
  const loaded = nativeAgreement();
  if (loaded) return loaded;
  const reason = nativeAgreementUnavailable() ?? "it does not load";
  if (rawSetting("CI") === "true") {
    throw new Error(`the native P-256 key agreement is required in CI: ${reason}`);
  }
  console.warn(
    `${file}: skipping the tests of the native P-256 key agreement, as the addon is not available: ${reason}`,
  );
  return null;
}
