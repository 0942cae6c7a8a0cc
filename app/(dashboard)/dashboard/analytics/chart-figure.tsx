import type { ReactNode } from "react";

/**
 * A chart as one image to assistive technology: named by `title` and
 * described by `description` (both hidden from sight), its drawing hidden
 * from the accessibility tree by the chart itself.
 */
export function ChartFigure(props: {
  id: string;
  className: string;
  title: string;
  description: string;
  children: ReactNode;
}) {
  const { id } = props;
  return (
    <div
      className={`chart ${props.className}`}
      role="img"
      aria-labelledby={`${id}-title ${id}-desc`}
    >
      <span id={`${id}-title`} className="visually-hidden">
        {props.title}
      </span>
      <span id={`${id}-desc`} className="visually-hidden">
        {props.description}
      </span>
      {props.children}
    </div>
  );
}
