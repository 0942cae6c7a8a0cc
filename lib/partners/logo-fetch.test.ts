import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  fetchLogo,
  LOGO_MAX_BYTES,
  LogoError,
  sniffImageType,
  type FetchLogoOptions,
  type LogoErrorCode,
  type ResolvedAddress,
} from "./logo-fetch";
import { PNG, JPEG, WEBP, GIF, SVG } from "../../test/images";

const HTML = Buffer.from("<!doctype html><title>not a logo</title>");

/** The address the tests' "public" server listens on; the only one the tests declare acceptable. */
const VETTED = "127.0.0.1";
/** Stands in for an internal service: reachable, but never acceptable. */
const INTERNAL = "127.0.0.2";

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

interface TestServer {
  server: Server;
  port: number;
  /** Paths of every request the server received. */
  requests: string[];
  routes: Map<string, Handler>;
}

let workDir: string;
let certificate: string;
let publicServer: TestServer;
let internalServer: TestServer;

/** A self-signed certificate for the test hostnames, made fresh for every run. */
function makeCertificate(dir: string): { key: string; cert: string } {
  execFileSync("openssl", ["version"]);
  const keyFile = path.join(dir, "key.pem");
  const certFile = path.join(dir, "cert.pem");
  execFileSync(
    "openssl",
    [
      ...["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"],
      ...["-days", "1", "-subj", "/CN=logo.example", "-keyout", keyFile, "-out", certFile],
      ...["-addext", "subjectAltName=DNS:logo.example,DNS:internal.example,IP:127.0.0.1"],
    ],
    { stdio: "ignore" },
  );
  return { key: readFileSync(keyFile, "utf8"), cert: readFileSync(certFile, "utf8") };
}

async function startServer(
  host: string,
  credentials: { key: string; cert: string },
  port = 0,
): Promise<TestServer> {
  const requests: string[] = [];
  const routes = new Map<string, Handler>();
  const server = createServer(credentials, (request, response) => {
    requests.push(request.url ?? "");
    const handler = routes.get(request.url ?? "");
    if (handler) handler(request, response);
    else response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  return { server, port: (server.address() as AddressInfo).port, requests, routes };
}

async function stopServer(test: TestServer | undefined): Promise<void> {
  if (!test) return;
  test.server.closeAllConnections();
  await new Promise<void>((resolve) => test.server.close(() => resolve()));
}

beforeAll(async () => {
  workDir = mkdtempSync(path.join(tmpdir(), "logo-fetch-"));
  const credentials = makeCertificate(workDir);
  certificate = credentials.cert;
  publicServer = await startServer(VETTED, credentials);
  // Same port: a connection that re-resolved the name to INTERNAL would land on this server.
  internalServer = await startServer(INTERNAL, credentials, publicServer.port);
});

afterAll(async () => {
  await stopServer(publicServer);
  await stopServer(internalServer);
  rmSync(workDir, { recursive: true, force: true });
});

beforeEach(() => {
  for (const test of [publicServer, internalServer]) {
    test.routes.clear();
    test.requests.length = 0;
  }
});

/** A resolver answering from a table, recording each question. */
function fakeDns(table: Record<string, readonly string[]>) {
  const questions: string[] = [];
  const lookup = async (hostname: string): Promise<ResolvedAddress[]> => {
    questions.push(hostname);
    const addresses = table[hostname];
    if (!addresses) throw Object.assign(new Error(`ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
    return addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  };
  return { lookup, questions };
}

/** Options under which only the test server's address counts as public. */
function testOptions(overrides: FetchLogoOptions = {}): FetchLogoOptions {
  return {
    ca: certificate,
    allowedPorts: [publicServer.port],
    isAllowedAddress: (address) => address === VETTED,
    lookup: fakeDns({ "logo.example": [VETTED], "internal.example": [INTERNAL] }).lookup,
    ...overrides,
  };
}

const publicUrl = (pathname: string) => `https://logo.example:${publicServer.port}${pathname}`;
const internalUrl = (pathname: string) =>
  `https://internal.example:${internalServer.port}${pathname}`;

function serve(
  test: TestServer,
  pathname: string,
  body: Buffer,
  headers: Record<string, string> = {},
): void {
  test.routes.set(pathname, (_request, response) =>
    response.writeHead(200, { "Content-Type": "image/png", ...headers }).end(body),
  );
}

function redirect(test: TestServer, pathname: string, location: string, status = 302): void {
  test.routes.set(pathname, (_request, response) =>
    response.writeHead(status, { Location: location }).end(),
  );
}

async function expectLogoError(promise: Promise<unknown>, code: LogoErrorCode): Promise<LogoError> {
  const error = await promise.then(
    () => null,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(LogoError);
  expect((error as LogoError).code).toBe(code);
  return error as LogoError;
}

describe("sniffImageType", () => {
  it("recognizes PNG, JPEG and WebP by their magic bytes", () => {
    expect(sniffImageType(PNG)).toBe("image/png");
    expect(sniffImageType(JPEG)).toBe("image/jpeg");
    expect(sniffImageType(WEBP)).toBe("image/webp");
  });

  it.each([
    ["GIF", GIF],
    ["SVG", SVG],
    ["HTML", HTML],
    ["empty", Buffer.alloc(0)],
    ["a truncated PNG signature", PNG.subarray(0, 7)],
    ["a RIFF file that is not WebP", Buffer.from("RIFF\x1e\0\0\0WAVEfmt ", "latin1")],
    ["a bare RIFF header", WEBP.subarray(0, 11)],
  ])("returns null for %s", (_name, bytes) => {
    expect(sniffImageType(bytes)).toBeNull();
  });
});

describe("fetchLogo: accepted images", () => {
  it.each([
    ["PNG", PNG, "image/png"],
    ["JPEG", JPEG, "image/jpeg"],
    ["WebP", WEBP, "image/webp"],
  ])("returns a %s logo with the type its bytes announce", async (_name, bytes, type) => {
    // The declared Content-Type is deliberately wrong: only the bytes decide.
    serve(publicServer, "/logo", bytes, { "Content-Type": "text/html" });
    const logo = await fetchLogo(publicUrl("/logo"), testOptions());
    expect(logo.contentType).toBe(type);
    expect(logo.data.equals(bytes)).toBe(true);
  });

  it("sends the query string and accepts a logo of exactly the size limit", async () => {
    const exact = Buffer.concat([PNG, Buffer.alloc(1024 - PNG.length)]);
    serve(publicServer, "/logo?v=2", exact);
    const logo = await fetchLogo(publicUrl("/logo?v=2"), testOptions({ maxBytes: 1024 }));
    expect(logo.data.length).toBe(1024);
  });

  it("connects to a vetted IP literal, checking the certificate against it", async () => {
    serve(publicServer, "/logo", PNG);
    const logo = await fetchLogo(`https://${VETTED}:${publicServer.port}/logo`, testOptions());
    expect(logo.contentType).toBe("image/png");
  });
});

describe("fetchLogo: content sniffing", () => {
  it.each([
    ["GIF", GIF],
    ["SVG", SVG],
    ["HTML", HTML],
    ["an empty body", Buffer.alloc(0)],
  ])("refuses %s even when served as image/png", async (_name, bytes) => {
    serve(publicServer, "/logo", bytes, { "Content-Type": "image/png" });
    const error = await expectLogoError(
      fetchLogo(publicUrl("/logo"), testOptions()),
      "unsupported_type",
    );
    expect(error.message).toBe("the logo must be a PNG, JPEG or WebP image");
  });
});

describe("fetchLogo: URL rules", () => {
  it.each([
    "http://logo.example/logo.png",
    "ftp://logo.example/logo.png",
    "file:///etc/passwd",
    "data:image/png;base64,iVBORw0KGgo=",
    "javascript:alert(1)",
  ])("refuses the non-https address %s", async (url) => {
    const error = await expectLogoError(fetchLogo(url, testOptions()), "not_https");
    expect(error.message).toMatch(/^the logo address must use https, not [a-z]+$/);
  });

  it.each(["https://user:secret@logo.example/logo.png", "https://user@logo.example/logo.png"])(
    "refuses credentials in %s",
    async (url) => {
      await expectLogoError(fetchLogo(url, testOptions()), "credentials");
    },
  );

  it("refuses a port other than 443 by default", async () => {
    const error = await expectLogoError(
      fetchLogo("https://logo.example:8443/logo.png"),
      "port_not_allowed",
    );
    expect(error.message).toBe("the logo address may not use port 8443");
  });

  it("refuses something that is not a URL", async () => {
    await expectLogoError(fetchLogo("logo.png"), "invalid_url");
  });
});

/** Address literals that reach this host or its network, IPv6 forms carrying IPv4 ones included. */
const NON_PUBLIC_LITERALS = [
  "https://127.0.0.1/logo.png",
  "https://10.1.2.3/logo.png",
  "https://192.168.0.10/logo.png",
  "https://169.254.169.254/latest/meta-data",
  "https://[::1]/logo.png",
  "https://[fe80::1]/logo.png",
  "https://[::ffff:127.0.0.1]/logo.png",
  "https://0x7f.1/logo.png",
  "https://[64:ff9b::127.0.0.1]/logo.png",
  "https://[64:ff9b::a9fe:a9fe]/latest/meta-data",
  "https://[64:ff9b:1::a00:1]/logo.png",
  "https://[2002:7f00:1::1]/logo.png",
  "https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/logo.png",
  "https://[::127.0.0.1]/logo.png",
];

/** IPv6 forms carrying the private 10.0.0.7 (Teredo's client bits are inverted). */
const CARRYING_10_0_0_7 = [
  ["NAT64", "64:ff9b::a00:7"],
  ["6to4", "2002:a00:7::1"],
  ["Teredo", "2001:0:4136:e378:8000:63bf:f5ff:fff8"],
  ["IPv4-compatible", "::a00:7"],
  ["IPv4-mapped", "::ffff:a00:7"],
] as const;

describe("fetchLogo: public addresses only", () => {
  it.each(NON_PUBLIC_LITERALS)(
    "refuses the non-public address literal in %s under the default rules",
    async (url) => {
      const error = await expectLogoError(fetchLogo(url), "private_address");
      expect(error.message).toMatch(/is not a public internet address$/);
    },
  );

  it("refuses a hostname that resolves to a private address, without connecting", async () => {
    serve(internalServer, "/logo", PNG);
    const dns = fakeDns({ "internal.example": [INTERNAL] });
    const error = await expectLogoError(
      fetchLogo(internalUrl("/logo"), testOptions({ lookup: dns.lookup })),
      "private_address",
    );
    expect(error.message).toBe(
      `the logo host internal.example resolves to ${INTERNAL}, which is not a public internet address`,
    );
    expect(dns.questions).toEqual(["internal.example"]);
    expect(internalServer.requests).toEqual([]);
  });

  it("refuses a hostname when ANY of its addresses is private", async () => {
    serve(publicServer, "/logo", PNG);
    const dns = fakeDns({ "logo.example": [VETTED, "10.0.0.7"] });
    await expectLogoError(
      fetchLogo(publicUrl("/logo"), testOptions({ lookup: dns.lookup })),
      "private_address",
    );
    expect(publicServer.requests).toEqual([]);
  });

  it("refuses under the default rules a hostname the injected resolver maps to loopback", async () => {
    const dns = fakeDns({ "logo.example": ["::1"] });
    await expectLogoError(
      fetchLogo("https://logo.example/logo.png", { lookup: dns.lookup }),
      "private_address",
    );
  });

  it.each(CARRYING_10_0_0_7)(
    "refuses a hostname that resolves to an IPv6 address carrying 10.0.0.7 (%s)",
    async (_form, address) => {
      const dns = fakeDns({ "logo.example": [address] });
      const error = await expectLogoError(
        fetchLogo("https://logo.example/logo.png", { lookup: dns.lookup }),
        "private_address",
      );
      expect(error.message).toBe(
        `the logo host logo.example resolves to ${address}, which is not a public internet address`,
      );
    },
  );

  it("pins the connection to the vetted address: a rebinding DNS answer is never used", async () => {
    serve(publicServer, "/logo", PNG);
    serve(internalServer, "/logo", GIF);
    // First answer vetted, any later one private: a fetch that resolved the name again when
    // connecting would reach the internal server, which listens on the same port.
    const answers = [VETTED, INTERNAL];
    const questions: string[] = [];
    const rebinding = async (hostname: string): Promise<ResolvedAddress[]> => {
      questions.push(hostname);
      const address = answers[Math.min(questions.length - 1, answers.length - 1)] ?? INTERNAL;
      return [{ address, family: 4 }];
    };
    const logo = await fetchLogo(publicUrl("/logo"), testOptions({ lookup: rebinding }));
    expect(logo.contentType).toBe("image/png");
    expect(questions).toEqual(["logo.example"]);
    expect(publicServer.requests).toEqual(["/logo"]);
    expect(internalServer.requests).toEqual([]);
  });

  it("refuses a rebinding answer on a later hop, where it is checked again", async () => {
    redirect(publicServer, "/first", publicUrl("/second"));
    serve(publicServer, "/second", PNG);
    const answers = [VETTED, INTERNAL];
    let calls = 0;
    const rebinding = async (): Promise<ResolvedAddress[]> => [
      { address: answers[Math.min(calls++, 1)] ?? INTERNAL, family: 4 },
    ];
    await expectLogoError(
      fetchLogo(publicUrl("/first"), testOptions({ lookup: rebinding })),
      "private_address",
    );
    expect(publicServer.requests).toEqual(["/first"]);
    expect(internalServer.requests).toEqual([]);
  });

  it("checks the certificate against the hostname, not the pinned address", async () => {
    serve(publicServer, "/logo", PNG);
    const dns = fakeDns({ "other.example": [VETTED] });
    await expectLogoError(
      fetchLogo(
        `https://other.example:${publicServer.port}/logo`,
        testOptions({ lookup: dns.lookup }),
      ),
      "unreachable",
    );
    expect(publicServer.requests).toEqual([]);
  });

  it("does not trust a self-signed certificate it was not given", async () => {
    serve(publicServer, "/logo", PNG);
    await expectLogoError(
      fetchLogo(publicUrl("/logo"), testOptions({ ca: undefined })),
      "unreachable",
    );
    expect(publicServer.requests).toEqual([]);
  });

  it("reports a hostname that does not resolve as unreachable", async () => {
    const error = await expectLogoError(
      fetchLogo(`https://nowhere.example:${publicServer.port}/logo`, testOptions()),
      "unreachable",
    );
    expect(error.message).toBe("the logo host nowhere.example could not be resolved");
  });

  it("reports a hostname with no addresses as unreachable", async () => {
    const dns = fakeDns({ "logo.example": [] });
    await expectLogoError(
      fetchLogo(publicUrl("/logo"), testOptions({ lookup: dns.lookup })),
      "unreachable",
    );
  });
});

describe("fetchLogo: redirects", () => {
  it("follows up to three redirects, relative and absolute", async () => {
    redirect(publicServer, "/r1", "/r2", 301);
    redirect(publicServer, "/r2", publicUrl("/r3"), 307);
    redirect(publicServer, "/r3", "r4", 308);
    serve(publicServer, "/r4", WEBP);
    const logo = await fetchLogo(publicUrl("/r1"), testOptions());
    expect(logo.contentType).toBe("image/webp");
    expect(publicServer.requests).toEqual(["/r1", "/r2", "/r3", "/r4"]);
  });

  it("refuses a fourth redirect", async () => {
    for (const step of [1, 2, 3, 4]) redirect(publicServer, `/r${step}`, `/r${step + 1}`);
    serve(publicServer, "/r5", PNG);
    const error = await expectLogoError(
      fetchLogo(publicUrl("/r1"), testOptions()),
      "too_many_redirects",
    );
    expect(error.message).toBe("the logo address redirected more than 3 times");
    expect(publicServer.requests).toEqual(["/r1", "/r2", "/r3", "/r4"]);
  });

  it("honours a lower redirect limit", async () => {
    redirect(publicServer, "/r1", "/r2");
    serve(publicServer, "/r2", PNG);
    await expectLogoError(
      fetchLogo(publicUrl("/r1"), testOptions({ maxRedirects: 0 })),
      "too_many_redirects",
    );
  });

  it("refuses a redirect to a hostname that resolves to a private address", async () => {
    redirect(publicServer, "/logo", internalUrl("/logo"));
    serve(internalServer, "/logo", PNG);
    await expectLogoError(fetchLogo(publicUrl("/logo"), testOptions()), "private_address");
    expect(internalServer.requests).toEqual([]);
  });

  it.each([
    () => `https://${INTERNAL}:${internalServer.port}/logo`,
    () => `https://[::1]:${publicServer.port}/logo`,
    () => `https://169.254.169.254:${publicServer.port}/latest/meta-data`,
  ])("refuses a redirect to the private address literal %#", async (location) => {
    redirect(publicServer, "/logo", location());
    serve(internalServer, "/logo", PNG);
    await expectLogoError(fetchLogo(publicUrl("/logo"), testOptions()), "private_address");
    expect(internalServer.requests).toEqual([]);
  });

  it("refuses a redirect to http", async () => {
    redirect(publicServer, "/logo", `http://logo.example:${publicServer.port}/logo.png`);
    await expectLogoError(fetchLogo(publicUrl("/logo"), testOptions()), "not_https");
    expect(publicServer.requests).toEqual(["/logo"]);
  });

  it("refuses a redirect to an address with credentials or a port not allowed", async () => {
    redirect(publicServer, "/creds", `https://u:p@logo.example:${publicServer.port}/x`);
    redirect(publicServer, "/port", "https://logo.example:8443/x");
    await expectLogoError(fetchLogo(publicUrl("/creds"), testOptions()), "credentials");
    await expectLogoError(fetchLogo(publicUrl("/port"), testOptions()), "port_not_allowed");
  });
});

describe("fetchLogo: status", () => {
  it.each([404, 500, 304, 403])("refuses HTTP status %i", async (status) => {
    publicServer.routes.set("/logo", (_request, response) => response.writeHead(status).end(PNG));
    const error = await expectLogoError(
      fetchLogo(publicUrl("/logo"), testOptions()),
      "http_status",
    );
    expect(error.message).toBe(`the logo address answered with HTTP status ${status}`);
  });

  it("refuses a redirect without a Location", async () => {
    publicServer.routes.set("/logo", (_request, response) => response.writeHead(302).end());
    await expectLogoError(fetchLogo(publicUrl("/logo"), testOptions()), "http_status");
  });
});

describe("fetchLogo: size limit", () => {
  it("refuses a declared Content-Length over the limit before reading the body", async () => {
    publicServer.routes.set("/big", (_request, response) => {
      response.writeHead(200, { "Content-Length": String(LOGO_MAX_BYTES + 1) });
      response.write(PNG);
      // The rest never comes: only the declared length can end this quickly.
    });
    const error = await expectLogoError(
      fetchLogo(publicUrl("/big"), testOptions({ timeoutMs: 2_000 })),
      "too_large",
    );
    expect(error.message).toBe(`the logo is larger than ${LOGO_MAX_BYTES} bytes`);
  });

  it("refuses a chunked body that grows past the limit while streaming", async () => {
    const chunk = Buffer.alloc(64 * 1024);
    publicServer.routes.set("/big", (request, response) => {
      response.writeHead(200, { "Content-Type": "image/png" });
      response.write(PNG);
      // Endless, so the client must stop reading by itself.
      const pump = () => {
        while (response.write(chunk));
      };
      response.on("drain", pump);
      request.on("close", () => response.off("drain", pump));
      pump();
    });
    const started = Date.now();
    await expectLogoError(fetchLogo(publicUrl("/big"), testOptions()), "too_large");
    expect(Date.now() - started).toBeLessThan(4_000);
  });

  it("refuses a complete chunked body one byte over a custom limit", async () => {
    const body = Buffer.concat([PNG, Buffer.alloc(2048 - PNG.length + 1)]);
    publicServer.routes.set("/big", (_request, response) => {
      response.writeHead(200);
      response.write(body.subarray(0, 1000));
      response.end(body.subarray(1000));
    });
    await expectLogoError(
      fetchLogo(publicUrl("/big"), testOptions({ maxBytes: 2048 })),
      "too_large",
    );
  });
});

describe("fetchLogo: time limit", () => {
  /** Runs the action after a delay, unless the client has gone by then. */
  function hold(
    request: IncomingMessage,
    response: ServerResponse,
    ms: number,
    action: () => void,
  ) {
    const timer = setTimeout(action, ms);
    request.on("close", () => clearTimeout(timer));
    response.on("close", () => clearTimeout(timer));
  }

  it("gives up on a server that delays its headers", async () => {
    publicServer.routes.set("/slow", (request, response) =>
      hold(request, response, 5_000, () => response.writeHead(200).end(PNG)),
    );
    const started = Date.now();
    const error = await expectLogoError(
      fetchLogo(publicUrl("/slow"), testOptions({ timeoutMs: 300 })),
      "timeout",
    );
    expect(error.message).toBe("the logo could not be fetched within the time limit");
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it("gives up on a server that drips its body byte by byte", async () => {
    publicServer.routes.set("/drip", (request, response) => {
      response.writeHead(200, { "Content-Type": "image/png" });
      response.write(PNG.subarray(0, 8));
      const timer = setInterval(() => response.write(Buffer.from([0])), 30);
      request.on("close", () => clearInterval(timer));
      response.on("close", () => clearInterval(timer));
    });
    const started = Date.now();
    await expectLogoError(
      fetchLogo(publicUrl("/drip"), testOptions({ timeoutMs: 400 })),
      "timeout",
    );
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(350);
    expect(elapsed).toBeLessThan(1_500);
  });

  it("counts the limit over the whole fetch, redirects included", async () => {
    for (const step of [1, 2, 3]) {
      publicServer.routes.set(`/r${step}`, (request, response) =>
        hold(request, response, 200, () =>
          response.writeHead(302, { Location: `/r${step + 1}` }).end(),
        ),
      );
    }
    serve(publicServer, "/r4", PNG);
    // Each hop alone is well within the limit; together they are not.
    await expectLogoError(fetchLogo(publicUrl("/r1"), testOptions({ timeoutMs: 450 })), "timeout");
    expect(publicServer.requests).not.toContain("/r4");
  });

  it("gives up on a resolver that never answers", async () => {
    const never = () => new Promise<ResolvedAddress[]>(() => {});
    await expectLogoError(
      fetchLogo(publicUrl("/logo"), testOptions({ lookup: never, timeoutMs: 200 })),
      "timeout",
    );
  });
});
