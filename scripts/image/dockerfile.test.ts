import { describe, expect, it } from "vitest";
import {
  imageContentProblems,
  imageFiles,
  parseImageStart,
  readImageContents,
  readImageStart,
} from "./dockerfile";

const RUNTIME = `FROM node:22 AS build
ENV NODE_ENV=development BUILD_ONLY=1
CMD ["node", "build.js"]

FROM node:22-bookworm-slim AS runtime
WORKDIR /app
ENV NODE_ENV=production PORT=3000
ENV GREETING="two words"
RUN groupadd --system --gid 20002 svc \\
    && useradd --system --uid 20001 --gid svc --home-dir /app svc
USER svc
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "server.js"]
`;

describe("the image's start, read from the Dockerfile", () => {
  it("takes the last stage's command, environment, directory and user ids only", () => {
    expect(parseImageStart(RUNTIME)).toEqual({
      command: ["/usr/bin/tini", "--", "node", "server.js"],
      environment: { NODE_ENV: "production", PORT: "3000", GREETING: "two words" },
      workdir: "/app",
      user: "svc",
      uid: 20001,
      gid: 20002,
    });
  });

  it("refuses a shell-form CMD and a user the stage does not create", () => {
    expect(() =>
      parseImageStart(RUNTIME.replace('["node", "server.js"]', "node server.js")),
    ).toThrow(/exec form/);
    expect(() => parseImageStart(RUNTIME.replace("USER svc", "USER other"))).toThrow(
      /creates no user other/,
    );
  });

  it("reads the repository's Dockerfile: npm start's launcher as the unprivileged bank", async () => {
    const image = await readImageStart();
    expect(image.command).toEqual(["node", ".next/launcher/launch.cjs", "start"]);
    expect(image.environment.NODE_ENV).toBe("production");
    expect(image.user).toBe("bank");
    expect(image.uid).toBeGreaterThan(0);
    expect(image.gid).toBeGreaterThan(0);
  });
});

describe("what the image holds of the checkout", () => {
  const CHECKOUT = [
    "package.json",
    "scripts/launch.ts",
    "scripts/migrate.ts",
    "scripts/bench/run.ts",
    "prisma/migrations/0001_init/migration.sql",
    "lib/docs/examples/token.sh",
    "lib/log.ts",
    "lib/log.test.ts",
    "docs/operations.md",
    "e2e/demo.spec.ts",
    "test/edge.test.ts",
  ];
  const IGNORE = "test\ne2e\ndocs\nscripts/bench\n**/*.test.ts\n";

  it("leaves out what .dockerignore names, with Docker's matching (a root folder is not every folder)", () => {
    expect(imageFiles(RUNTIME, IGNORE, [...CHECKOUT, "lib/test/helper.ts"])).toEqual([
      "package.json",
      "scripts/launch.ts",
      "scripts/migrate.ts",
      "prisma/migrations/0001_init/migration.sql",
      "lib/docs/examples/token.sh",
      "lib/log.ts",
      "lib/test/helper.ts",
    ]);
  });

  it("names the tests, journeys, benchmarks and docs that would ship, and what the service needs but lacks", async () => {
    const image = { ...parseImageStart(RUNTIME), command: ["tsx", "scripts/launch.ts", "start"] };
    const lean = imageFiles(RUNTIME, IGNORE, CHECKOUT);
    expect(imageContentProblems(lean, CHECKOUT, image)).toEqual([]);

    expect(imageContentProblems(imageFiles(RUNTIME, "docs\n", CHECKOUT), CHECKOUT, image)).toEqual([
      "the image holds test/: test/edge.test.ts",
      "the image holds e2e/: e2e/demo.spec.ts",
      "the image holds scripts/bench/: scripts/bench/run.ts",
      "the image holds tests: lib/log.test.ts, test/edge.test.ts",
    ]);
    const greedy = `${IGNORE}lib/docs\nscripts/launch.ts\n`;
    expect(imageContentProblems(imageFiles(RUNTIME, greedy, CHECKOUT), CHECKOUT, image)).toEqual([
      "the image lacks scripts/launch.ts: scripts/launch.ts",
      "the image lacks lib/docs/examples/: lib/docs/examples/token.sh",
    ]);
  });

  it("refuses a runtime stage that copies from the build context, past .dockerignore's reach", () => {
    expect(() => imageFiles(`${RUNTIME}COPY docs /app/docs\n`, IGNORE, CHECKOUT)).toThrow(
      /copies from the build context/,
    );
  });

  it("the repository's image: no tests, journeys, benchmarks or docs; the launcher, migrations and examples", async () => {
    const image = await readImageStart();
    const { all, shipped } = await readImageContents();
    expect(imageContentProblems(shipped, all, image)).toEqual([]);
    expect(shipped).toContain("scripts/launch.ts");
    expect(shipped.some((file) => file.startsWith("app/docs/"))).toBe(true);
    expect(shipped.some((file) => file.startsWith("docs/"))).toBe(false);
  });
});
