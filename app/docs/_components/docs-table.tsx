import type { ReactNode } from "react";

export interface DocsTableRow {
  key: string;
  cells: readonly ReactNode[];
}

/** A reference table; on a narrow screen it scrolls sideways inside itself. */
export function DocsTable({
  head,
  rows,
  testId,
}: {
  head: readonly string[];
  rows: readonly DocsTableRow[];
  /** The table's data-testid, for a journey that reads it. */
  testId?: string;
}) {
  return (
    <div className="table-scroll" tabIndex={0}>
      <table data-testid={testId}>
        <thead>
          <tr>
            {head.map((title) => (
              <th key={title}>{title}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.key}>
              {row.cells.map((cell, index) => (
                <td key={index}>{cell}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
