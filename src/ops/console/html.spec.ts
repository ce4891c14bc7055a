import { html } from './html';

describe('html', () => {
  it('escapes interpolated values, keeps nested Html and drops empty ones', () => {
    const inner = html`<b>${'a & b'}</b>`;
    expect(
      html`<p title="${'"x"'}">${'<script>'}${inner}${null}${false}${[1, html`<i>2</i>`]}</p>`.value,
    ).toBe('<p title="&quot;x&quot;">&lt;script&gt;<b>a &amp; b</b>1<i>2</i></p>');
  });
});
