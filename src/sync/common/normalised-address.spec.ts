import { normalisedAddress } from './normalised-address';

describe('normalisedAddress', () => {
  it('treats case, punctuation, spacing and ZIP+4 as the same address', () => {
    const a = normalisedAddress({
      StreetNumber: '12',
      StreetName: 'Main St.',
      UnitNumber: 'Apt 4',
      PostalCity: 'Dallas',
      StateOrProvince: 'TX',
      PostalCode: '75201-0001',
    });
    const b = normalisedAddress({
      UnparsedAddress: '12  main st',
      UnitNumber: 'apt 4',
      City: 'DALLAS',
      StateOrProvince: 'tx',
      PostalCode: '75201',
    });
    expect(a).toBe(b);
  });
});
