// Plain-text tables for the terminal: left-aligned columns, numbers right-aligned, a dash for empty.
export type Cell = string | number | null | undefined;

export interface Column {
  header: string;
  align?: 'left' | 'right';
  // Longer values are cut with an ellipsis so one long message does not break the layout.
  maxWidth?: number;
  // Longer values wrap onto more lines of the row at word boundaries: nothing is lost (messages
  // whose end holds the fix).
  wrap?: number;
}

export function renderTable(columns: (Column | string)[], rows: Cell[][]): string {
  const cols = columns.map((c) => (typeof c === 'string' ? { header: c } : c));
  const text = rows.map((row) =>
    cols.map((col, i) => {
      const cell = cellText(row[i], col.maxWidth);
      return col.wrap !== undefined ? wrapText(cell, col.wrap) : [cell];
    }),
  );
  const widths = cols.map((col, i) =>
    Math.max(col.header.length, ...text.flatMap((r) => r[i].map((l) => l.length))),
  );
  const align = cols.map(
    (col, i) =>
      col.align ?? (rows.length > 0 && rows.every((r) => typeof r[i] === 'number') ? 'right' : 'left'),
  );
  const line = (cells: string[]): string =>
    cells
      .map((cell, i) => (align[i] === 'right' ? cell.padStart(widths[i]) : cell.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  const rowLines = (cells: string[][]): string[] => {
    const height = Math.max(...cells.map((c) => c.length));
    return Array.from({ length: height }, (_, n) => line(cells.map((c) => c[n] ?? '')));
  };
  return [line(cols.map((c) => c.header)), ...text.flatMap(rowLines)].join('\n');
}

// Greedy word wrap; a word longer than the width is split.
export function wrapText(text: string, width: number): string[] {
  const lines: string[] = [];
  let current = '';
  for (let word of text.split(' ')) {
    while (word.length > width) {
      if (current) lines.push(current);
      lines.push(word.slice(0, width));
      word = word.slice(width);
      current = '';
    }
    if (!current) current = word;
    else if (current.length + 1 + word.length <= width) current += ` ${word}`;
    else {
      lines.push(current);
      current = word;
    }
  }
  lines.push(current);
  return lines;
}

function cellText(value: Cell, maxWidth?: number): string {
  const raw =
    value === null || value === undefined || value === '' ? '-' : String(value).replace(/\s+/g, ' ');
  return maxWidth !== undefined && raw.length > maxWidth ? `${raw.slice(0, maxWidth - 1)}…` : raw;
}
