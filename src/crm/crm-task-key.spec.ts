import { CrmError } from './crm.error';
import { assertTaskKey, readTaskKey, withTaskKey } from './crm-task-key';

describe('task keys in a task’s text', () => {
  it('writes the key after the text and reads it back, with the text as it was', () => {
    const name = withTaskKey('Offer 7012 expires Thu 14:00', 'offer:7012:lead:24h', ' ');
    expect(name).toBe('Offer 7012 expires Thu 14:00 [cash-offer-sync: offer:7012:lead:24h]');
    expect(readTaskKey(name)).toEqual({ key: 'offer:7012:lead:24h', text: 'Offer 7012 expires Thu 14:00' });
    const body = withTaskKey('Decide within 24 h.\nJane Buyer, $250,000', 'offer:7012:lead:24h', '\n\n');
    expect(readTaskKey(body)).toEqual({
      key: 'offer:7012:lead:24h',
      text: 'Decide within 24 h.\nJane Buyer, $250,000',
    });
    expect(withTaskKey('', 'k-1', '\n\n')).toBe('[cash-offer-sync: k-1]');
    expect(readTaskKey('[cash-offer-sync: k-1]')).toEqual({ key: 'k-1', text: '' });
  });

  it('finds the key in text a CRM turned into HTML, and takes the last marker when there are several', () => {
    expect(readTaskKey('<p>Decide within 24 h</p><p>[cash-offer-sync: offer:1:lead:24h]</p>').key).toBe(
      'offer:1:lead:24h',
    );
    expect(readTaskKey('[cash-offer-sync: old] copied\n\n[cash-offer-sync: new]').key).toBe('new');
  });

  it('reads no key from a task someone else made, or from a marker that is not ours', () => {
    for (const text of [null, undefined, '', 'Call Jane back', '[cash-offer-sync: has space]', '[key: x]'])
      expect(readTaskKey(text).key).toBeNull();
    expect(readTaskKey('Call Jane back')).toEqual({ key: null, text: 'Call Jane back' });
  });

  it('refuses a key that would not survive in the text, naming the characters it may use', () => {
    for (const key of ['', 'a b', 'a]b', '<b>', 'a&b', 'x'.repeat(101)]) {
      expect(() => assertTaskKey(key)).toThrow(CrmError);
    }
    expect(() => withTaskKey('S', 'a]b', ' ')).toThrow(/letters, digits and : \. _ \/ -/);
    expect(() => assertTaskKey('offer:7012:lead:24h')).not.toThrow();
  });
});
