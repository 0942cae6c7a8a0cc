import { redirect } from "next/navigation";

/**
 * Discovery's vendor block links `{DOCUMENTATION_URL}/partners` (the address
 * the published SDKs document); the partner docs start at /docs.
 */
export default function PartnersDocsPage() {
  redirect("/docs");
}
