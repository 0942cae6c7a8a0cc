import { parseArgs } from "node:util";
import { rawSetting } from "../../lib/env";
import { startService } from "../lib/service-process";
import { buildRequest, GENERATORS, METHOD_SWEEP } from "./corpus";
import { setUpFixtures } from "./fixtures";
import { closeConnections, send } from "./http";
import { judge, nodeParserRefusal } from "./oracle";
import { describeFailure, summarize, type Outcome } from "./report";

/**
 * `npm run test:fuzz [-- --seed N|random --count N]`: a deterministic corpus of
 * malformed requests against every endpoint of the production build over
 * real HTTP. Fails when any answer is a 5xx or not in its documented shape
 * (scripts/fuzz/oracle.ts), printing each offender so it can be sent again.
 */

const DEFAULT_COUNT = 2_000;
/** Fixed so that `npm test` is deterministic; `--seed random` (or any number) explores. */
const DEFAULT_SEED = 1;
const CONCURRENCY = 8;

function options() {
  const { values } = parseArgs({
    options: {
      seed: { type: "string" },
      count: { type: "string" },
      only: { type: "string" },
    },
  });
  const seed =
    values.seed === undefined
      ? DEFAULT_SEED
      : values.seed === "random"
        ? Math.floor(Math.random() * 2 ** 31)
        : Number(values.seed);
  const count = values.count === undefined ? DEFAULT_COUNT : Number(values.count);
  if (!Number.isInteger(seed) || !Number.isInteger(count) || count < 1) {
    throw new Error("usage: run.ts [--seed N|random] [--count N] [--only INDEX]");
  }
  const only = values.only === undefined ? null : Number(values.only);
  return { seed, count, only };
}

/** A distinct client address per request, so the per-IP limits (/docs/errors) stay out of the way. */
const clientIp = (index: number) =>
  `10.${(index >> 16) & 255}.${(index >> 8) & 255}.${index & 255}`;

async function main() {
  const { seed, count, only } = options();
  console.log(
    `fuzz: seed ${seed}, ${count} requests over ${GENERATORS.length} endpoints (first ${METHOD_SWEEP} sweep every method)`,
  );
  const redisUrl = rawSetting("REDIS_URL");
  const service = await startService({
    label: "fuzz",
    settings: redisUrl ? { REDIS_URL: redisUrl } : {},
  });
  const started = Date.now();
  let failed = 0;
  try {
    const ctx = await setUpFixtures(service.origin);
    const indexes = only === null ? Array.from({ length: count }, (_, i) => i) : [only];
    const outcomes: Outcome[] = [];
    let next = 0;
    const worker = async () => {
      while (next < indexes.length) {
        const index = indexes[next++] as number;
        const request = buildRequest(ctx, seed, index);
        try {
          const answer = await send(service.origin, request, clientIp(index));
          outcomes.push({ request, answer, problems: judge(request, answer) });
        } catch (error) {
          // Node's parser refused the request and closed the socket mid-upload.
          const refused = nodeParserRefusal(request);
          const answer = refused ? { status: refused, headers: {}, body: Buffer.alloc(0) } : null;
          outcomes.push({
            request,
            answer,
            problems: refused ? [] : [`no answer: ${(error as Error).message}`],
          });
        }
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    outcomes.sort((a, b) => a.request.index - b.request.index);
    console.log(`\n${summarize(outcomes)}\n`);
    const failures = outcomes.filter((outcome) => outcome.problems.length > 0);
    for (const failure of failures) console.log(`${describeFailure(failure)}\n`);
    failed = failures.length;
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    console.log(
      `${outcomes.length} requests in ${seconds} s, ${failed} failed (seed ${seed}; service log: ${service.logFile})`,
    );
  } finally {
    closeConnections();
    await service.stop();
  }
  process.exitCode = failed > 0 ? 1 : 0;
}

// Exits explicitly: the embedded PostgreSQL package's exit hooks would end
// the process with status 0 and hide the failures counted above.
main().then(
  () => process.exit(process.exitCode ?? 0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
