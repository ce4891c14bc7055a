import { html, type Html } from './html';

// The page's action forms: each POSTs to the admin listener with the per-process form token, and
// names what it acts on in its button text (hidden words for screen readers where the table says it).
export interface FormSpec {
  action: 'pause' | 'resume' | 'run' | 'replay';
  fields: Record<string, string | number | undefined>;
  label: string;
  // Words that complete the label for a screen reader ("Pause" + " marketplace of acme").
  context?: string;
  reasonId?: string;
  disabled?: boolean;
}

export function actionForm(token: string, spec: FormSpec): Html {
  const hidden = Object.entries(spec.fields)
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => html`<input type="hidden" name="${name}" value="${String(value)}" />`);
  const reason = spec.reasonId
    ? html`<label for="${spec.reasonId}">Reason <span class="hint">(optional)</span></label>
        <input id="${spec.reasonId}" name="reason" type="text" maxlength="200" size="24" />`
    : '';
  return html`<form method="post" action="/console/${spec.action}" class="inline">
    <input type="hidden" name="_csrf" value="${token}" />${hidden}${reason}
    <button type="submit" ${spec.disabled ? html` disabled` : ''}>
      ${spec.label}${spec.context ? html`<span class="vh"> ${spec.context}</span>` : ''}
    </button>
  </form>`;
}
