import { handleAccountStartOver } from "@/lib/account/handlers";
import { browserRoute } from "@/lib/http/outage";

export const dynamic = "force-dynamic";

export const POST = browserRoute(handleAccountStartOver);
