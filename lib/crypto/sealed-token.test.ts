import { describe, expect, it } from "vitest";
import { openToken, sealToken } from "./sealed-token";

const CURRENT = "current-secret-key-of-at-least-32-characters";
const PREVIOUS = "previous-secret-key-of-at-least-32-characters";
const position = Buffer.from("0000000000003039", "hex");

describe("sealed tokens", () => {
  it("open only for their purpose's context, unchanged, and differ each time they are made", () => {
    const token = sealToken("audit-cursor", position, "partner:a", CURRENT);
    expect(token).toMatch(/^[A-Za-z0-9_-]{48}$/);
    expect(sealToken("audit-cursor", position, "partner:a", CURRENT)).not.toBe(token);
    expect(openToken("audit-cursor", token, "partner:a", 8, { secretKey: CURRENT })).toEqual(
      position,
    );
    expect(openToken("audit-cursor", token, "partner:b", 8, { secretKey: CURRENT })).toBeNull();
    expect(openToken("audit-cursor", token, "partner:a", 7, { secretKey: CURRENT })).toBeNull();
    expect(openToken("audit-cursor", token, "partner:a", 8, { secretKey: PREVIOUS })).toBeNull();
    for (let at = 0; at < token.length; at += 1) {
      const changed = token.slice(0, at) + (token[at] === "A" ? "B" : "A") + token.slice(at + 1);
      expect(openToken("audit-cursor", changed, "partner:a", 8, { secretKey: CURRENT })).toBeNull();
    }
    for (const malformed of ["", token.slice(1), `${token}A`, `${token.slice(0, -1)}=`, "1"]) {
      expect(
        openToken("audit-cursor", malformed, "partner:a", 8, { secretKey: CURRENT }),
      ).toBeNull();
    }
  });

  it("keeps opening tokens of the previous secret while a rotation is under way", () => {
    const old = sealToken("audit-cursor", position, "partner:a", PREVIOUS);
    const rotating = { secretKey: CURRENT, previousSecretKey: PREVIOUS };
    expect(openToken("audit-cursor", old, "partner:a", 8, rotating)).toEqual(position);
    expect(openToken("audit-cursor", old, "partner:a", 8, { secretKey: CURRENT })).toBeNull();
  });
});
