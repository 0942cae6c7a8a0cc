-- AlterTable
ALTER TABLE "ApiKey" ADD COLUMN     "name" TEXT;

-- AlterTable
ALTER TABLE "BankAuthorization" ADD COLUMN     "tenantId" UUID,
ALTER COLUMN "flowId" DROP NOT NULL;

-- AlterTable
ALTER TABLE "BankIngest" ALTER COLUMN "flowId" DROP NOT NULL;

-- CreateTable
CREATE TABLE "CliSignIn" (
    "id" UUID NOT NULL,
    "codeHash" TEXT NOT NULL,
    "userId" UUID NOT NULL,
    "codeChallenge" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "consumedAt" TIMESTAMP(3),
    "apiKeyId" UUID,

    CONSTRAINT "CliSignIn_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "CliSignIn_codeHash_key" ON "CliSignIn"("codeHash");

-- CreateIndex
CREATE UNIQUE INDEX "CliSignIn_apiKeyId_key" ON "CliSignIn"("apiKeyId");

-- CreateIndex
CREATE INDEX "CliSignIn_userId_idx" ON "CliSignIn"("userId");

-- CreateIndex
CREATE INDEX "BankAuthorization_tenantId_idx" ON "BankAuthorization"("tenantId");

-- AddForeignKey
ALTER TABLE "BankAuthorization" ADD CONSTRAINT "BankAuthorization_tenantId_fkey" FOREIGN KEY ("tenantId") REFERENCES "Tenant"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "CliSignIn" ADD CONSTRAINT "CliSignIn_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "CliSignIn" ADD CONSTRAINT "CliSignIn_apiKeyId_fkey" FOREIGN KEY ("apiKeyId") REFERENCES "ApiKey"("id") ON DELETE SET NULL ON UPDATE CASCADE;
