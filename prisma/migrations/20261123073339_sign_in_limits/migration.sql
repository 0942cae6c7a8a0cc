-- CreateTable
CREATE TABLE "SignInCounter" (
    "id" TEXT NOT NULL,
    "count" INTEGER NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "SignInCounter_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "PinFailure" (
    "id" UUID NOT NULL,
    "addressKey" TEXT NOT NULL,
    "clientKey" TEXT NOT NULL,
    "at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "PinFailure_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "PinClosure" (
    "addressKey" TEXT NOT NULL,
    "closures" INTEGER NOT NULL,
    "closedUntil" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "PinClosure_pkey" PRIMARY KEY ("addressKey")
);

-- CreateIndex
CREATE INDEX "SignInCounter_expiresAt_idx" ON "SignInCounter"("expiresAt");

-- CreateIndex
CREATE INDEX "PinFailure_addressKey_at_idx" ON "PinFailure"("addressKey", "at");

-- CreateIndex
CREATE INDEX "PinFailure_clientKey_at_idx" ON "PinFailure"("clientKey", "at");

-- CreateIndex
CREATE INDEX "PinFailure_at_idx" ON "PinFailure"("at");
