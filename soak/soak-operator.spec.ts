import { errorOf } from './soak-operator';

describe('errorOf (the error a CLI run names, for the first line of a finding)', () => {
  it("names a failed run's error", () => {
    const stdout = JSON.stringify({ status: 'failed', error: 'SQLITE_BUSY: database is locked' }, null, 2);
    expect(errorOf(stdout)).toBe(': SQLITE_BUSY: database is locked');
  });

  it('says nothing when the run names no error or printed no JSON', () => {
    expect(errorOf(JSON.stringify({ status: 'interrupted' }))).toBe('');
    expect(errorOf('Error: boom\n    at main (cli.js:1:1)')).toBe('');
  });
});
