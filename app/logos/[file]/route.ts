import { handleLogoRequest } from "@/lib/partners/logos";

export const dynamic = "force-dynamic";

/** SPEC 2.5: partner logos are served from the service's own host, by content hash. */
export async function GET(request: Request, context: { params: Promise<{ file: string }> }) {
  const { file } = await context.params;
  return handleLogoRequest(request, file);
}
