// What an operator can do about a command of unknown outcome once they have looked in the service:
// the two commands, named in full wherever the daemon tells the record or the operator to check.
export function unknownOutcomeChoices(commandId: number): string {
  return (
    `if it is there, cash-offer-sync confirm-received --id ${commandId} (finished, never sent again); ` +
    `if it never arrived, cash-offer-sync replay --commands --unknown --confirm-absent --id ${commandId} (sent again)`
  );
}
