import { PassThrough } from 'node:stream';
import { formatCounts, formatDuration } from './format';
import { ProgressPrinter, progressBar } from './progress.printer';
import { renderTable, wrapText } from './table';

describe('renderTable', () => {
  it('aligns columns, right-aligns numbers and shows a dash for empty cells', () => {
    const table = renderTable(
      ['ID', 'JOB', 'STATUS'],
      [
        [7, 'marketplace', 'succeeded'],
        [12, 'crm-changes', null],
      ],
    );
    expect(table.split('\n')).toEqual([
      'ID  JOB          STATUS',
      ' 7  marketplace  succeeded',
      '12  crm-changes  -',
    ]);
  });

  it('cuts long values to the column width', () => {
    const table = renderTable([{ header: 'MESSAGE', maxWidth: 10 }], [['StreetName is 57 characters']]);
    expect(table.split('\n')[1]).toBe('StreetNam…');
  });
});

describe('wrapping', () => {
  it('wraps long values onto more lines of the row instead of cutting them', () => {
    const table = renderTable(
      ['ID', { header: 'MESSAGE', wrap: 20 }, 'SEEN'],
      [
        [1, 'StreetName is 57 characters; the service allows 50. Shorten it on the deal.', 2],
        [2, 'short', 1],
      ],
    );
    expect(table.split('\n')).toEqual([
      'ID  MESSAGE             SEEN',
      ' 1  StreetName is 57       2',
      '    characters; the',
      '    service allows 50.',
      '    Shorten it on the',
      '    deal.',
      ' 2  short                  1',
    ]);
  });

  it('splits a word longer than the width', () => {
    expect(wrapText('abcdefghij kl', 4)).toEqual(['abcd', 'efgh', 'ij', 'kl']);
  });
});

describe('formatting', () => {
  it('formats counts and durations', () => {
    expect(formatCounts({ pending: 2, done: 0, dead: 1 })).toBe('pending 2, dead 1');
    expect(formatCounts({ pending: 0 })).toBe('empty');
    expect(formatDuration(1500)).toBe('1.5s');
    expect(formatDuration(125_000)).toBe('2m05s');
    expect(formatDuration(null)).toBe('-');
  });
});

describe('ProgressPrinter', () => {
  it('prints at most one line per interval off a terminal, and always the last one', () => {
    const stream = new PassThrough();
    let now = 0;
    const printer = new ProgressPrinter('demo marketplace', stream, () => now, 1000);
    printer.update(1, 4);
    now = 500;
    printer.update(2, 4);
    now = 1500;
    printer.update(3, 4);
    printer.update(4, 4);
    printer.finish('done');
    expect(String(stream.read())).toBe(
      'demo marketplace: 1/4 (25%)\ndemo marketplace: 3/4 (75%)\ndemo marketplace: 4/4 (100%)\ndemo marketplace: done\n',
    );
  });
});

describe('progress bar', () => {
  it('redraws a bar in place on a terminal', () => {
    const stream = Object.assign(new PassThrough(), { isTTY: true });
    const printer = new ProgressPrinter('acme marketplace', stream, () => 0, 1000);
    printer.update(12, 48);
    printer.update(48, 48);
    printer.finish();
    expect(String(stream.read())).toBe(
      `\r\x1b[2K[######------------------] acme marketplace: 12/48 (25%)` +
        `\r\x1b[2K[########################] acme marketplace: 48/48 (100%)\r\x1b[2K`,
    );
    expect(progressBar(0, 10)).toBe(`[${'-'.repeat(24)}]`);
  });
});
