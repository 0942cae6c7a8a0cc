-- CreateIndex
CREATE INDEX "AuthorizationCode_expiresAt_idx" ON "AuthorizationCode"("expiresAt");

-- CreateIndex
CREATE INDEX "BankAuthorization_expiresAt_idx" ON "BankAuthorization"("expiresAt");

-- CreateIndex
CREATE INDEX "BankIngest_heartbeatAt_idx" ON "BankIngest"("heartbeatAt");

-- CreateIndex
CREATE INDEX "BrowserSession_expiresAt_idx" ON "BrowserSession"("expiresAt");

-- CreateIndex
CREATE INDEX "LoginChallenge_expiresAt_idx" ON "LoginChallenge"("expiresAt");

-- CreateIndex
CREATE INDEX "OutboxMessage_sentAt_idx" ON "OutboxMessage"("sentAt");
