import { createHash, randomBytes } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { db, disconnectDb } from "../db/client";
import { LOGO_MAX_BYTES, LogoError, type LogoErrorCode } from "./logo-fetch";
import { findLogo, handleLogoRequest, logoPath, storeLogo } from "./logos";
import { PNG, JPEG, WEBP, GIF } from "../../test/images";

afterAll(disconnectDb);

/**
 * Bytes unique to each test (the run's database is shared by every test
 * file): the image followed by random trailing bytes, which decoders ignore.
 */
const unique = (image: Buffer) => Buffer.concat([image, randomBytes(16)]);
const sha256 = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");

async function expectLogoError(promise: Promise<unknown>, code: LogoErrorCode): Promise<LogoError> {
  const error = await promise.then(
    () => null,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(LogoError);
  expect((error as LogoError).code).toBe(code);
  return error as LogoError;
}

const get = (file: string, headers: Record<string, string> = {}) =>
  handleLogoRequest(new Request(`https://connect.example/logos/${file}`, { headers }), file);

describe("logoPath", () => {
  it("names the file by hash and the extension of its type", () => {
    const hash = "a".repeat(64);
    expect(logoPath(hash, "image/png")).toBe(`/logos/${hash}.png`);
    expect(logoPath(hash, "image/jpeg")).toBe(`/logos/${hash}.jpg`);
    expect(logoPath(hash, "image/webp")).toBe(`/logos/${hash}.webp`);
  });
});

describe("storeLogo", () => {
  it.each([
    ["PNG", PNG, "image/png", "png"],
    ["JPEG", JPEG, "image/jpeg", "jpg"],
    ["WebP", WEBP, "image/webp", "webp"],
  ])("stores a %s under the SHA-256 of its bytes", async (_name, image, type, extension) => {
    const bytes = unique(image);
    const stored = await storeLogo(bytes);
    const hash = sha256(bytes);
    expect(stored).toEqual({ hash, contentType: type, path: `/logos/${hash}.${extension}` });
    const row = await db().logo.findUnique({ where: { hash } });
    expect(row?.contentType).toBe(type);
    expect(Buffer.from(row?.data ?? []).equals(bytes)).toBe(true);
  });

  it("is idempotent: the same bytes stored twice make one row", async () => {
    const bytes = unique(PNG);
    const first = await storeLogo(bytes);
    const second = await storeLogo(Buffer.from(bytes));
    expect(second).toEqual(first);
    expect(await db().logo.count({ where: { hash: first.hash } })).toBe(1);
  });

  it("lets concurrent stores of the same bytes all succeed on one row", async () => {
    const bytes = unique(WEBP);
    const results = await Promise.all(Array.from({ length: 8 }, () => storeLogo(bytes)));
    expect(new Set(results.map((result) => result.hash)).size).toBe(1);
    expect(await db().logo.count({ where: { hash: sha256(bytes) } })).toBe(1);
  });

  it.each([
    ["GIF", GIF],
    ["SVG", Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>')],
    ["empty", Buffer.alloc(0)],
  ])("refuses %s and stores nothing", async (_name, image) => {
    const bytes = image.length ? unique(image) : image;
    const error = await expectLogoError(storeLogo(bytes), "unsupported_type");
    expect(error.message).toBe("the logo must be a PNG, JPEG or WebP image");
    expect(await db().logo.count({ where: { hash: sha256(bytes) } })).toBe(0);
  });

  it("refuses a logo over the size limit and accepts one of exactly the limit", async () => {
    const exact = Buffer.concat([PNG, randomBytes(LOGO_MAX_BYTES - PNG.length)]);
    await expect(storeLogo(exact)).resolves.toMatchObject({ hash: sha256(exact) });
    const over = Buffer.concat([exact, Buffer.from([0])]);
    const error = await expectLogoError(storeLogo(over), "too_large");
    expect(error.message).toBe(`the logo is larger than ${LOGO_MAX_BYTES} bytes`);
    expect(await db().logo.count({ where: { hash: sha256(over) } })).toBe(0);
  });
});

describe("findLogo", () => {
  it("returns the stored bytes and type", async () => {
    const bytes = unique(JPEG);
    const { hash } = await storeLogo(bytes);
    const found = await findLogo(hash);
    expect(found?.contentType).toBe("image/jpeg");
    expect(found?.data.equals(bytes)).toBe(true);
  });

  it.each([
    ["an unknown hash", "0".repeat(64)],
    ["an upper-case hash", "A".repeat(64)],
    ["a short hash", "abc"],
    ["an empty string", ""],
    ["a path", "../../etc/passwd"],
  ])("returns null for %s", async (_name, hash) => {
    expect(await findLogo(hash)).toBeNull();
  });
});

describe("GET /logos/<hash>.<ext>", () => {
  it("serves the logo with its type, a year's immutable caching, nosniff, a sandbox CSP and an ETag", async () => {
    const bytes = unique(PNG);
    const { hash, path } = await storeLogo(bytes);
    const response = await get(path.replace("/logos/", ""));
    expect(response.status).toBe(200);
    expect(response.headers.get("Content-Type")).toBe("image/png");
    expect(response.headers.get("Cache-Control")).toBe("public, max-age=31536000, immutable");
    expect(response.headers.get("X-Content-Type-Options")).toBe("nosniff");
    expect(response.headers.get("Content-Security-Policy")).toBe(
      "default-src 'none'; frame-ancestors 'none'; sandbox",
    );
    expect(response.headers.get("ETag")).toBe(`"${hash}"`);
    expect(Buffer.from(await response.arrayBuffer()).equals(bytes)).toBe(true);
  });

  it.each([
    ["JPEG", JPEG, "jpg", "image/jpeg"],
    ["WebP", WEBP, "webp", "image/webp"],
  ])("serves a %s as .%s", async (_name, image, extension, type) => {
    const { hash } = await storeLogo(unique(image));
    const response = await get(`${hash}.${extension}`);
    expect(response.status).toBe(200);
    expect(response.headers.get("Content-Type")).toBe(type);
  });

  it("answers 304 to a matching If-None-Match, with the caching headers", async () => {
    const { hash } = await storeLogo(unique(PNG));
    for (const ifNoneMatch of [`"${hash}"`, `W/"${hash}"`, `"other", "${hash}"`, "*"]) {
      const response = await get(`${hash}.png`, { "If-None-Match": ifNoneMatch });
      expect(response.status).toBe(304);
      expect(response.headers.get("ETag")).toBe(`"${hash}"`);
      expect(response.headers.get("Cache-Control")).toBe("public, max-age=31536000, immutable");
      expect(await response.text()).toBe("");
    }
    const stale = await get(`${hash}.png`, { "If-None-Match": '"other"' });
    expect(stale.status).toBe(200);
  });

  it("answers 404 to an extension that does not match the stored type", async () => {
    const { hash } = await storeLogo(unique(PNG));
    for (const extension of ["jpg", "webp"]) {
      const response = await get(`${hash}.${extension}`);
      expect(response.status).toBe(404);
    }
  });

  it.each([
    ["an unknown hash", `${"0".repeat(64)}.png`],
    ["no extension", "f".repeat(64)],
    ["an unsupported extension", `${"f".repeat(64)}.gif`],
    ["the jpeg spelling", `${"f".repeat(64)}.jpeg`],
    ["an upper-case hash", `${"F".repeat(64)}.png`],
    ["a short hash", "abc.png"],
    ["a traversal", "..%2F..%2Fetc%2Fpasswd"],
    ["a trailing suffix", `${"f".repeat(64)}.png.html`],
  ])("answers 404 to %s, uncached and inert", async (_name, file) => {
    const response = await get(file);
    expect(response.status).toBe(404);
    expect(response.headers.get("Cache-Control")).toBe("no-store");
    expect(response.headers.get("X-Content-Type-Options")).toBe("nosniff");
    expect(response.headers.get("Content-Security-Policy")).toContain("default-src 'none'");
  });
});
