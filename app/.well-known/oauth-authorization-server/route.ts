import { getEnv } from "@/lib/env";
import { jsonResponse } from "@/lib/http/respond";
import { buildServerMetadata, METADATA_MAX_AGE_SECONDS } from "@/lib/oauth/metadata";

export const dynamic = "force-dynamic";

export function GET() {
  const env = getEnv();
  const metadata = buildServerMetadata({
    issuer: env.issuer,
    vendorBlock: env.vendorBlock,
    documentationUrl: env.documentationUrl,
    recipientKeyRequired: env.recipientKeyRequired,
  });
  return jsonResponse(metadata, {
    headers: { "Cache-Control": `public, max-age=${METADATA_MAX_AGE_SECONDS}` },
  });
}
