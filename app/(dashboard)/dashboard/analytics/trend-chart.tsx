/**
 * Flows started and approved per day (or hour), two lines drawn on the
 * server as SVG with a value axis and the first, middle and last date. Title
 * and description say what it shows; the figures of every day are in the
 * table under it.
 */
export interface TrendSeries {
  label: string;
  /** One value per point, oldest first. */
  values: number[];
  className: string;
}

const WIDTH = 320;
const HEIGHT = 180;
const LEFT = 34;
const RIGHT = 8;
const TOP = 10;
const BOTTOM = 26;

/** A round top for the value axis: 1, 2, 5, 10, 20, 50, … at least `max`. */
function niceTop(max: number): number {
  if (max <= 4) return 4;
  const power = 10 ** Math.floor(Math.log10(max));
  const step = [1, 2, 5, 10].find((factor) => factor * power >= max) ?? 10;
  return step * power;
}

export function TrendChart(props: {
  id: string;
  title: string;
  description: string;
  series: TrendSeries[];
  /** The x-axis label of each point. */
  labels: string[];
  formatCount: (value: number) => string;
}) {
  const { id, series, labels } = props;
  const points = labels.length;
  const top = niceTop(Math.max(0, ...series.flatMap((line) => line.values)));
  const plotWidth = WIDTH - LEFT - RIGHT;
  const plotHeight = HEIGHT - TOP - BOTTOM;
  const x = (index: number) => LEFT + (points <= 1 ? 0 : (index / (points - 1)) * plotWidth);
  const y = (value: number) => TOP + plotHeight - (value / top) * plotHeight;
  const ticks = [0, top / 2, top];
  const marked = [...new Set([0, Math.floor((points - 1) / 2), points - 1])];
  return (
    <svg
      className="chart trend-chart"
      viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
      role="img"
      aria-labelledby={`${id}-title ${id}-desc`}
    >
      <title id={`${id}-title`}>{props.title}</title>
      <desc id={`${id}-desc`}>{props.description}</desc>
      <g aria-hidden="true">
        {ticks.map((tick) => (
          <g key={tick}>
            <line x1={LEFT} x2={WIDTH - RIGHT} y1={y(tick)} y2={y(tick)} className="chart-grid" />
            <text x={LEFT - 6} y={y(tick) + 4} className="chart-axis" textAnchor="end">
              {props.formatCount(tick)}
            </text>
          </g>
        ))}
        {marked.map((index) => (
          <text
            key={index}
            x={x(index)}
            y={HEIGHT - 6}
            className="chart-axis"
            textAnchor={index === 0 ? "start" : index === points - 1 ? "end" : "middle"}
          >
            {labels[index]}
          </text>
        ))}
        {series.map((line) => (
          <g key={line.label} className={line.className}>
            <polyline
              className="chart-line"
              points={line.values.map((value, index) => `${x(index)},${y(value)}`).join(" ")}
            />
            {line.values.map((value, index) =>
              value > 0 ? (
                <circle key={index} cx={x(index)} cy={y(value)} r={3} className="chart-dot" />
              ) : null,
            )}
          </g>
        ))}
      </g>
    </svg>
  );
}
