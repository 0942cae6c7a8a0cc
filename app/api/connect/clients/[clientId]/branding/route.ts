import { handleClientBranding } from "@/lib/partners/partner-api";

export const dynamic = "force-dynamic";

export async function GET(_request: Request, context: { params: Promise<{ clientId: string }> }) {
  return handleClientBranding((await context.params).clientId);
}
