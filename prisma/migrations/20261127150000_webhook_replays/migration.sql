-- A replayed delivery is a new delivery of the same event to the same endpoint.
DROP INDEX "WebhookDelivery_eventId_endpointId_key";

-- CreateIndex
CREATE INDEX "WebhookDelivery_eventId_endpointId_idx" ON "WebhookDelivery"("eventId", "endpointId");

-- CreateIndex
CREATE INDEX "WebhookDelivery_status_nextAttemptAt_idx" ON "WebhookDelivery"("status", "nextAttemptAt");
