import type { Formats } from "./format";

/** How many flows ended one way, split by step or reason, as a table with its total. */
export function BreakdownTable(props: {
  id: string;
  title: string;
  header: string;
  countHeader: string;
  rows: { key: string; label: string; count: number }[];
  total: number;
  format: Formats;
}) {
  const { id, format } = props;
  return (
    <section className="card" aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`}>
        {props.title}: <span data-stat={id}>{format.count(props.total)}</span>
      </h2>
      <table className="analytics-table" aria-labelledby={`${id}-heading`}>
        <thead>
          <tr>
            <th scope="col">{props.header}</th>
            <th scope="col" className="number">
              {props.countHeader}
            </th>
          </tr>
        </thead>
        <tbody>
          {props.rows.map((row) => (
            <tr key={row.key} data-row={row.key}>
              <th scope="row">{row.label}</th>
              <td className="number">{format.count(row.count)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
