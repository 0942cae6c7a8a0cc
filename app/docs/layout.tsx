import type { Metadata } from "next";
import type { ReactNode } from "react";
import { DocsNav } from "./_components/docs-nav";

export const metadata: Metadata = { title: "Bank Connect partner documentation" };

export default function DocsLayout({ children }: { children: ReactNode }) {
  return (
    <div className="docs" lang="en">
      <DocsNav />
      <main id="main" className="docs-main">
        {children}
      </main>
    </div>
  );
}
