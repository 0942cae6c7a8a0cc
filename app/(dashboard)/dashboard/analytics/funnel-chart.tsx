/**
 * The funnel: one bar per step, as long as the share of started flows that
 * reached it, drawn on the server as SVG. The SVG carries its own title and
 * description; the same figures are in the table beside it for screen
 * readers and for reading without styles.
 */
export interface FunnelRow {
  label: string;
  count: number;
  /** Formatted count and share, e.g. "12 · 40 %". */
  figure: string;
}

const WIDTH = 320;
const ROW = 46;
const BAR = 16;

export function FunnelChart(props: {
  id: string;
  title: string;
  description: string;
  rows: FunnelRow[];
}) {
  const { id, rows } = props;
  const top = Math.max(1, rows[0]?.count ?? 0);
  const height = rows.length * ROW;
  return (
    <svg
      className="chart funnel-chart"
      viewBox={`0 0 ${WIDTH} ${height}`}
      role="img"
      aria-labelledby={`${id}-title ${id}-desc`}
    >
      <title id={`${id}-title`}>{props.title}</title>
      <desc id={`${id}-desc`}>{props.description}</desc>
      {rows.map((row, index) => {
        const y = index * ROW;
        const width = (Math.min(row.count, top) / top) * WIDTH;
        return (
          <g key={row.label} aria-hidden="true">
            <text x={0} y={y + 16} className="chart-label">
              {row.label}
            </text>
            <text x={WIDTH} y={y + 16} className="chart-figure" textAnchor="end">
              {row.figure}
            </text>
            <rect x={0} y={y + 24} width={WIDTH} height={BAR} rx={4} className="chart-track" />
            {row.count > 0 ? (
              <rect
                x={0}
                y={y + 24}
                width={Math.max(width, 4)}
                height={BAR}
                rx={4}
                className="chart-bar"
              />
            ) : null}
          </g>
        );
      })}
    </svg>
  );
}
