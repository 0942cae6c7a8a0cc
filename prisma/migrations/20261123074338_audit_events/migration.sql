-- CreateEnum
CREATE TYPE "AuditActorKind" AS ENUM ('user', 'client', 'operator', 'system', 'anonymous');

-- CreateTable
CREATE TABLE "AuditEvent" (
    "id" UUID NOT NULL,
    "seq" BIGSERIAL NOT NULL,
    "at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "type" TEXT NOT NULL,
    "actorKind" "AuditActorKind" NOT NULL,
    "actorId" TEXT,
    "partnerId" UUID,
    "clientId" TEXT,
    "userId" UUID,
    "subject" TEXT,
    "clientIp" TEXT,
    "details" JSONB NOT NULL DEFAULT '{}',

    CONSTRAINT "AuditEvent_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "AuditEvent_seq_key" ON "AuditEvent"("seq");

-- CreateIndex
CREATE INDEX "AuditEvent_partnerId_seq_idx" ON "AuditEvent"("partnerId", "seq" DESC);

-- CreateIndex
CREATE INDEX "AuditEvent_at_idx" ON "AuditEvent"("at");
