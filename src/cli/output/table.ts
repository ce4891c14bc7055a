// Plain-text tables for the terminal: left-aligned columns, numbers right-aligned, a dash for empty.
export type Cell = string | number | null | undefined;

export interface Column {
  header: string;
  align?: 'left' | 'right';
  // Longer values are cut with an ellipsis so one long message does not break the layout.
  maxWidth?: number;
}

export function renderTable(columns: (Column | string)[], rows: Cell[][]): string {
  const cols = columns.map((c) => (typeof c === 'string' ? { header: c } : c));
  const text = rows.map((row) => cols.map((col, i) => cellText(row[i], col.maxWidth)));
  const widths = cols.map((col, i) => Math.max(col.header.length, ...text.map((r) => r[i].length)));
  const align = cols.map(
    (col, i) =>
      col.align ?? (rows.length > 0 && rows.every((r) => typeof r[i] === 'number') ? 'right' : 'left'),
  );
  const line = (cells: string[]): string =>
    cells
      .map((cell, i) => (align[i] === 'right' ? cell.padStart(widths[i]) : cell.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  return [line(cols.map((c) => c.header)), ...text.map(line)].join('\n');
}

function cellText(value: Cell, maxWidth?: number): string {
  const raw =
    value === null || value === undefined || value === '' ? '-' : String(value).replace(/\s+/g, ' ');
  return maxWidth !== undefined && raw.length > maxWidth ? `${raw.slice(0, maxWidth - 1)}…` : raw;
}
