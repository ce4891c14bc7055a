// The page's only stylesheet, inline so the page is one response (the CSP allows inline styles only).
// Colours meet WCAG AA contrast on white; states are also written out, never shown by colour alone.
export const STATUS_PAGE_STYLE = `
:root { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1b1f24; background: #fff; }
body { margin: 0 auto; max-width: 80rem; padding: 1rem 1.5rem 3rem; line-height: 1.45; }
h1 { font-size: 1.6rem; margin: 0.2rem 0; }
h2 { font-size: 1.3rem; margin: 2rem 0 0.5rem; border-bottom: 2px solid #d0d7de; padding-bottom: 0.3rem; }
h3 { font-size: 1.05rem; margin: 1.4rem 0 0.4rem; }
a { color: #0550ae; }
.skip { position: absolute; left: -999px; }
.skip:focus { left: 1rem; top: 1rem; background: #fff; padding: 0.5rem; z-index: 1; }
.vh { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
nav ul { list-style: none; padding: 0; margin: 0.5rem 0 0; display: flex; gap: 1rem; flex-wrap: wrap; }
table { border-collapse: collapse; width: 100%; margin: 0.3rem 0 0.8rem; font-size: 0.92rem; }
caption { text-align: left; font-weight: 600; padding: 0.2rem 0; color: #424a53; }
th, td { border: 1px solid #d0d7de; padding: 0.35rem 0.5rem; text-align: left; vertical-align: top; }
thead th { background: #f6f8fa; }
tbody th { font-weight: 600; white-space: nowrap; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.message { overflow-wrap: anywhere; max-width: 40rem; }
td.actions { white-space: nowrap; }
.pair { display: flex; gap: 1.5rem; flex-wrap: wrap; }
.pair table.counts { width: auto; min-width: 16rem; }
tr.is-paused { background: #fff8c5; }
tr.is-running { background: #ddf4ff; }
tr.attention th, tr.attention td { background: #ffebe9; }
.badge { font-size: 0.8rem; padding: 0.1rem 0.5rem; border-radius: 1rem; border: 1px solid; vertical-align: middle; text-transform: uppercase; }
.badge.active { color: #116329; background: #dafbe1; }
.badge.paused { color: #7d4e00; background: #fff8c5; }
.badge.disabled { color: #424a53; background: #f6f8fa; }
.badge.unready { color: #a40e26; background: #ffebe9; }
/* A phone (390 px): the page stays as wide as the screen; a wide table scrolls on its own. */
@media (max-width: 48rem) {
  body { padding: 0.5rem 0.6rem 2rem; }
  table { display: block; overflow-x: auto; max-width: 100%; position: relative; }
  caption { display: block; }
  td.message { max-width: none; }
  header, main p, main li, code { overflow-wrap: anywhere; }
  input[type=text] { max-width: 10rem; }
}
.paused-note { background: #fff8c5; border-left: 4px solid #9a6700; padding: 0.4rem 0.7rem; }
.notice { padding: 0.5rem 0.8rem; border-left: 4px solid; }
.notice.ok { background: #dafbe1; border-color: #1a7f37; }
.notice.error { background: #ffebe9; border-color: #cf222e; }
.error-text { color: #a40e26; }
.hint, .code, .file { color: #424a53; font-size: 0.88rem; }
form.inline { display: inline-flex; gap: 0.4rem; align-items: center; margin: 0.2rem 0.4rem 0.2rem 0; flex-wrap: wrap; }
button { font: inherit; font-size: 0.88rem; padding: 0.2rem 0.7rem; border: 1px solid #8c959f; border-radius: 0.3rem; background: #f6f8fa; color: #1b1f24; cursor: pointer; }
button:hover:not([disabled]) { background: #eaeef2; }
button[disabled] { color: #6e7781; cursor: not-allowed; }
button:focus-visible, a:focus-visible, input:focus-visible { outline: 3px solid #0969da; outline-offset: 2px; }
input[type=text] { font: inherit; font-size: 0.88rem; padding: 0.15rem 0.4rem; border: 1px solid #8c959f; border-radius: 0.3rem; }
`;
