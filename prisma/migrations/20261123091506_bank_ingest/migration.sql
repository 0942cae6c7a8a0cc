-- CreateEnum
CREATE TYPE "BankIngestState" AS ENUM ('connecting', 'waiting', 'accounts', 'history', 'done', 'failed');

-- AlterTable
ALTER TABLE "Account" ADD COLUMN     "historyPending" BOOLEAN NOT NULL DEFAULT false;

-- CreateTable
CREATE TABLE "BankIngest" (
    "id" UUID NOT NULL,
    "flowId" UUID NOT NULL,
    "authorizationId" UUID NOT NULL,
    "state" "BankIngestState" NOT NULL DEFAULT 'connecting',
    "accountsTotal" INTEGER NOT NULL DEFAULT 0,
    "accountsDone" INTEGER NOT NULL DEFAULT 0,
    "historyDone" INTEGER NOT NULL DEFAULT 0,
    "connectionId" UUID,
    "failure" TEXT,
    "heartbeatAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "BankIngest_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "BankIngest_authorizationId_key" ON "BankIngest"("authorizationId");

-- CreateIndex
CREATE INDEX "BankIngest_flowId_createdAt_idx" ON "BankIngest"("flowId", "createdAt");

-- AddForeignKey
ALTER TABLE "BankIngest" ADD CONSTRAINT "BankIngest_flowId_fkey" FOREIGN KEY ("flowId") REFERENCES "Flow"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "BankIngest" ADD CONSTRAINT "BankIngest_authorizationId_fkey" FOREIGN KEY ("authorizationId") REFERENCES "BankAuthorization"("id") ON DELETE CASCADE ON UPDATE CASCADE;
