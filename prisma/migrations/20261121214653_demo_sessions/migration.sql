-- CreateTable
CREATE TABLE "DemoSession" (
    "id" UUID NOT NULL,
    "browserHash" TEXT NOT NULL,
    "stateHash" TEXT NOT NULL,
    "codeVerifierEnc" TEXT NOT NULL,
    "csrfSecret" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "apiKeyEnc" TEXT,
    "privateKeyEnc" TEXT,
    "steps" JSONB NOT NULL DEFAULT '[]',
    "lastSync" JSONB,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "DemoSession_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "DemoSession_stateHash_key" ON "DemoSession"("stateHash");

-- CreateIndex
CREATE INDEX "DemoSession_browserHash_createdAt_idx" ON "DemoSession"("browserHash", "createdAt");
