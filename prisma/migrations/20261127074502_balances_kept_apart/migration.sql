-- DropIndex
DROP INDEX "Balance_accountId_balanceType_key";

-- AlterTable
ALTER TABLE "Balance" ADD COLUMN     "position" INTEGER;

-- The balances stored so far, one of each type, keep their order (by type).
UPDATE "Balance" b SET "position" = n."position"
  FROM (SELECT "id", (row_number() OVER (PARTITION BY "accountId" ORDER BY "balanceType") - 1)::integer AS "position"
          FROM "Balance") n
 WHERE b."id" = n."id";

ALTER TABLE "Balance" ALTER COLUMN "position" SET NOT NULL;

-- CreateIndex
CREATE UNIQUE INDEX "Balance_accountId_position_key" ON "Balance"("accountId", "position");
