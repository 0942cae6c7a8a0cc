-- AlterTable
ALTER TABLE "BankAuthorization" ADD COLUMN     "requiredPsuHeaders" TEXT;

-- AlterTable
ALTER TABLE "Connection" ADD COLUMN     "requiredPsuHeaders" TEXT;
