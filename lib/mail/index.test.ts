import { describe, expect, it } from "vitest";
import { createMailer } from "./index";
import { MailError } from "./errors";

const FROM = "Bank Connect <no-reply@example.com>";

describe("choosing the mailer by configuration (docs/architecture.md#integrations-behind-small-interfaces)", () => {
  it("sends through Resend when RESEND_API_KEY is set", () => {
    expect(createMailer({ mode: "production", resendApiKey: "re_test", mailFrom: FROM }).name).toBe(
      "resend",
    );
    expect(createMailer({ mode: "local", resendApiKey: "re_test", mailFrom: FROM }).name).toBe(
      "resend",
    );
  });

  it("uses the local outbox when no provider is configured locally", () => {
    expect(createMailer({ mode: "local", resendApiKey: undefined, mailFrom: FROM }).name).toBe(
      "outbox",
    );
  });

  it("refuses the outbox in production: sign-in mail must leave the building", () => {
    expect(() =>
      createMailer({ mode: "production", resendApiKey: undefined, mailFrom: FROM }),
    ).toThrow(MailError);
  });
});
