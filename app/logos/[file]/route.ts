import { handleLogoRequest } from "@/lib/partners/logos";

export const dynamic = "force-dynamic";

/** Partner logos are served from the service's own host, by content hash (docs/protocol.md#branding). */
export async function GET(request: Request, context: { params: Promise<{ file: string }> }) {
  const { file } = await context.params;
  return handleLogoRequest(request, file);
}
