-- CreateIndex
CREATE INDEX "PinClosure_closedUntil_idx" ON "PinClosure"("closedUntil");
