-- AlterTable
ALTER TABLE "Partner" ADD COLUMN     "nameKeysVersion" INTEGER NOT NULL DEFAULT 0;

-- CreateTable
CREATE TABLE "PartnerNameKey" (
    "key" TEXT NOT NULL,
    "partnerId" UUID NOT NULL,
    "field" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "PartnerNameKey_pkey" PRIMARY KEY ("key")
);

-- CreateIndex
CREATE INDEX "PartnerNameKey_partnerId_idx" ON "PartnerNameKey"("partnerId");

-- AddForeignKey
ALTER TABLE "PartnerNameKey" ADD CONSTRAINT "PartnerNameKey_partnerId_fkey" FOREIGN KEY ("partnerId") REFERENCES "Partner"("id") ON DELETE CASCADE ON UPDATE CASCADE;
