// The benchmarks' page baseline: what an empty Next.js page ships to a browser.
export const dynamic = "force-dynamic";

export default function Empty() {
  return null;
}
