"use client";

import { createContext, useCallback, useContext, useMemo, useState, type ReactNode } from "react";

interface EndedAccess {
  /** Partners whose access was ended on this page since it loaded. */
  ended: ReadonlySet<string>;
  markEnded: (partnerId: string) => void;
}

const Context = createContext<EndedAccess>({ ended: new Set(), markEnded: () => {} });

/**
 * What "End access" changed, for the rest of the page: the connected banks
 * made for that partner say at once that it no longer reads them.
 */
export function EndedAccessProvider({ children }: { children: ReactNode }) {
  const [ended, setEnded] = useState<ReadonlySet<string>>(() => new Set());
  const markEnded = useCallback(
    (partnerId: string) => setEnded((before) => new Set(before).add(partnerId)),
    [],
  );
  const value = useMemo(() => ({ ended, markEnded }), [ended, markEnded]);
  return <Context.Provider value={value}>{children}</Context.Provider>;
}

export const useEndedAccess = () => useContext(Context);
