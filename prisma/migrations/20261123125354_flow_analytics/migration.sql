-- AlterTable
ALTER TABLE "Flow" ADD COLUMN     "analyticsMarks" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "analyticsStart" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP;

-- Flows open now started when they were created.
UPDATE "Flow" SET "analyticsStart" = "createdAt";

-- CreateTable
CREATE TABLE "FlowStepCount" (
    "partnerId" UUID NOT NULL,
    "clientId" TEXT NOT NULL,
    "hour" TIMESTAMP(3) NOT NULL,
    "event" TEXT NOT NULL,
    "detail" TEXT NOT NULL DEFAULT '',
    "count" INTEGER NOT NULL,

    CONSTRAINT "FlowStepCount_pkey" PRIMARY KEY ("partnerId","hour","clientId","event","detail")
);

-- CreateTable
CREATE TABLE "FlowApprovalTime" (
    "partnerId" UUID NOT NULL,
    "clientId" TEXT NOT NULL,
    "hour" TIMESTAMP(3) NOT NULL,
    "bucket" INTEGER NOT NULL,
    "count" INTEGER NOT NULL,

    CONSTRAINT "FlowApprovalTime_pkey" PRIMARY KEY ("partnerId","hour","clientId","bucket")
);
