-- AlterTable
ALTER TABLE "Account" ADD COLUMN     "identityHash" TEXT;

-- AlterTable
ALTER TABLE "BankAuthorization" ADD COLUMN     "renewConnectionId" UUID;
