import { ChartFigure } from "./chart-figure";

/**
 * Flows started and approved per day (or hour): two lines with a value axis
 * and the first, middle and last date. The lines are an SVG stretched to the
 * plot (strokes and dots keep their size); the axis labels are page text, so
 * they keep the page's size at every width. The whole is one image to
 * assistive technology, named by its title and described in words; the
 * figures of every day are in the table under it.
 */
export interface TrendSeries {
  label: string;
  /** One value per point, oldest first. */
  values: number[];
  className: string;
}

/** The plot's own coordinates; the SVG is stretched to the plot's box. */
const WIDTH = 300;
const HEIGHT = 100;

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
  const x = (index: number) => (points <= 1 ? 0 : (index / (points - 1)) * WIDTH);
  const y = (value: number) => HEIGHT - (value / top) * HEIGHT;
  const ticks = [top, top / 2, 0];
  // The middle label stands under the middle of the axis: the point there
  // when there is one, else the one just before it.
  const marked = [...new Set([0, Math.floor((points - 1) / 2), points - 1])];
  return (
    <ChartFigure
      id={id}
      className="trend-chart"
      title={props.title}
      description={props.description}
    >
      <div className="trend-plot" aria-hidden="true">
        <div className="trend-y">
          {ticks.map((tick) => (
            <span key={tick}>{props.formatCount(tick)}</span>
          ))}
        </div>
        <svg className="trend-lines" viewBox={`0 0 ${WIDTH} ${HEIGHT}`} preserveAspectRatio="none">
          {ticks.map((tick) => (
            <line key={tick} x1={0} x2={WIDTH} y1={y(tick)} y2={y(tick)} className="chart-grid" />
          ))}
          {series.map((line) => (
            <g key={line.label} className={line.className}>
              <polyline
                className="chart-line"
                points={line.values.map((value, index) => `${x(index)},${y(value)}`).join(" ")}
              />
              {line.values.map((value, index) =>
                value > 0 ? (
                  // A zero-length path with round caps: a dot that stays round when stretched.
                  <path key={index} d={`M${x(index)} ${y(value)}h0`} className="chart-dot" />
                ) : null,
              )}
            </g>
          ))}
        </svg>
        <div className="trend-x">
          {marked.map((index) => (
            <span key={index}>{labels[index]}</span>
          ))}
        </div>
      </div>
    </ChartFigure>
  );
}
