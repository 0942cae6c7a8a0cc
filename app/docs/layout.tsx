import type { Metadata } from "next";
import type { ReactNode } from "react";
import { ClientMessages } from "@/lib/i18n/client-messages";
import { DocsNav } from "./_components/docs-nav";

export const metadata: Metadata = { title: "Bank Connect partner documentation" };

export default async function DocsLayout({ children }: { children: ReactNode }) {
  return (
    <div className="docs" lang="en">
      <DocsNav />
      <main id="main" className="docs-main">
        {/* The copy buttons speak the visitor's language. */}
        <ClientMessages namespaces={["Docs"]}>{children}</ClientMessages>
      </main>
    </div>
  );
}
