/** What each check of the cluster run gets. */
export interface ClusterContext {
  /** nginx's public address (every instance's ISSUER). */
  proxy: string;
  /** Each instance's own address. */
  instances: string[];
  /** A false `ok` fails the run with `message`. */
  check: (ok: boolean, message: string) => void;
  log: (line: string) => void;
}
