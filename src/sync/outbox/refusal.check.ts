import { RemoteError } from '../../common/remote-error';

// Whether a refusal may only mean the service is already where the command wanted it (offer B
// rejected by the cascade of offer A's accept while B's own reject was in flight), so the drain
// asks the executor's reconcile before calling it a failure. The spec shows no status code for an
// impossible transition: ours is 409 (CONFLICT, checked for every command), another service may say
// 400 or 422 (INVALID_RECORD); that is checked only for commands whose executor reads the service's
// state to tell (`refusalsReconciled`), never for a create, where a look-up could find an older record.
export function mayAlreadyBeInEffect(error: unknown, refusalsReconciled: boolean): boolean {
  if (!(error instanceof RemoteError)) return false;
  if (error.code === 'CONFLICT') return true;
  return (
    refusalsReconciled && error.code === 'INVALID_RECORD' && (error.status === 400 || error.status === 422)
  );
}
