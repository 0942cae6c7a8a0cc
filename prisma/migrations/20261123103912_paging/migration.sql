-- DropIndex
DROP INDEX "Account_tenantId_idx";

-- DropIndex
DROP INDEX "Transaction_accountId_bookingDate_idx";

-- AlterTable
ALTER TABLE "Account" ADD COLUMN     "transactionCount" INTEGER NOT NULL DEFAULT 0;

-- CreateIndex
CREATE INDEX "Account_tenantId_createdAt_id_idx" ON "Account"("tenantId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "Transaction_accountId_bookingDate_transactionDate_id_idx" ON "Transaction"("accountId", "bookingDate" DESC, "transactionDate" DESC, "id");

-- The per-account count of transactions (docs/paging.md), kept by statement
-- triggers: one UPDATE per account and statement however many rows a sync
-- writes, from the rows the statement really inserted (ON CONFLICT DO
-- NOTHING leaves skipped duplicates out of the transition table). The
-- application never writes "transactionCount".
CREATE FUNCTION "Transaction_count_inserted"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "Account" a SET "transactionCount" = a."transactionCount" + n."rows"
    FROM (SELECT "accountId", count(*) AS "rows" FROM inserted GROUP BY "accountId") n
   WHERE a."id" = n."accountId";
  RETURN NULL;
END $$;

CREATE FUNCTION "Transaction_count_deleted"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "Account" a SET "transactionCount" = a."transactionCount" - n."rows"
    FROM (SELECT "accountId", count(*) AS "rows" FROM deleted GROUP BY "accountId") n
   WHERE a."id" = n."accountId";
  RETURN NULL;
END $$;

-- A transaction never moves to another account, but if one ever did, the counts follow it.
CREATE FUNCTION "Transaction_count_moved"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "Account" a SET "transactionCount" = a."transactionCount" + n."delta"
    FROM (
      SELECT "accountId", sum("delta") AS "delta" FROM (
        SELECT "accountId", 1 AS "delta" FROM after_update
        UNION ALL
        SELECT "accountId", -1 AS "delta" FROM before_update
      ) d GROUP BY "accountId" HAVING sum("delta") <> 0
    ) n
   WHERE a."id" = n."accountId";
  RETURN NULL;
END $$;

CREATE FUNCTION "Transaction_count_truncated"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "Account" SET "transactionCount" = 0 WHERE "transactionCount" <> 0;
  RETURN NULL;
END $$;

CREATE TRIGGER "Transaction_count_inserted" AFTER INSERT ON "Transaction"
  REFERENCING NEW TABLE AS inserted
  FOR EACH STATEMENT EXECUTE FUNCTION "Transaction_count_inserted"();

CREATE TRIGGER "Transaction_count_deleted" AFTER DELETE ON "Transaction"
  REFERENCING OLD TABLE AS deleted
  FOR EACH STATEMENT EXECUTE FUNCTION "Transaction_count_deleted"();

CREATE TRIGGER "Transaction_count_moved" AFTER UPDATE ON "Transaction"
  REFERENCING OLD TABLE AS before_update NEW TABLE AS after_update
  FOR EACH STATEMENT EXECUTE FUNCTION "Transaction_count_moved"();

CREATE TRIGGER "Transaction_count_truncated" AFTER TRUNCATE ON "Transaction"
  FOR EACH STATEMENT EXECUTE FUNCTION "Transaction_count_truncated"();

-- The counts of what is already stored, taken after the triggers exist and
-- under the table lock ALTER TABLE holds on "Account".
UPDATE "Account" a SET "transactionCount" = (
  SELECT count(*) FROM "Transaction" t WHERE t."accountId" = a."id"
);
