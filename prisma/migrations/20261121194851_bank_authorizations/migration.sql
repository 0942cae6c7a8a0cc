-- AlterTable
ALTER TABLE "Flow" ADD COLUMN     "consentedAt" TIMESTAMP(3);

-- CreateTable
CREATE TABLE "BankAuthorization" (
    "id" UUID NOT NULL,
    "flowId" UUID NOT NULL,
    "stateHash" TEXT NOT NULL,
    "upstream" TEXT NOT NULL,
    "aspspName" TEXT NOT NULL,
    "aspspCountry" TEXT NOT NULL,
    "psuType" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "completedAt" TIMESTAMP(3),

    CONSTRAINT "BankAuthorization_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "BankAuthorization_stateHash_key" ON "BankAuthorization"("stateHash");

-- CreateIndex
CREATE INDEX "BankAuthorization_flowId_idx" ON "BankAuthorization"("flowId");

-- AddForeignKey
ALTER TABLE "BankAuthorization" ADD CONSTRAINT "BankAuthorization_flowId_fkey" FOREIGN KEY ("flowId") REFERENCES "Flow"("id") ON DELETE CASCADE ON UPDATE CASCADE;
