-- AlterTable
ALTER TABLE "Account" ADD COLUMN     "historyDays" INTEGER,
ADD COLUMN     "identityVersion" INTEGER NOT NULL DEFAULT 2;

-- Accounts stored before this migration hold transactions identified the old way.
UPDATE "Account" SET "identityVersion" = 1;

-- AlterTable
ALTER TABLE "Transaction" ADD COLUMN     "amountHash" TEXT,
ADD COLUMN     "matchHash" TEXT;
