-- The demo keeps no user keys server-side: the sealed API key and relayed private
-- key columns go, with their contents (connected demo sessions must connect again).
-- The demo client's random secret is kept sealed for the demo partner itself.

-- AlterTable
ALTER TABLE "DemoSession" DROP COLUMN "apiKeyEnc",
DROP COLUMN "privateKeyEnc",
ALTER COLUMN "codeVerifierEnc" DROP NOT NULL;

-- CreateTable
CREATE TABLE "DemoClientSecret" (
    "clientId" TEXT NOT NULL,
    "secretEnc" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "DemoClientSecret_pkey" PRIMARY KEY ("clientId")
);
