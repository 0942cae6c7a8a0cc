import { useSyncExternalStore } from "react";

const subscribeToNothing = () => () => {};

/** False in the server's rendering and during hydration, true once the script runs. */
export function useScripted(): boolean {
  return useSyncExternalStore(
    subscribeToNothing,
    () => true,
    () => false,
  );
}
