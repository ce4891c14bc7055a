// The last `capacity` ids seen, oldest forgotten first: enough to drop a sender's redeliveries
// without growing for ever. Kept in memory on purpose: a CRM notification only asks for an early
// run, so a redelivery after a restart costs one coalesced run at most.
export class RecentIds {
  private readonly seen = new Set<string>();

  constructor(private readonly capacity: number) {}

  // True when the id is new (and remembers it).
  add(id: string): boolean {
    if (this.seen.has(id)) return false;
    this.seen.add(id);
    if (this.seen.size > this.capacity) this.seen.delete(this.seen.values().next().value as string);
    return true;
  }

  forget(id: string): void {
    this.seen.delete(id);
  }
}
