import fc from 'fast-check';
import { anchoredPages, type AnchoredPaging } from './anchored-pages';
import { CashOfferError } from './cash-offer.error';

// A service's list read by offset: `items` as they are at each read, pages capped at `cap`, and a
// change made to the list just before a given read (another user's request expiring, say).
function service(
  items: number[],
  options: { cap?: number; before?: (read: number, list: number[]) => void } = {},
) {
  const list = [...items];
  const reads: { limit: number; offset: number }[] = [];
  const read = (limit: number, offset: number): Promise<number[]> => {
    options.before?.(reads.length, list);
    reads.push({ limit, offset });
    return Promise.resolve(list.slice(offset, offset + Math.min(limit, options.cap ?? Infinity)));
  };
  return { list, reads, read };
}

function paging(
  read: (limit: number, offset: number) => Promise<number[]>,
  overrides: Partial<AnchoredPaging<number>> = {},
): AnchoredPaging<number> {
  return {
    read,
    limit: () => 100,
    keyOf: String,
    whenNothingNew: 'fail',
    fail: (message) => new Error(message),
    ...overrides,
  };
}

async function all(pages: AsyncIterable<number[]>): Promise<number[]> {
  const out: number[] = [];
  for await (const page of pages) out.push(...page);
  return out;
}

const range = (from: number, to: number): number[] => Array.from({ length: to - from }, (_, i) => from + i);

describe('anchoredPages', () => {
  it('reads a list capped at 25 a page whole, each page from the last item of the one before', async () => {
    const svc = service(range(0, 60), { cap: 25 });

    await expect(all(anchoredPages(paging(svc.read)))).resolves.toEqual(range(0, 60));
    // 0..24, 24..48, 48..59, then 59 alone: the end.
    expect(svc.reads.map((r) => r.offset)).toEqual([0, 24, 48, 59]);
  });

  it('misses nothing when a listing before the offset leaves the list between two reads', async () => {
    const svc = service(range(0, 60), {
      cap: 25,
      before: (read, list) => {
        if (read === 1) list.splice(3, 1); // item 3 leaves: 25 is now at offset 24
      },
    });

    const read = await all(anchoredPages(paging(svc.read)));

    // Plain paging would read 26 next, at offset 25: 25 moved up past it.
    expect(read).toEqual(range(0, 60));
  });

  it('misses nothing when the last item read itself leaves the list', async () => {
    const svc = service(range(0, 60), {
      cap: 25,
      before: (read, list) => {
        if (read === 1) list.splice(24, 1);
      },
    });

    const read = await all(anchoredPages(paging(svc.read)));

    expect(read.filter((i) => i !== 24)).toEqual(range(0, 60).filter((i) => i !== 24));
  });

  it('ends where a list that shrank below the next offset ends', async () => {
    const svc = service(range(0, 30), {
      cap: 25,
      before: (read, list) => {
        if (read === 1) list.splice(0, 10); // the next offset, 24, is past the end now
      },
    });

    const read = await all(anchoredPages(paging(svc.read)));

    expect(read).toEqual(range(0, 30));
  });

  it('misses nothing when listings are added at the head of a newest-first list', async () => {
    let next = 1000;
    const svc = service(range(0, 60).reverse(), {
      cap: 25,
      before: (read, list) => {
        if (read > 0) list.unshift(next++, next++);
      },
    });

    const read = await all(anchoredPages(paging(svc.read)));

    expect(read.filter((i) => i < 1000)).toEqual(range(0, 60).reverse());
  });

  // Readings sweep 1466: a marketplace of two, newest first, and one request approved during the
  // pass. The page from the second item came back the same as the first (both items, moved down
  // one), which reads as a service that takes offset in whole pages; the next page, the last item
  // alone, then failed the pass as bringing nothing new.
  it('ends a short newest-first list that gained one item at its head during the pass', async () => {
    let next = 1000;
    const svc = service([1, 0], {
      before: (read, list) => {
        if (read === 1) list.unshift(next++);
      },
    });

    const read = await all(anchoredPages(paging(svc.read)));

    expect(read.filter((i) => i < 1000)).toEqual([1, 0]);
    expect(new Set(read).size).toBe(read.length);
  });

  it('reads an empty list with one call', async () => {
    const svc = service([]);
    await expect(all(anchoredPages(paging(svc.read)))).resolves.toEqual([]);
    expect(svc.reads).toHaveLength(1);
  });

  it('reads a service that caps pages at one item as plain paging', async () => {
    const svc = service(range(0, 4), { cap: 1 });
    await expect(all(anchoredPages(paging(svc.read)))).resolves.toEqual(range(0, 4));
    expect(svc.reads.map((r) => r.offset)).toEqual([0, 1, 2, 3, 4]);
  });

  describe('a service that ignores offset (every page is the first)', () => {
    const ignoring = (items: number[]) => (limit: number) => Promise.resolve(items.slice(0, limit));
    const ending = (size: number) => ({ whenNothingNew: 'end' as const, limit: () => size });

    it('ends after the first page when every item is on it', async () => {
      await expect(
        all(anchoredPages(paging(ignoring(range(0, 7)), { whenNothingNew: 'end' }))),
      ).resolves.toEqual(range(0, 7));
      await expect(all(anchoredPages(paging(ignoring([5]), { whenNothingNew: 'end' })))).resolves.toEqual([
        5,
      ]);
    });

    // A GET /offers written from the spec alone (it shows no query parameters) is likeliest to take
    // none: each pass read the whole book three times to learn what the last one already showed.
    it('reads one page in later passes once a pass has seen the first page repeated', async () => {
      const items = range(0, 7);
      const reads: number[] = [];
      const read = (limit: number, offset: number) => {
        reads.push(offset);
        return Promise.resolve(items.slice(0, limit));
      };
      const memory = { firstPageRepeats: false };
      await expect(all(anchoredPages(paging(read, { ...ending(10), memory })))).resolves.toEqual(items);
      expect(memory.firstPageRepeats).toBe(true);
      expect(reads).toEqual([0, 6, 7]);
      reads.length = 0;
      const relying = { ...ending(10), memory, reliesOnMemory: true };
      await expect(all(anchoredPages(paging(read, relying)))).resolves.toEqual(items);
      expect(reads).toEqual([0]);
      // A pass that does not rely on it reads on, as the first did.
      reads.length = 0;
      await expect(all(anchoredPages(paging(read, { ...ending(10), memory })))).resolves.toEqual(items);
      expect(reads).toEqual([0, 6, 7]);
    });

    it('unlearns it when a pass that checks finds items past the first page (the service pages now)', async () => {
      const memory = { firstPageRepeats: true };
      const capped = service(range(0, 30), { cap: 25 });
      const relying = { ...ending(100), memory, reliesOnMemory: true };
      // Relied on, the capped first page passes for the whole list: one pass cut short ...
      await expect(all(anchoredPages(paging(capped.read, relying)))).resolves.toEqual(range(0, 25));
      // ... until a pass that checks reads past it.
      await expect(all(anchoredPages(paging(capped.read, { ...ending(100), memory })))).resolves.toEqual(
        range(0, 30),
      );
      expect(memory.firstPageRepeats).toBe(false);
      await expect(all(anchoredPages(paging(capped.read, relying)))).resolves.toEqual(range(0, 30));
    });

    it('still pages on where the first page is full, or where a page only looked like the first', async () => {
      const memory = { firstPageRepeats: true };
      const svc = service(range(0, 12));
      const relying = { ...ending(5), memory, reliesOnMemory: true };
      await expect(all(anchoredPages(paging(svc.read, relying)))).resolves.toEqual(range(0, 12));
      const honouring = service(range(0, 4));
      const fresh = { firstPageRepeats: false };
      await expect(
        all(anchoredPages(paging(honouring.read, { ...ending(10), memory: fresh }))),
      ).resolves.toEqual(range(0, 4));
      expect(fresh.firstPageRepeats).toBe(false);
    });

    it('fails where the pass must know it saw everything', async () => {
      await expect(all(anchoredPages(paging(ignoring(range(0, 7)), { limit: () => 5 })))).rejects.toThrow(
        'the page at offset 5 repeats the previous one; the service seems to ignore offset',
      );
    });
  });

  it('reads a service that takes offset in whole pages (page = offset / limit) as plain paging', async () => {
    const items = range(0, 23);
    const offsets: number[] = [];
    const byPage = (limit: number, offset: number): Promise<number[]> => {
      offsets.push(offset);
      const start = Math.floor(offset / limit) * limit;
      return Promise.resolve(items.slice(start, start + limit));
    };

    await expect(all(anchoredPages(paging(byPage, { limit: () => 10 })))).resolves.toEqual(items);
    // 9 gave the first page again, so the pass went on from 10 without overlap; 23 gave the short
    // last page again: the end.
    expect(offsets).toEqual([0, 9, 10, 20, 23]);
  });

  // A list losing more than a page's overlap between two reads (offers dropped as they ran out while
  // the pass wrote the page before), on a service answering past its last page with a 404, or with a
  // 400 (full soak 20261265's "offset 160 is out of range" failed the pass): every item still listed
  // is read, as pageOrEnd takes the error for the end.
  it.each([
    ['a 404', 404, 'NOT_FOUND'],
    ['a 400', 400, 'INVALID_RECORD'],
  ] as const)('reads on past a list that shrank under %s past its end', async (_name, status, code) => {
    const list = range(0, 30);
    let reads = 0;
    const read = (limit: number, offset: number): Promise<number[]> => {
      if (++reads === 2) list.splice(0, 10);
      if (offset >= list.length && offset > 0)
        return Promise.reject(
          new CashOfferError({
            code,
            status,
            operation: 'listOffers',
            message: `offset ${offset} is out of range`,
          }),
        );
      return Promise.resolve(list.slice(offset, offset + Math.min(limit, 25)));
    };

    await expect(all(anchoredPages(paging(read)))).resolves.toEqual(range(0, 30));
  });

  it('gives up on a list that changes under every read, rather than call a partial pass whole', async () => {
    let next = 10_000;
    const svc = service(range(0, 200), {
      cap: 10,
      // Before every read, the ten items at the head are replaced: no page ever joins the last.
      before: (read, list) => {
        if (read > 0) list.splice(0, 10, ...range(next, (next += 10)));
      },
    });

    await expect(all(anchoredPages(paging(svc.read)))).rejects.toThrow(/the list changed under the pass/);
  });

  it('stops at once when its signal is aborted', async () => {
    const controller = new AbortController();
    const svc = service(range(0, 60), { cap: 25 });
    const read: number[] = [];
    for await (const page of anchoredPages(paging(svc.read, { signal: controller.signal }))) {
      read.push(...page);
      controller.abort();
    }
    expect(read).toEqual(range(0, 25));
  });

  // The properties: whatever leaves or joins the list between reads, every item listed from the
  // pass's start to its end is read, none twice, nothing that was never listed.
  const changes = (prepends: number) =>
    fc.array(
      fc.record({
        removeAt: fc.array(fc.nat(), { maxLength: 3 }),
        appended: fc.nat({ max: 3 }),
        prepended: fc.nat({ max: prepends }),
      }),
      { maxLength: 30 },
    );

  async function readWhileChanging(
    length: number,
    cap: number,
    between: { removeAt: number[]; appended: number; prepended: number }[],
  ): Promise<{ read: number[]; stayed: number[]; ever: Set<number> }> {
    let next = 1_000;
    const ever = new Set<number>(range(0, length));
    const svc = service(range(0, length), {
      cap,
      before: (read, list) => {
        const change = read > 0 ? between[read - 1] : undefined;
        if (!change) return;
        for (const at of change.removeAt) if (list.length > 0) list.splice(at % list.length, 1);
        for (let i = 0; i < change.appended; i++) {
          ever.add(next);
          list.push(next++);
        }
        for (let i = 0; i < change.prepended; i++) {
          ever.add(next);
          list.unshift(next++);
        }
      },
    });
    const read = await all(anchoredPages(paging(svc.read, { limit: () => cap + 3 })));
    return { read, stayed: range(0, length).filter((i) => svc.list.includes(i)), ever };
  }

  it('reads every item that stays listed, once, as listings leave and are added at the end', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.nat({ max: 80 }),
        fc.integer({ min: 2, max: 12 }),
        changes(0),
        async (n, cap, between) => {
          const { read, stayed, ever } = await readWhileChanging(n, cap, between);
          for (const item of stayed) expect(read).toContain(item);
          expect(new Set(read).size).toBe(read.length);
          for (const item of read) expect(ever.has(item)).toBe(true);
        },
      ),
      { numRuns: 400, seed: 20261130 },
    );
  });

  // Pages of four or more: a list that gains exactly a page less one at its head between two reads
  // gives the page before again, which is how a service that reads offset in whole pages answers,
  // and the pass reads on as plain paging (a limit: no list grows so fast between two reads).
  it('on a list that also grows at its head, reads every item that stays, or says the list moved', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.nat({ max: 80 }),
        fc.integer({ min: 4, max: 12 }),
        changes(2),
        async (n, cap, between) => {
          let outcome: Awaited<ReturnType<typeof readWhileChanging>>;
          try {
            outcome = await readWhileChanging(n, cap, between);
          } catch (error) {
            expect(between.some((change) => change.prepended + change.removeAt.length > 0)).toBe(true);
            expect((error as Error).message).toMatch(
              /the list changed under the pass|repeats the previous one|brings nothing past the items already read/,
            );
            return;
          }
          for (const item of outcome.stayed) expect(outcome.read).toContain(item);
          expect(new Set(outcome.read).size).toBe(outcome.read.length);
        },
      ),
      { numRuns: 400, seed: 20261130 },
    );
  });
});
