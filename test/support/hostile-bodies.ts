import fc from 'fast-check';

// Bodies a listener must answer with a 2xx or 4xx, never a 5xx, built around the valid events it
// takes: any JSON, those events with fields removed, retyped or added, cut or garbled as bytes
// (`fuzzedBodies`); and bodies built to hurt (`hostileBodies`): nesting far past any real event (a
// 60,000-deep body used to overflow the stack and answer 500), huge arrays and strings around the
// size limit, odd unicode. `frame` puts one event into the body the listener takes (HubSpot posts
// an array of events; the Cash Offer service and Follow Up Boss post one).
export interface BodyShape {
  validEvents: readonly Record<string, unknown>[];
  // Fields of the valid events worth retyping, and a name for a long string field.
  fields: readonly string[];
  frame?: (event: Record<string, unknown>) => unknown;
}

const jsonValue = fc.jsonValue({ maxDepth: 4 });

export function fuzzedBodies({ validEvents, fields, frame = (e) => e }: BodyShape): fc.Arbitrary<string> {
  const valid = fc.constantFrom(...validEvents);
  const mutated = fc
    .tuple(
      valid,
      fc.dictionary(fc.string({ maxLength: 20 }), jsonValue, { maxKeys: 4 }),
      fc.array(fc.string(), { maxLength: 3 }),
    )
    .map(([event, extra, drop]) => {
      const body: Record<string, unknown> = { ...event, ...extra };
      for (const key of drop) delete body[key];
      return JSON.stringify(frame(body));
    });
  const retyped = fc
    .tuple(valid, fc.constantFrom(...fields), jsonValue)
    .map(([event, key, value]) => JSON.stringify(frame({ ...event, [key]: value })));
  const garbled = fc.tuple(valid, fc.nat(), fc.uint8Array({ maxLength: 64 })).map(([event, cut, bytes]) => {
    const text = JSON.stringify(frame(event));
    return Buffer.concat([Buffer.from(text.slice(0, cut % text.length)), Buffer.from(bytes)]).toString(
      'latin1',
    );
  });
  return fc.oneof(
    jsonValue.map((v) => JSON.stringify(v)),
    mutated,
    retyped,
    garbled,
    fc.string({ maxLength: 200 }),
  );
}

export function hostileBodies({ validEvents, frame = (e) => e }: BodyShape): fc.Arbitrary<string> {
  const valid = fc.constantFrom(...validEvents);
  // `@` marks where a raw JSON fragment goes into the framed event.
  const withRaw = (event: Record<string, unknown>, key: string, raw: string) =>
    JSON.stringify(frame({ ...event, [key]: '@' })).replace('"@"', raw);
  const deepNesting = fc
    .tuple(fc.integer({ min: 20, max: 70_000 }), fc.constantFrom('[', '{"a":'), valid)
    .map(([depth, open, event]) => {
      const close = open === '[' ? ']' : '}';
      return withRaw(event, 'detail', `${open.repeat(depth)}1${close.repeat(depth)}`);
    });
  const hugeArray = fc
    .tuple(fc.integer({ min: 1_000, max: 140_000 }), valid, fc.constantFrom('0', '{}', '[]', '"x"'))
    .map(([length, event, item]) => withRaw(event, 'items', `[${Array(length).fill(item).join(',')}]`));
  const longString = fc
    .tuple(fc.integer({ min: 10_000, max: 300_000 }), valid, fc.constantFrom('x', 'é', '😀', '\\u0000'))
    .map(([length, event, unit]) => withRaw(event, 'memo', `"${unit.repeat(length / unit.length)}"`));
  const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c));
  const oddText = fc.string({
    unit: fc.oneof(
      fc.string({ unit: 'binary', maxLength: 1 }),
      loneSurrogate,
      fc.constantFrom('\u0000', '\ufeff', '\u202e', '\u2028', '\uffff'),
    ),
    maxLength: 40,
  });
  const firstKey = (event: Record<string, unknown>) => Object.keys(event)[0];
  const oddUnicode = fc.oneof(
    fc
      .tuple(valid, oddText, oddText)
      .map(([event, key, value]) => JSON.stringify(frame({ ...event, [key]: value }))),
    fc
      .tuple(valid, oddText)
      .map(([event, value]) => JSON.stringify(frame({ ...event, [firstKey(event)]: value }))),
    valid.map((event) => `\ufeff${JSON.stringify(frame(event))}`),
    valid.map((event) => {
      const key = firstKey(event);
      return JSON.stringify(frame(event)).replace(`"${key}"`, `"${key.slice(0, 1)}\\ud800${key.slice(1)}"`);
    }),
    oddText,
  );
  return fc.oneof(deepNesting, hugeArray, longString, oddUnicode);
}
