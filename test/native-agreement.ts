import { nativeAgreement, type NativeAgreement } from "../lib/crypto/p256-agree";

/**
 * The native P-256 key agreement, which the tests require: `npm install`
 * builds it (native/p256-agree) wherever a C compiler is present, as on CI.
 */
export function requireNativeAgreement(): NativeAgreement {
  const loaded = nativeAgreement();
  if (!loaded) {
    throw new Error(
      "the native P-256 key agreement is not built: install a C compiler (Debian: make g++ python3) and run npm install",
    );
  }
  return loaded;
}
