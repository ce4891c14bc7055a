import { Injectable } from '@nestjs/common';
import { type CallMatch, callMatches, readCallMatch } from '../call-match';
import { ControlObjectsService } from './emulator.control-objects.service';
import { badRequest, notFound } from './emulator.errors';
import { objectType, record } from './emulator.inputs';
import { isHubSpotError } from './emulator.object-store';
import { HubSpotReply } from './emulator.reply';
import { EmulatorState } from './emulator.state';
import type { ObjectType, StoredObject } from './emulator.types';
import { uiSource } from './emulator.write-source';

// A change waiting for the API call it is to come just before.
interface QueuedUiChange {
  type: ObjectType;
  id: string;
  properties: Record<string, string>;
  userId: number;
  beforeCall: CallMatch;
  // Matching calls to let pass first: the change comes before the (skip + 1)th.
  skip: number;
  queuedAt: string;
}

// A person editing a record in HubSpot's UI, for tests: now, or just before a given API call of the
// daemon is handled, so a race between an agent's edit and the daemon's write can be played the
// same way every time. The edit is stored as HubSpot stores one made in the app (source CRM_UI,
// sourceId `userId:<n>`, emulator.write-source.ts) and fires webhooks as any change does.
@Injectable()
export class UiChanges {
  private queue: QueuedUiChange[] = [];

  constructor(
    private readonly state: EmulatorState,
    private readonly objects: ControlObjectsService,
  ) {}

  // `{ properties, userId? (1), beforeCall?, skip? (0) }`, checked as an API write would be. Without
  // beforeCall: written now, 200 with the record's control view; with it: 202, applied before the next
  // call it matches (`<METHOD> <path>` prefixes, as the faults' `match`), or, with `skip`, before the
  // matching call that follows that many (a writer's second update of a pass, say).
  change(typeSegment: string, id: string, rawBody: unknown): HubSpotReply {
    const type = objectType(typeSegment);
    const body = record(rawBody, 'request body');
    const userId = body.userId ?? 1;
    if (typeof userId !== 'number' || !Number.isInteger(userId) || userId < 1)
      throw badRequest('userId must be a positive integer');
    const beforeCall = body.beforeCall === undefined ? undefined : readBeforeCall(body.beforeCall);
    const skip = body.skip ?? 0;
    if (typeof skip !== 'number' || !Number.isInteger(skip) || skip < 0)
      throw badRequest('skip must be a whole number of matching calls to let pass first');
    if (skip > 0 && beforeCall === undefined) throw badRequest('skip needs beforeCall');
    const obj = this.state.objects.get(type, id);
    if (!obj) throw notFound(`${type} ${id} does not exist`);
    const values = this.state.objects.validate(type, body.properties);
    if (Object.keys(values).length === 0) throw badRequest('properties must name at least one property');
    this.state.objects.assertWritable(type, values, obj);
    if (beforeCall === undefined) {
      this.write(obj, values, userId);
      return new HubSpotReply(200, this.objects.get(type, id));
    }
    const queuedAt = new Date().toISOString();
    this.queue.push({ type, id, properties: values, userId, beforeCall, skip, queuedAt });
    return new HubSpotReply(202, { queued: true, beforeCall, skip });
  }

  list(): Record<string, unknown> {
    return { uiChanges: this.queue.map((change) => ({ ...change })) };
  }

  reset(): void {
    this.queue = [];
  }

  // Called once a call is admitted (token, rate limits, injected faults passed), just before its
  // handler: applies, in the order queued, every change waiting for this call, then forgets them.
  beforeCall(call: string): void {
    if (this.queue.length === 0) return;
    const matching = this.queue.filter((change) => callMatches(change.beforeCall, call));
    const due = matching.filter((change) => change.skip === 0);
    for (const change of matching) if (change.skip > 0) change.skip -= 1;
    if (due.length === 0) return;
    this.queue = this.queue.filter((change) => !due.includes(change));
    for (const change of due) this.applyQueued(change);
  }

  // A change whose record is gone by then, or that no longer fits it (its stage archived, its unique
  // value taken since), is dropped: the person's edit would have failed in the UI too.
  private applyQueued(change: QueuedUiChange): void {
    const obj = this.state.objects.get(change.type, change.id);
    if (!obj) return;
    try {
      this.write(obj, change.properties, change.userId);
    } catch (error) {
      if (!isHubSpotError(error)) throw error;
    }
  }

  private write(obj: StoredObject, values: Record<string, string>, userId: number): void {
    this.state.objects.update(obj, values, Date.now(), uiSource(userId));
  }
}

function readBeforeCall(value: unknown): CallMatch {
  const read = readCallMatch(value);
  if ('error' in read || read.match === null)
    throw badRequest(
      'beforeCall must be a call or calls as "<METHOD> <path prefix>", e.g. "POST /crm/v3/objects/deals/batch/update"',
    );
  return read.match;
}
