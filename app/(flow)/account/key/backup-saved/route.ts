import { handleBackupSaved } from "@/lib/account/backup-saved";
import { browserRoute } from "@/lib/http/outage";

export const dynamic = "force-dynamic";

export const POST = browserRoute(handleBackupSaved);
