import { handleDemoForget } from "@/lib/demo/demo";

export const dynamic = "force-dynamic";

/** The page sends the browser here to delete a keys cookie that no longer serves. */
export function GET(request: Request) {
  return handleDemoForget(request);
}
