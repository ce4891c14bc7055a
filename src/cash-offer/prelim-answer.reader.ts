// The prelim answer's shape is not shown in the spec: the counts are read wherever a plausible
// answer puts them (`buyer_count`, `buyers`, `buyerCount`, a count inside `data` or `result`, an
// array of buyers). A count that is not there is undefined: it is a display field and never blocks
// the write it travels with.
export interface PrelimCounts {
  buyers?: number;
  buyBoxes?: number;
}

const BUYER_KEYS = ['buyer_count', 'buyers', 'buyerCount', 'buyers_count', 'matching_buyers'];
const BOX_KEYS = ['buy_box_count', 'buy_boxes', 'buyBoxCount', 'buy_boxes_count', 'boxes'];

function countOf(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return Math.trunc(value);
  if (typeof value === 'string' && /^\d+$/.test(value)) return Number(value);
  if (Array.isArray(value)) return value.length;
  return undefined;
}

function objectsOf(answer: unknown): Record<string, unknown>[] {
  if (typeof answer !== 'object' || answer === null || Array.isArray(answer)) return [];
  const top = answer as Record<string, unknown>;
  const inner = ['data', 'result', 'counts']
    .map((k) => top[k])
    .filter((v): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v));
  return [top, ...inner];
}

export function readPrelimCounts(answer: unknown): PrelimCounts {
  const objects = objectsOf(answer);
  const first = (keys: string[]): number | undefined => {
    for (const o of objects)
      for (const k of keys) {
        const n = countOf(o[k]);
        if (n !== undefined) return n;
      }
    return undefined;
  };
  const buyers = first(BUYER_KEYS);
  const buyBoxes = first(BOX_KEYS);
  return { ...(buyers !== undefined ? { buyers } : {}), ...(buyBoxes !== undefined ? { buyBoxes } : {}) };
}
