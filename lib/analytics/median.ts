/**
 * The median time to approve, read from a histogram of fixed buckets
 * (lib/analytics/events.ts APPROVAL_BUCKETS), the way Prometheus'
 * histogram_quantile reads one: find the bucket where the cumulative count
 * passes half of all approvals and interpolate linearly inside it. The
 * answer lies in the same bucket as the true median, so it is off by less
 * than that bucket's width (15 s around one minute, 5 minutes around half an
 * hour). Unlike a list of durations, buckets of any hours and clients add up
 * exactly, and no per-flow time has to be kept.
 */

export interface Bucket {
  /** Upper bound in seconds (the previous bucket's bound is the lower one, 0 for the first). */
  le: number;
  count: number;
}

export function medianFromBuckets(buckets: readonly Bucket[]): number | null {
  const sorted = [...buckets].sort((a, b) => a.le - b.le);
  const total = sorted.reduce((sum, bucket) => sum + bucket.count, 0);
  if (total === 0) return null;
  const rank = total / 2;
  let cumulative = 0;
  let lower = 0;
  for (const bucket of sorted) {
    if (bucket.count > 0 && cumulative + bucket.count >= rank) {
      return lower + (bucket.le - lower) * ((rank - cumulative) / bucket.count);
    }
    cumulative += bucket.count;
    lower = bucket.le;
  }
  return lower;
}
