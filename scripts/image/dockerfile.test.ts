import { describe, expect, it } from "vitest";
import { parseImageStart, readImageStart } from "./dockerfile";

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
    expect(image.command).toEqual(["node_modules/.bin/tsx", "scripts/launch.ts", "start"]);
    expect(image.environment.NODE_ENV).toBe("production");
    expect(image.user).toBe("bank");
    expect(image.uid).toBeGreaterThan(0);
    expect(image.gid).toBeGreaterThan(0);
  });
});
