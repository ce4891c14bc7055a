// A state change the record's current state does not allow (e.g. completing a command that was never
// sent), or a record that does not exist.
export class LedgerStateError extends Error {
  constructor(
    readonly recordKind: string,
    readonly id: number,
    readonly currentState: string | null,
    readonly wantedState: string,
    readonly allowedFrom: readonly string[],
  ) {
    super(
      currentState === null
        ? `${recordKind} ${id} does not exist`
        : `${recordKind} ${id} is ${currentState}; it can become ${wantedState} only from ${allowedFrom.join(' or ')}`,
    );
  }
}
