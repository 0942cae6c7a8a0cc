import { ChartFigure } from "./chart-figure";

/**
 * The funnel: one bar per step, as long as the share of started flows that
 * reached it. Labels and figures are page text, so they keep the page's size
 * at every width; each bar is a small SVG stretched to the row. The whole is
 * one image to assistive technology, named by its title and described by the
 * figures of every step.
 */
export interface FunnelRow {
  label: string;
  count: number;
  /** Formatted count and share, e.g. "12 · 40 %". */
  figure: string;
}

/** The shortest bar a step with any flow gets, in percent, so it stays visible. */
const MIN_SHARE = 1.5;

export function FunnelChart(props: {
  id: string;
  title: string;
  description: string;
  rows: FunnelRow[];
}) {
  const { id, rows } = props;
  const top = Math.max(1, rows[0]?.count ?? 0);
  return (
    <ChartFigure
      id={id}
      className="funnel-chart"
      title={props.title}
      description={props.description}
    >
      {rows.map((row) => {
        const share = (Math.min(row.count, top) / top) * 100;
        return (
          <div key={row.label} className="funnel-row" aria-hidden="true">
            <span className="chart-label">{row.label}</span>
            <span className="chart-figure">{row.figure}</span>
            <svg className="funnel-bar" viewBox="0 0 100 1" preserveAspectRatio="none">
              {row.count > 0 ? (
                <rect width={Math.max(share, MIN_SHARE)} height={1} className="chart-bar" />
              ) : null}
            </svg>
          </div>
        );
      })}
    </ChartFigure>
  );
}
