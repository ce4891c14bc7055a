import { readPrelimCounts } from './prelim-answer.reader';

describe('readPrelimCounts: every plausible prelim answer', () => {
  it.each([
    ['ours', { buyer_count: 3, buy_box_count: 5 }, { buyers: 3, buyBoxes: 5 }],
    ['named differently', { buyers: 3, buy_boxes: 5 }, { buyers: 3, buyBoxes: 5 }],
    ['camel case', { buyerCount: 3, buyBoxCount: 5 }, { buyers: 3, buyBoxes: 5 }],
    ['nested', { data: { buyer_count: 2, buy_box_count: 4 } }, { buyers: 2, buyBoxes: 4 }],
    ['arrays of buyers', { buyers: [{}, {}], boxes: [{}] }, { buyers: 2, buyBoxes: 1 }],
    ['numbers as text', { buyer_count: '7' }, { buyers: 7 }],
    ['empty', {}, {}],
    ['no body', undefined, {}],
    ['not a count', { buyer_count: 'many', buy_box_count: -1 }, {}],
  ])('%s', (_name, answer, expected) => {
    expect(readPrelimCounts(answer)).toEqual(expected);
  });
});
