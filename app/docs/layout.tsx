import type { Metadata } from "next";
import Link from "next/link";
import type { ReactNode } from "react";
import { DOC_PAGES, OPENAPI_PATH } from "@/lib/docs/pages";

export const metadata: Metadata = { title: "Bank Connect partner documentation" };

export default function DocsLayout({ children }: { children: ReactNode }) {
  return (
    <div className="docs">
      <nav className="docs-nav" aria-label="Documentation">
        <p>
          <strong>Partner docs</strong>
        </p>
        <ul>
          {DOC_PAGES.map((page) => (
            <li key={page.path}>
              <Link href={page.path}>{page.title}</Link>
            </li>
          ))}
          <li>
            <a href={OPENAPI_PATH}>OpenAPI document</a>
          </li>
        </ul>
      </nav>
      <main id="main" className="docs-main">
        {children}
      </main>
    </div>
  );
}
