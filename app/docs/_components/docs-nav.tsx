"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { DOC_PAGES, OPENAPI_PATH, REFERENCE_PATH } from "@/lib/docs/pages";

/** The documentation's pages, the current one marked for assistive technology. */
export function DocsNav() {
  const pathname = usePathname();
  const current = (path: string) => (pathname === path ? ("page" as const) : undefined);
  return (
    <nav className="docs-nav" aria-label="Documentation">
      <p>
        <strong>Partner docs</strong>
      </p>
      <ul>
        {DOC_PAGES.map((page) => (
          <li key={page.path}>
            <Link href={page.path} aria-current={current(page.path)}>
              {page.title}
            </Link>
          </li>
        ))}
        <li>
          <Link href={REFERENCE_PATH} aria-current={current(REFERENCE_PATH)}>
            API reference
          </Link>
        </li>
        <li>
          <a href={OPENAPI_PATH}>OpenAPI document</a>
        </li>
      </ul>
    </nav>
  );
}
