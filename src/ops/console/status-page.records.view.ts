import type { BrokerageView } from '../../status/status-snapshot.service';
import { actionForm } from './console-forms';
import { when } from './console-format';
import { crmRecordLink } from './crm-record-link';
import { html, type Html } from './html';

// The status page's record tables: queue depths, record errors, commands and events needing the
// operator, each with its replay form.

// "(50 of 106; cli … lists them all)" when the page shows only the first ones.
function shown(listed: number, total: number, command: string): string {
  return total > listed ? ` (${listed} of ${total}; ${command} lists them all)` : ` (${total})`;
}

export function countsTable(caption: string, counts: Record<string, number>): Html {
  return html`<table class="counts">
    <caption>
      ${caption}
    </caption>
    <thead>
      <tr>
        <th scope="col">State</th>
        <th scope="col">Count</th>
      </tr>
    </thead>
    <tbody>
      ${Object.entries(counts).map(([state, n]) => html`<tr${n > 0 && ['dead', 'failed', 'flagged', 'unknown'].includes(state) ? html` class="attention"` : ''}><th scope="row">${state}</th><td class="num">${n}</td></tr>`)}
    </tbody>
  </table>`;
}

export function errorsTable(b: BrokerageView): Html {
  if (b.errors.length === 0)
    return html`<h3>Record errors</h3>
      <p>No open record errors.</p>`;
  return html`<h3>Record errors</h3>
    <table id="errors-${b.id}">
      <caption>
        Open record errors of ${b.id}, most recent
        first${shown(b.errors.length, b.totals.errors, `cli errors --brokerage ${b.id}`)}
      </caption>
      <thead>
        <tr>
          <th scope="col">Record</th>
          <th scope="col">Field</th>
          <th scope="col">Message</th>
          <th scope="col">Seen</th>
          <th scope="col">Last seen</th>
        </tr>
      </thead>
      <tbody>
        ${b.errors.map(
          (e) =>
            html`<tr>
              <th scope="row">${recordCell(b, e.recordKind, e.recordRef)}</th>
              <td>${e.field ?? '-'}</td>
              <td class="message">
                ${e.message}${e.code ? html` <span class="code">(${e.code})</span>` : ''}
              </td>
              <td class="num">${e.occurrences}×</td>
              <td>${when(e.lastSeenAt)}</td>
            </tr>`,
        )}
      </tbody>
    </table>`;
}

export function commandsTable(b: BrokerageView, token: string): Html {
  if (b.commands.length === 0)
    return html`<h3>Outbox commands needing attention</h3>
      <p>No failed, dead or unknown commands.</p>`;
  const replayable = b.commands.filter((c) => c.state !== 'unknown').length;
  return html`<h3>Outbox commands needing attention</h3>
    ${replayable > 1 ? actionForm(token, { action: 'replay', fields: { brokerage: b.id, kind: 'commands' }, label: `Replay all ${replayable} failed and dead commands of ${b.id}` }) : ''}
    <table id="commands-${b.id}">
      <caption>
        Failed, dead and unknown outbox commands of
        ${b.id}${shown(b.commands.length, b.totals.commands, `cli status --brokerage ${b.id}`)}
      </caption>
      <thead>
        <tr>
          <th scope="col">Command</th>
          <th scope="col">Operation</th>
          <th scope="col">Record</th>
          <th scope="col">State</th>
          <th scope="col">Attempts</th>
          <th scope="col">Last error</th>
          <th scope="col">Action</th>
        </tr>
      </thead>
      <tbody>
        ${b.commands.map(
          (c) =>
            html`<tr>
              <th scope="row">#${c.id}</th>
              <td>${c.operation}</td>
              <td>${c.recordRef}</td>
              <td>${c.state}</td>
              <td class="num">${c.attempts}</td>
              <td class="message">${c.lastError ?? '-'}</td>
              <td>
                ${
                  c.state === 'unknown'
                    ? html`<span class="hint"
                        >may have reached the service: check it, then
                        <code>cli confirm-received --id ${c.id}</code> (it is there) or
                        <code>cli replay --commands --unknown --confirm-absent --id ${c.id}</code> (it never
                        arrived)</span
                      >`
                    : actionForm(token, {
                        action: 'replay',
                        fields: { brokerage: b.id, kind: 'commands', id: c.id },
                        label: 'Replay',
                        context: `command ${c.id}`,
                      })
                }
              </td>
            </tr>`,
        )}
      </tbody>
    </table>`;
}

export function eventsTable(b: BrokerageView, token: string): Html {
  if (b.events.length === 0)
    return html`<h3>Dead and flagged webhook events</h3>
      <p>No dead or flagged events.</p>`;
  return html`<h3>Dead and flagged webhook events</h3>
    <table id="events-${b.id}">
      <caption>
        Dead and flagged webhook events of ${b.id}, newest
        first${shown(b.events.length, b.totals.events, `cli inbox --brokerage ${b.id}`)}
      </caption>
      <thead>
        <tr>
          <th scope="col">Event</th>
          <th scope="col">Type</th>
          <th scope="col">Status</th>
          <th scope="col">Reason</th>
          <th scope="col">Received</th>
          <th scope="col">Action</th>
        </tr>
      </thead>
      <tbody>
        ${b.events.map(
          (e) =>
            html`<tr>
              <th scope="row">#${e.id}</th>
              <td>${e.eventType}</td>
              <td>${e.status}</td>
              <td class="message">${e.deadReason ?? e.lastError ?? '-'}</td>
              <td>${when(e.receivedAt)}</td>
              <td>
                ${
                  e.eventType === 'malformed'
                    ? html`<span class="hint">malformed; kept for inspection</span>`
                    : actionForm(token, {
                        action: 'replay',
                        fields: { brokerage: b.id, kind: 'events', id: e.id },
                        label: 'Replay',
                        context: `event ${e.id}`,
                      })
                }
              </td>
            </tr>`,
        )}
      </tbody>
    </table>`;
}

// The record's name, a link to it in the CRM where the brokerage's file says how to build one.
function recordCell(b: BrokerageView, kind: string, ref: string): Html {
  const link = crmRecordLink(b.recordUrl, kind, ref);
  return link
    ? html`<a href="${link}" rel="noopener noreferrer"
        >${kind} ${ref}<span class="vh"> (opens in the CRM)</span></a
      >`
    : html`${kind} ${ref}`;
}
