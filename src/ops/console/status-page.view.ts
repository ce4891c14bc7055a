import { FIGURES_WINDOW_DAYS, formatOfferFigures } from '../../sync/offer-clocks/offer-figures';
import type { BrokerageView, StatusSnapshot, JobView } from '../../status/status-snapshot.service';
import { actionForm } from './console-forms';
import { duration, when } from './console-format';
import { commandsTable, countsTable, errorsTable, eventsTable } from './status-page.records.view';
import { html, trustedHtml, type Html } from './html';
import { STATUS_PAGE_STYLE } from './status-page.style';

export interface PageOptions {
  token: string;
  // What the last action did; shown in its brokerage's section (where the page scrolls back to).
  notice?: { kind: 'ok' | 'error'; text: string; brokerageId?: string };
  // Seconds between automatic reloads (a meta refresh, no script); undefined for none.
  refreshSeconds?: number;
}

// The status page: one section per brokerage, everything as tables with headers, every action a
// form. Server-rendered and complete without JavaScript.
export function renderStatusPage(snapshot: StatusSnapshot, options: PageOptions): string {
  const { token } = options;
  const refresh = options.refreshSeconds
    ? html`<meta http-equiv="refresh" content="${options.refreshSeconds}" />`
    : '';
  const page = html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        ${refresh}
        <title>cash-offer-sync status</title>
        <style>
          ${trustedHtml(STATUS_PAGE_STYLE)}
        </style>
      </head>
      <body>
        <a class="skip" href="#main">Skip to the brokerages</a>
        <header>
          <h1>cash-offer-sync</h1>
          <p>
            Daemon process ${snapshot.pid}; as of
            <time datetime="${snapshot.at.toISOString()}">${when(snapshot.at)}</time>.
            <a href="/console">Refresh</a> · <a href="/console?refresh=5">Refresh every 5 s</a> ·
            <a href="/metrics">Metrics</a> · <a href="/health/ready">Health</a>
          </p>
          <nav aria-label="Brokerages">
            <ul>
              ${snapshot.brokerages.map(
                (b) =>
                  html`<li>
                    <a href="#b-${b.id}">${b.id}</a
                    >${b.loadProblems.length > 0 ? ' (failed to load)' : b.paused ? ' (paused)' : ''}
                  </li>`,
              )}
            </ul>
          </nav>
          ${attentionSection(snapshot)}
        </header>
        <main id="main">
          ${
            options.notice && !snapshot.brokerages.some((b) => b.id === options.notice?.brokerageId)
              ? html`<p role="status" class="notice ${options.notice.kind}">${options.notice.text}</p>`
              : ''
          }
          ${snapshot.brokerages.length === 0 ? html`<p>No brokerages are configured.</p>` : ''}
          ${snapshot.brokerages.map((b) =>
            brokerageSection(b, token, options.notice?.brokerageId === b.id ? options.notice : undefined),
          )}
        </main>
      </body>
    </html> `;
  return page.value;
}

// What needs a person, before everything else: open alerts and alert channels that are failing.
function attentionSection(snapshot: StatusSnapshot): Html {
  const failing = snapshot.channels.filter((c) => c.lastError);
  if (snapshot.alerts.length === 0 && failing.length === 0)
    return html`<aside id="attention" aria-labelledby="attention-h">
      <h2 id="attention-h">Needs attention</h2>
      <p>Nothing: no open alerts.</p>
    </aside>`;
  return html`<aside id="attention" aria-labelledby="attention-h" class="attention">
    <h2 id="attention-h">Needs attention</h2>
    ${
      snapshot.alerts.length > 0
        ? html`<table id="alerts">
            <caption>
              Open alerts (${snapshot.alerts.length});
              <code>cli alerts</code>
              lists recent ones too
            </caption>
            <thead>
              <tr>
                <th scope="col">Since</th>
                <th scope="col">Brokerage</th>
                <th scope="col">What</th>
                <th scope="col">More</th>
              </tr>
            </thead>
            <tbody>
              ${snapshot.alerts.map(
                (a) =>
                  html`<tr>
                    <td>${when(a.openedAt)}</td>
                    <td>${a.brokerageId ? html`<a href="#b-${a.brokerageId}">${a.brokerageId}</a>` : '-'}</td>
                    <td>${a.summary}</td>
                    <td><code>${a.more}</code></td>
                  </tr>`,
              )}
            </tbody>
          </table>`
        : ''
    }
    ${failing.map(
      (c) =>
        html`<p class="notice error">
          Alert channel ${c.channel} is failing: ${c.lastError ?? ''} (${c.pending} waiting, ${c.failed} given
          up).
        </p>`,
    )}
  </aside>`;
}

function brokerageSection(b: BrokerageView, token: string, notice: PageOptions['notice']): Html {
  const unready = b.loadProblems.length > 0;
  const state = unready ? 'unready' : !b.enabled ? 'disabled' : b.paused ? 'paused' : 'active';
  return html`<section id="b-${b.id}" aria-labelledby="b-${b.id}-h">
    <h2 id="b-${b.id}-h">
      Brokerage ${b.id} <span class="badge ${state}">${unready ? 'failed to load' : state}</span>
    </h2>
    ${notice ? html`<p role="status" class="notice ${notice.kind}">${notice.text}</p>` : ''}
    ${
      unready
        ? html`<div class="notice error">
            <p>
              Its file failed to load at the last reload;
              ${b.file ? 'it runs on its last good config' : 'nothing of it is synced'} until it loads:
            </p>
            <ul>
              ${b.loadProblems.map((p) => html`<li>${p}</li>`)}
            </ul>
            <p>
              Fix the file (<code>cli validate-config</code> lists every problem), then reload the config.
            </p>
          </div>`
        : ''
    }
    <p class="file">Config file: <code>${b.file ?? 'not loaded'}</code></p>
    ${b.file ? brokerageBody(b, token) : ''}
  </section>`;
}

// Pause forms, jobs, queues and records of a brokerage that loaded (now or on its last good config).
function brokerageBody(b: BrokerageView, token: string): Html {
  return html`${
      b.paused?.credential
        ? html`<p class="paused-note">
            Paused by the daemon since ${when(b.paused.pausedAt)}: ${b.paused.reason}
          </p>`
        : b.paused
          ? html`<p class="paused-note">
                Paused since ${when(b.paused.pausedAt)}${b.paused.reason ? html`: ${b.paused.reason}` : ''}.
                Cron starts none of its jobs until it is resumed.
              </p>
              ${actionForm(token, { action: 'resume', fields: { brokerage: b.id }, label: `Resume brokerage ${b.id}` })}`
          : actionForm(token, {
              action: 'pause',
              fields: { brokerage: b.id },
              label: `Pause brokerage ${b.id}`,
              reasonId: `reason-${b.id}`,
            })
    }
    <h3>Jobs</h3>
    ${jobsTable(b, token)}
    <h3>Outbox and inbox</h3>
    <div class="pair">
      ${countsTable(`Outbox commands of ${b.id} by state`, b.outbox)}${countsTable(`Webhook events of ${b.id} by status`, b.inbox)}
    </div>
    <h3>Offers</h3>
    <p>Last ${FIGURES_WINDOW_DAYS} days: ${formatOfferFigures(b.offers)}.</p>
    ${errorsTable(b)} ${commandsTable(b, token)} ${eventsTable(b, token)}`;
}

function jobsTable(b: BrokerageView, token: string): Html {
  return html`<table id="jobs-${b.id}">
    <caption>
      Jobs of ${b.id}
    </caption>
    <thead>
      <tr>
        <th scope="col">Job</th>
        <th scope="col">State</th>
        <th scope="col">Last run</th>
        <th scope="col">Read / created / updated / unchanged / failed</th>
        <th scope="col">Next run</th>
        <th scope="col">Backoff</th>
        <th scope="col">Actions</th>
      </tr>
    </thead>
    <tbody>
      ${b.jobs.map((j) => jobRow(b, j, token))}
    </tbody>
  </table>`;
}

function jobRow(b: BrokerageView, j: JobView, token: string): Html {
  const context = `${j.job} of ${b.id}`;
  const state = j.running
    ? html`<strong>running</strong> (run ${j.running.runId ?? '-'},
        ${j.running.done}${j.running.total !== undefined ? ` of ${j.running.total}` : ''} done since
        ${when(j.running.startedAt)})`
    : j.paused
      ? html`<strong>paused</strong
          >${j.paused.job === undefined ? ' (brokerage)' : ''}${j.paused.reason ? `: ${j.paused.reason}` : ''}${j.ownPause ? html`<br />and paused on its own since ${when(j.ownPause.pausedAt)}${j.ownPause.reason ? `: ${j.ownPause.reason}` : ''} (stays paused when the brokerage resumes)` : ''}`
      : 'active';
  const run = j.lastRun;
  const lastRun = run
    ? html`${run.status} ·
      ${when(run.startedAt)}${run.finishedAt ? ` · ${duration(run.finishedAt.getTime() - run.startedAt.getTime())}` : ''}${run.error ? html`<br /><span class="error-text">${run.error}</span>` : ''}`
    : 'never run';
  const counts = run
    ? `${run.readCount} / ${run.createdCount} / ${run.updatedCount} / ${run.unchangedCount} / ${run.failedCount}`
    : '-';
  const backoff =
    j.backoff.consecutiveFailures > 0
      ? `${j.backoff.consecutiveFailures} failure(s); skipping ${j.backoff.ticksToSkip} tick(s)`
      : 'none';
  const ownPause = j.paused?.job !== undefined || j.ownPause !== undefined;
  const actions = [
    ownPause
      ? actionForm(token, {
          action: 'resume',
          fields: { brokerage: b.id, job: j.job },
          label: 'Resume',
          context,
        })
      : actionForm(token, {
          action: 'pause',
          fields: { brokerage: b.id, job: j.job },
          label: 'Pause',
          context,
          disabled: j.paused !== undefined,
        }),
    actionForm(token, {
      action: 'run',
      fields: { brokerage: b.id, job: j.job },
      label: 'Run now',
      context,
      disabled: j.paused !== undefined || j.running !== undefined,
    }),
  ];
  return html`<tr class="${j.paused ? 'is-paused' : j.running ? 'is-running' : ''}">
    <th scope="row">${j.job}</th>
    <td>${state}</td>
    <td>${lastRun}</td>
    <td class="num">${counts}</td>
    <td>${j.paused ? 'paused' : j.nextRun ? when(j.nextRun) : 'not scheduled'}</td>
    <td>${backoff}</td>
    <td class="actions">${actions}</td>
  </tr>`;
}
