import { describe, expect, it } from "vitest";
import { uniqueEmail } from "../../test/oauth-fixtures";
import { findLastMessage, OutboxMailer } from "./outbox";

const message = (to: string, subject: string) => ({
  to,
  subject,
  text: `${subject} (text)`,
  html: `<p>${subject}</p>`,
  link: "http://localhost:3000/login/link?token=t",
  code: "012345",
});

describe("the local outbox", () => {
  it("stores every message and finds the newest one for an address", async () => {
    const to = uniqueEmail("outbox");
    const outbox = new OutboxMailer();
    await outbox.send(message(to, "first"));
    await new Promise((resolve) => setTimeout(resolve, 5));
    await outbox.send(message(to, "second"));

    const found = await findLastMessage(to);
    expect(found).toMatchObject({ ...message(to, "second"), to });
    expect(found?.sentAt).toBeInstanceOf(Date);
  });

  it("looks the address up normalized, like every stored email", async () => {
    const to = uniqueEmail("outbox");
    await new OutboxMailer().send(message(to, "hello"));
    expect((await findLastMessage(`  ${to.toUpperCase()} `))?.subject).toBe("hello");
  });

  it("keeps messages without link or code, and finds nothing for an address never mailed", async () => {
    const to = uniqueEmail("outbox");
    await new OutboxMailer().send({ to, subject: "plain", text: "t", html: "<p>t</p>" });
    expect(await findLastMessage(to)).toMatchObject({ subject: "plain", link: null, code: null });
    expect(await findLastMessage(uniqueEmail("nobody"))).toBeNull();
  });

  it("stores several messages in one go, each with its own fields", async () => {
    const [first, second] = [uniqueEmail("outbox"), uniqueEmail("outbox")];
    await new OutboxMailer().sendMany([
      message(first, "one"),
      { to: second, subject: "two", text: "2", html: "<p>2</p>" },
    ]);
    expect(await findLastMessage(first)).toMatchObject({ ...message(first, "one"), to: first });
    expect(await findLastMessage(second)).toMatchObject({
      subject: "two",
      text: "2",
      link: null,
      code: null,
    });
    await new OutboxMailer().sendMany([]);
  });
});
