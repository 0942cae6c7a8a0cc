import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir, userInfo } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { startEmbeddedPostgres } from "./embedded-postgres";

const asRoot = userInfo().uid === 0;

describe("the embedded PostgreSQL started as root", () => {
  it.skipIf(!asRoot)(
    "in a directory other users cannot enter, stops with a message saying what to do, never an unhandled EACCES",
    async () => {
      // What `mktemp -d` makes: a 0700 folder only root can enter.
      const closed = await mkdtemp(path.join(tmpdir(), "bank-connect-closed-"));
      try {
        expect((await stat(closed)).mode & 0o777).toBe(0o700);
        const dataDir = path.join(closed, ".data", "postgres");
        const started = startEmbeddedPostgres({ dataDir, persistent: false });
        await expect(started).rejects.toThrow(`cannot enter ${closed}`);
        await expect(started).rejects.toThrow(/DATABASE_URL/);
        await expect(started).rejects.toThrow(`chmod o+x ${closed}`);
        await expect(started).rejects.not.toThrow(/EACCES/);
      } finally {
        await rm(closed, { recursive: true, force: true });
      }
    },
    120_000,
  );
});
