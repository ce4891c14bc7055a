import type { LoggerService } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import { accountLimiter, type AccountLimiter } from '../common/account-limiter.factory';
import { PACE_RECOVERY_WINDOWS } from '../common/rolling-window.limiter';
import { Clock } from '../common/clock';
import type { RemoteCallPolicy } from '../common/remote-call.policy';
import { AnswerChecker } from './answer.checker';
import { cashOfferCallPolicy } from './cash-offer-call.policy';
import { CashOfferError, refusesKeyOnOpenRead } from './cash-offer.error';
import { OPERATIONS, OperationSpec } from './cash-offer.operations';
import {
  CashOfferClientOptions,
  ResolvedClientOptions,
  resolveClientOptions,
} from './cash-offer-client.options';
import {
  MAX_ACTIVE_PAGE,
  MAX_OFFERS_PAGE,
  OffersQuery,
  StreamActiveOptions,
  asList,
  idViolations,
  pageViolations,
} from './call-input.guards';
import {
  CashOfferTransport,
  TransportFailure,
  TransportRequest,
  TransportResponse,
  queryString,
} from './cash-offer.transport';
import { activeItemKey, anchoredPages, offerListPages, type PagingMemory } from './anchored-pages';
import { slashRedirectTarget } from './slash-redirect';
import {
  Masks,
  classifyHttpFailure,
  classifyNetworkFailure,
  requestNeverLeft,
  mayRefuseTheKey,
  maskText,
} from './failure.classifier';
import { KeyForm, describeKeyForm, otherKeyForm } from './key-form';
import { applyOffersQuery } from './offers-query.fallback';
import {
  FULL_OFFERS_QUERY,
  nextOffersForm,
  refusesQuery,
  refusesSort,
  smallerLimit,
  sortAfterRefusal,
  offersCall,
  type OffersCall,
  type OffersQueryForm,
} from './list-query.negotiation';
import { parseRetryAfter } from '../common/retry-after.parser';
import {
  ActiveOfferRequest,
  ActiveOfferRequestsQuery,
  BuyerLead,
  BuyerLeadBody,
  CounterOffer,
  CounterOfferBody,
  CreateOfferRequestBody,
  FieldViolation,
  Offer,
  OfferRequestRecord,
  PrelimBody,
  PrelimResult,
  PushToMarketplaceBody,
  PushToMarketplaceResult,
  UpdateOfferRequestBody,
  WebhookConfig,
  AddMediaBody,
  OfferDecisionBody,
  validateWire,
} from './schema';

export type ClientLogger = Pick<LoggerService, 'log' | 'warn' | 'error'>;

// Per-call hooks for a caller that must know when a request may have left: the outbox marks a
// command `sending` in `beforeSend`, which runs after the rate limiter and the breaker have let the
// attempt through and right before the bytes go out. A call refused locally never runs it.
// `refusedBeforeRetry` says a request did nothing and the write will go again: the client calls it
// after a 429 or a connection that never opened (the policy then waits its turn to retry), and a
// caller after a refusal it answers by sending the write again in another form (a counter with the
// fields the service named, a create with fewer photos). Until the next `beforeSend`, nothing of the
// write is on its way.
export interface CallOptions {
  beforeSend?: () => Promise<void>;
  refusedBeforeRetry?: (refusal: string) => Promise<void>;
}

// The Cash Offer service as one brokerage sees it. Every method validates its body against its
// wire class, sends it under the brokerage's rate limit, retry and breaker, and checks the answer.
export class CashOfferClient {
  readonly brokerageId: string;
  private readonly options: ResolvedClientOptions;
  private readonly transport: CashOfferTransport;
  private readonly policy: RemoteCallPolicy<string>;
  private readonly limiter: AccountLimiter;
  private readonly answers: AnswerChecker;
  readonly #apiKey: string;
  private closed = false;
  // Aborted by close: a call waiting to retry ends at once instead of after its wait.
  private readonly closing = new AbortController();
  // Replaced by a newer config of its brokerage (retire()); calls in flight counted to know when
  // its connections can be freed.
  private retired = false;
  private inFlight = 0;
  // The largest active-list page and the form of GET /offers this brokerage's service takes, learned
  // from its refusals (list-query.negotiation.ts).
  private activePageMax = MAX_ACTIVE_PAGE;
  // How the service wants its paths to end, once a redirect said so (slash-redirect.ts): asked that
  // way from then on, so each call is one round trip again.
  private trailingSlash: 'add' | 'strip' | undefined;
  private offersForm: OffersQueryForm = FULL_OFFERS_QUERY;
  // What reads of GET /offers have learned of its paging (anchored-pages.ts), for every later read.
  readonly offersPaging: PagingMemory = { firstPageRepeats: false };
  // How the Authorization header carries the key (key-form.ts): as configured, until a refusal is
  // answered by the other form.
  private keyForm: KeyForm = 'as-configured';
  // The active list's order asked in place of each one the service refused (undefined: its default).
  private readonly sortsTaken = new Map<string, string | undefined>();

  constructor(
    options: CashOfferClientOptions,
    private readonly clock: Clock,
    // The factory passes Nest's Logger; a logger of this shape is all the client needs, so a
    // script or a benchmark can build one without Nest.
    private readonly logger: ClientLogger,
  ) {
    this.options = resolveClientOptions(options);
    this.brokerageId = this.options.brokerageId;
    this.#apiKey = options.apiKey;
    this.transport = new CashOfferTransport(this.options.baseUrl, options.apiKey);
    // Other workers calling with the same API key count against the same budget.
    this.limiter = accountLimiter(this.options.rateLimit, this.options.account, this.options.sharedLimiter, {
      timeoutMs: this.options.timeoutMs,
      abortsAtTimeout: true,
    });
    this.policy = cashOfferCallPolicy({
      options: this.options,
      takeTurn: () => this.limiter.acquire(),
      logger: this.logger,
    });
    this.answers = new AnswerChecker(this.brokerageId, this.logger);
  }

  createOfferRequest(
    body: CreateOfferRequestBody,
    call?: CallOptions,
  ): Promise<OfferRequestRecord | undefined> {
    return this.send(
      OPERATIONS.createOfferRequest,
      validateWire(CreateOfferRequestBody, body),
      { method: 'POST', path: '/offer-requests', body },
      [],
      call,
    );
  }

  prelim(body: PrelimBody): Promise<PrelimResult | undefined> {
    return this.send(OPERATIONS.prelim, validateWire(PrelimBody, body), {
      method: 'POST',
      path: '/offer-requests/prelim',
      body,
    });
  }

  updateOfferRequest(id: number, body: UpdateOfferRequestBody, call?: CallOptions): Promise<void> {
    return this.patchOfferRequest(id, body, validateWire(UpdateOfferRequestBody, body), call);
  }

  // The same update written as a whole create body, for a service that checks it as one
  // (update-as-create.ts): checked here as a create body.
  updateOfferRequestAsCreate(id: number, body: CreateOfferRequestBody, call?: CallOptions): Promise<void> {
    return this.patchOfferRequest(id, body, validateWire(CreateOfferRequestBody, body), call);
  }

  private async patchOfferRequest(
    id: number,
    body: object,
    violations: FieldViolation[],
    call: CallOptions | undefined,
  ): Promise<void> {
    await this.send(
      OPERATIONS.updateOfferRequest,
      [...idViolations(id), ...violations],
      { method: 'PATCH', path: `/offer-requests/${id}`, body },
      [],
      call,
    );
  }

  // The body form of the update: PATCH /offer-requests/ with { offer_request_id, media }.
  async addMedia(id: number, media: string[], call?: CallOptions): Promise<void> {
    const body = { offer_request_id: id, media };
    await this.send(
      OPERATIONS.addMedia,
      validateWire(AddMediaBody, body),
      { method: 'PATCH', path: '/offer-requests/', body },
      [],
      call,
    );
  }

  async listActiveOfferRequests(query: ActiveOfferRequestsQuery = {}): Promise<ActiveOfferRequest[]> {
    const violations = pageViolations(query.limit, query.offset, MAX_ACTIVE_PAGE);
    const page = await this.send<ActiveOfferRequest[]>(OPERATIONS.listActiveOfferRequests, violations, {
      method: 'GET',
      path: '/active-offer-requests',
      query: { limit: query.limit, offset: query.offset, sort: query.sort },
    });
    return asList(page, OPERATIONS.listActiveOfferRequests);
  }

  // Whether the service refuses this brokerage's key on a read every account may make (one item of
  // the active list): what tells a 403 that does not say why (the key's, or the record's) apart.
  // Anything but a refusal of the key (an answer, an outage, the breaker) is no.
  async refusesKey(): Promise<boolean> {
    try {
      await this.listActiveOfferRequests({ limit: 1 });
      return false;
    } catch (error) {
      return refusesKeyOnOpenRead(error);
    }
  }

  // Every page of the active list, one at a time: only the page being read is held in memory.
  // The spec shows no maximum `limit`: a service that caps it answers fewer than asked on pages
  // that are not the last, so a short page never ends the list; one that refuses the page size is
  // asked again with a smaller one, kept for the brokerage. Each page starts at the last item of the
  // one before, so a listing that leaves the list during the pass makes none skipped, and the list
  // ends where that item comes back alone (anchored-pages.ts).
  streamActiveOfferRequests(options: StreamActiveOptions = {}): AsyncIterable<ActiveOfferRequest[]> {
    return anchoredPages<ActiveOfferRequest>({
      read: (limit, offset) => this.activePage({ limit, offset, sort: options.sort }),
      limit: () => Math.min(options.pageSize ?? MAX_ACTIVE_PAGE, this.activePageMax),
      keyOf: activeItemKey,
      // A pass that could not read the list whole must not be taken for complete (the marketplace
      // closes what a complete pass did not list).
      whenNothingNew: 'fail',
      fail: (message) =>
        new CashOfferError({
          code: 'UNAVAILABLE',
          operation: OPERATIONS.listActiveOfferRequests.name,
          message: `${OPERATIONS.listActiveOfferRequests.name}: ${message}`,
        }),
    });
  }

  // One page of the active list, asked again with a smaller `limit` while the service refuses the
  // page size (list-query.negotiation.ts).
  private async activePage(
    query: ActiveOfferRequestsQuery & { limit: number },
  ): Promise<ActiveOfferRequest[]> {
    const asked = query.sort;
    for (let limit = Math.min(query.limit, this.activePageMax); ;) {
      const sort = asked !== undefined && this.sortsTaken.has(asked) ? this.sortsTaken.get(asked) : asked;
      try {
        return await this.listActiveOfferRequests({ ...query, limit, sort });
      } catch (error) {
        const message = refusesQuery(error) ? serviceMessageOf(error) : undefined;
        if (message === undefined) throw error;
        if (refusesSort(message)) {
          const next = sortAfterRefusal(sort);
          if (next === undefined || asked === undefined) throw error;
          this.logger.warn(
            `brokerage ${this.brokerageId}: GET /active-offer-requests refused sort=${sort} (${(error as Error).message}); asking ${next.sort === undefined ? 'in the default order' : `sort=${next.sort}`} from now on`,
          );
          this.sortsTaken.set(asked, next.sort);
          continue;
        }
        // Past the first page only a refusal that speaks of `limit` is the page size's: another is
        // the end of the list or a fault (pageOrEnd).
        const aboutSize = (query.offset ?? 0) === 0 || /\blimit\b/i.test(message);
        const smaller = aboutSize ? smallerLimit(message, limit) : undefined;
        if (smaller === undefined) throw error;
        this.logger.warn(
          `brokerage ${this.brokerageId}: GET /active-offer-requests refused limit=${limit} (${(error as Error).message}); asking ${smaller} a page from now on`,
        );
        this.activePageMax = limit = smaller;
      }
    }
  }

  // GET /offers in the form this brokerage's service takes: the spec shows no query parameters, so
  // a service may refuse the page size, the filters or any parameter at all; each refusal drops a
  // little more (list-query.negotiation.ts), for good, and the client applies the rest itself.
  // `call.beforeSend` runs right before each attempt of the read's request (of its first page, when
  // the service's form has this client read every offer page by page): a caller keeps the last one's
  // time as when the service read its answer, after any wait for the rate limiter.
  async listOffers(query: OffersQuery = {}, call: CallOptions = {}): Promise<Offer[]> {
    const violations = pageViolations(query.limit, query.offset, MAX_OFFERS_PAGE);
    if (violations.length > 0) throw CashOfferError.invalidRecord(OPERATIONS.listOffers.name, violations);
    for (;;) {
      const form = this.offersForm;
      const offers = offersCall(form, query, MAX_OFFERS_PAGE);
      try {
        return await this.listOffersAs(offers, query, call);
      } catch (error) {
        const next = refusesQuery(error)
          ? nextOffersForm(form, offers.sent, serviceMessageOf(error))
          : undefined;
        if (next === undefined) throw error;
        this.logger.warn(
          `brokerage ${this.brokerageId}: GET /offers refused its query (${(error as Error).message}); from now on ${describeOffersForm(next)}`,
        );
        this.offersForm = next;
      }
    }
  }

  // Whether listOffers answers this query from a read of every offer (the service refused the
  // filters, or any paging): then one call with no limit or offset returns every matching offer, and
  // a caller paging through them would read the whole book once per page.
  answersFromEveryOffer(query: Pick<OffersQuery, 'offer_request_id' | 'status'>): boolean {
    return offersCall(this.offersForm, query, MAX_OFFERS_PAGE).kind !== 'page';
  }

  private async listOffersAs(offers: OffersCall, query: OffersQuery, call: CallOptions): Promise<Offer[]> {
    if (offers.kind === 'plain') return applyOffersQuery(await this.offersPage({}, call), query);
    if (offers.kind === 'every')
      return applyOffersQuery(
        await this.everyOffer(offers.pageSize, call, query.offer_request_id !== undefined),
        query,
      );
    return this.offersPage({ ...query, limit: offers.sent.limit }, call);
  }

  // Every offer of the account, paged in the form the service takes (for filters applied here).
  // A read for one request relies on what earlier reads learned of the paging; a read of the whole
  // book (a complete pass) checks it (PagingMemory).
  private async everyOffer(limit: number, call: CallOptions, forOneRequest: boolean): Promise<Offer[]> {
    const all: Offer[] = [];
    let first = true;
    for await (const page of offerListPages(
      (size, at) => {
        const hooks = first ? call : {};
        first = false;
        return this.offersPage({ limit: size, offset: at }, hooks);
      },
      limit,
      undefined,
      { state: this.offersPaging, relied: forOneRequest },
    ))
      all.push(...page);
    return all;
  }

  private async offersPage(query: OffersQuery, call: CallOptions = {}): Promise<Offer[]> {
    const offers = await this.send<Offer[]>(
      OPERATIONS.listOffers,
      [],
      { method: 'GET', path: '/offers', query: { ...query } },
      [],
      call,
    );
    return asList(offers, OPERATIONS.listOffers);
  }

  decideOffer(
    offerId: number,
    decision: 'accepted' | 'rejected',
    call?: CallOptions,
  ): Promise<Offer | undefined> {
    const body = { offer_id: offerId, offer_status: decision };
    return this.send(
      OPERATIONS.decideOffer,
      validateWire(OfferDecisionBody, body),
      { method: 'PATCH', path: '/offers', body },
      [],
      call,
    );
  }

  counterOffer(body: CounterOfferBody, call?: CallOptions): Promise<CounterOffer | undefined> {
    return this.send(
      OPERATIONS.counterOffer,
      validateWire(CounterOfferBody, body),
      { method: 'POST', path: '/counter-offers', body },
      [],
      call,
    );
  }

  registerWebhook(url: string, call?: CallOptions): Promise<WebhookConfig | undefined> {
    const body = { url };
    // The URL carries the brokerage's webhook secret: messages never repeat it.
    return this.send(
      OPERATIONS.registerWebhook,
      validateWire(WebhookConfig, body),
      { method: 'POST', path: '/wh', body },
      [[url, '[webhook url]']],
      call,
    );
  }

  updateWebhook(url: string, call?: CallOptions): Promise<WebhookConfig | undefined> {
    const body = { url };
    return this.send(
      OPERATIONS.updateWebhook,
      validateWire(WebhookConfig, body),
      { method: 'PATCH', path: '/wh', body },
      [[url, '[webhook url]']],
      call,
    );
  }

  submitBuyerLead(body: BuyerLeadBody, call?: CallOptions): Promise<BuyerLead | undefined> {
    return this.send(
      OPERATIONS.submitBuyerLead,
      validateWire(BuyerLeadBody, body),
      { method: 'POST', path: '/buyer/lead', body },
      [],
      call,
    );
  }

  pushToMarketplace(
    body: PushToMarketplaceBody,
    call?: CallOptions,
  ): Promise<PushToMarketplaceResult | undefined> {
    return this.send(
      OPERATIONS.pushToMarketplace,
      validateWire(PushToMarketplaceBody, body),
      { method: 'POST', path: '/push-to-marketplace', body },
      [],
      call,
    );
  }

  // The brokerage's config changed, so a new client serves the next runs. A run that took this one
  // before may still be calling: its calls go on (closing would fail them mid-run, and open the
  // breaker on a client nobody else uses), and the connections are freed whenever none is in flight.
  retire(): void {
    this.retired = true;
    this.releaseIfRetiredAndIdle();
  }

  // Frees the keep-alive connections; later calls fail with UNAVAILABLE.
  close(): void {
    this.closed = true;
    this.closing.abort();
    this.transport.close();
  }

  private async send<T>(
    op: OperationSpec,
    violations: FieldViolation[],
    request: TransportRequest,
    extraMasks: Masks = [],
    call: CallOptions = {},
  ): Promise<T | undefined> {
    const masks: Masks = [[this.#apiKey, '[redacted]'], ...extraMasks];
    if (violations.length > 0)
      throw CashOfferError.invalidRecord(
        op.name,
        violations.map((v) => ({ field: v.field, message: maskText(v.message, masks) })),
      );
    this.inFlight++;
    try {
      return await this.policy.execute(
        op.name,
        ({ attempt, signal }) => this.attempt<T>(op, request, { attempt, signal }, masks, call),
        { signal: this.closing.signal, error: (name) => this.closedError(name) },
      );
    } finally {
      this.inFlight--;
      this.releaseIfRetiredAndIdle();
    }
  }

  // The service's limit is not published: a 429 says this key's pace is over it, so the key's calls
  // slow down (adaptive-pace.ts) whether or not the answer named a wait.
  private slowDown(operation: string): void {
    const cut = this.limiter.slowDown();
    if (!cut || cut.to === cut.from) return;
    const { intervalMs } = this.options.rateLimit;
    this.logger.warn(
      `brokerage ${this.brokerageId}: the service refused ${operation} as over its rate limit (429); ` +
        `this key's calls slowed from ${cut.from} to ${cut.to} per ${intervalMs} ms, ` +
        `one more every ${(PACE_RECOVERY_WINDOWS * intervalMs) / 1000} s without a refusal`,
    );
  }

  private closedError(operation: string): CashOfferError {
    return new CashOfferError({
      code: 'UNAVAILABLE',
      operation,
      message: `${operation}: the client of brokerage ${this.brokerageId} is closed`,
    });
  }

  private releaseIfRetiredAndIdle(): void {
    if (this.retired && this.inFlight === 0 && !this.closed) this.transport.releaseConnections();
  }

  private async attempt<T>(
    op: OperationSpec,
    request: TransportRequest,
    { attempt, signal }: { attempt: number; signal: AbortSignal },
    masks: Masks,
    call: CallOptions,
  ): Promise<T | undefined> {
    if (this.closed) throw this.closedError(op.name);
    await call.beforeSend?.();
    const started = performance.now();
    let response;
    try {
      // The form this call used: another call may learn the other one meanwhile.
      const keyForm = this.keyForm;
      response = await this.exchange(request, signal, keyForm);
      if (mayRefuseTheKey(response.status, response.body))
        response = await this.tryOtherKeyForm(request, signal, response, keyForm);
    } catch (error) {
      const code = error instanceof TransportFailure ? error.networkCode : 'NETWORK_ERROR';
      this.report(op, 'network_error', started, attempt);
      const failure = classifyNetworkFailure(op, code);
      if (requestNeverLeft(code)) await call.refusedBeforeRetry?.(failure.message);
      throw failure;
    }
    if (response.status >= 200 && response.status < 300) {
      this.report(op, response.status, started, attempt);
      return this.parseBody<T>(op, response.body);
    }
    const retryAfterMs = parseRetryAfter(response.headers['retry-after'], this.clock.nowMs());
    const failure = classifyHttpFailure(
      op,
      { status: response.status, body: response.body, retryAfterMs },
      masks,
    );
    this.report(op, response.status, started, attempt, failure.keyRefused);
    if (failure.code === 'RATE_LIMITED') {
      this.slowDown(op.name);
      // A 429 did nothing: while the policy waits for the service's Retry-After, nothing is on its way.
      await call.refusedBeforeRetry?.(failure.message);
    }
    throw failure;
  }

  // One request and its answer, following a redirect that only adds or strips a trailing slash on the
  // same origin (slash-redirect.ts), once.
  private async exchange(
    request: TransportRequest,
    signal: AbortSignal,
    keyForm: KeyForm,
  ): Promise<TransportResponse> {
    request = withTrailingSlash(request, this.trailingSlash);
    const response = await this.transport.send(request, signal, keyForm);
    const target = slashRedirectTarget(
      this.options.baseUrl,
      request.path + queryString(request.query),
      request.method,
      response.status,
      response.headers.location,
    );
    if (target === undefined) return response;
    this.trailingSlash = target.endsWith('/') ? 'add' : 'strip';
    return this.transport.send({ ...request, path: target }, signal, keyForm);
  }

  // A refusal of the key may be a refusal of how it was written (the spec shows no prefix): the same
  // request goes once more with the key written the other way. A refused request did nothing, so
  // sending it again is safe, even a create. The form the service takes is kept; when both are
  // refused, the first refusal is the answer (the key itself is wrong, or the 403 is the record's).
  private async tryOtherKeyForm(
    request: TransportRequest,
    signal: AbortSignal,
    refused: TransportResponse,
    tried: KeyForm,
  ): Promise<TransportResponse> {
    const other = otherKeyForm(tried);
    const again = await this.exchange(request, signal, other);
    if (mayRefuseTheKey(again.status, again.body)) return refused;
    this.keyForm = other;
    this.logger.log(
      `brokerage ${this.brokerageId}: the service refused the API key written ${describeKeyForm(this.#apiKey, tried)} and took it written ${describeKeyForm(this.#apiKey, other)}; it is sent that way from now on`,
    );
    return again;
  }

  // Any 2xx is success; an empty body is `undefined`. The answer is checked, never refused.
  private parseBody<T>(op: OperationSpec, body: string): T | undefined {
    if (body.trim() === '') return undefined;
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      throw new CashOfferError({
        code: op.kind === 'create' ? 'OUTCOME_UNKNOWN' : 'UNAVAILABLE',
        operation: op.name,
        message: `${op.name}: the service answered success with a body that is not JSON`,
      });
    }
    this.answers.check(op, parsed);
    return parsed as T;
  }

  private report(
    op: OperationSpec,
    status: number | 'network_error',
    started: number,
    attempt: number,
    keyRefused = false,
  ): void {
    const onCall = this.options.onCall;
    if (!onCall) return;
    try {
      onCall({
        brokerageId: this.brokerageId,
        operation: op.name,
        status,
        durationMs: performance.now() - started,
        attempt,
        ...(keyRefused ? { keyRefused } : {}),
      });
    } catch {
      // metrics must never break a call
    }
  }
}

// The service's own words when it gave an error object, else the client's message.
function serviceMessageOf(error: CashOfferError): string {
  return error.serviceError?.message ?? error.message;
}

function describeOffersForm(form: OffersQueryForm): string {
  if (!form.paging) return 'listing offers with a plain GET and paging them here';
  const size = form.maxLimit === undefined ? '' : ` at most ${form.maxLimit} a page`;
  return form.filters ? `asking${size}` : `asking without filters${size}, filtering here`;
}

function withTrailingSlash(request: TransportRequest, slash: 'add' | 'strip' | undefined): TransportRequest {
  if (slash === undefined) return request;
  const path = request.path.replace(/\/+$/, '');
  return { ...request, path: slash === 'add' ? `${path}/` : path };
}
