/**
 * The promises a run checks (the load and fault run, the cluster run, the
 * image run): each broken one is kept as a line; at the end the run says
 * which were broken and exits 1, or says `kept` and exits 0.
 */
export function promiseLedger() {
  const failures: string[] = [];
  return {
    failures,
    check(ok: boolean, message: string): void {
      if (!ok) failures.push(message);
    },
    exit(kept: string): never {
      if (failures.length > 0) {
        console.error(`\nFAILED (${failures.length}):`);
        for (const failure of failures.slice(0, 40)) console.error(`  ${failure}`);
        process.exit(1);
      }
      console.log(`\n${kept}`);
      process.exit(0);
    },
  };
}
