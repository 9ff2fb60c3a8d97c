/** The console's stylesheet: system fonts, AA contrast, a visible focus ring, one column below 40rem. */
export const CONSOLE_CSS = String.raw`
:root { --ink: #1b1f24; --muted: #4b5563; --line: #c4c9d0; --bg: #f4f5f7; --card: #fff; --accent: #0b57d0; --accent-ink: #fff;
  --bad: #b3261e; --bad-bg: #fdecea; --ok: #146c2e; --ok-bg: #e7f4ea; --warn: #7a4a00; --warn-bg: #fff4e0;
  font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; color: var(--ink); background: var(--bg); }
* { box-sizing: border-box; }
body { margin: 0; }
[hidden] { display: none !important; }
:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
code, textarea, .log { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, monospace; }
h1 { font-size: 1.25rem; margin: 0; }
h2 { font-size: 1.4rem; margin: 0 0 .75rem; }
h3 { font-size: 1.1rem; margin: 0 0 .75rem; }
.skip { position: absolute; left: -999px; }
.skip:focus { left: 1rem; top: .5rem; background: var(--card); padding: .5rem; z-index: 2; }
.sr { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
.bar { display: flex; flex-wrap: wrap; align-items: center; gap: .25rem 1rem; padding: .75rem 1rem; background: #102a43; color: #fff; }
.where { margin: 0; flex: 1; color: #d9e2ec; }
.bar button { color: #fff; border-color: #d9e2ec; background: transparent; }
main { max-width: 64rem; margin: 0 auto; padding: 1rem; }
main:focus { outline: none; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 1rem; margin-bottom: 1rem; }
.card > :last-child { margin-bottom: 0; }
.narrow { max-width: 28rem; margin: 2rem auto; }
.field { margin: 0 0 1rem; }
label, legend { display: block; font-weight: 600; margin-bottom: .25rem; }
fieldset { border: 1px solid var(--line); border-radius: 6px; margin: 0 0 1rem; padding: .75rem; min-width: 0; }
.help { color: var(--muted); margin: 0 0 .35rem; font-size: .95rem; }
.opt { font-weight: 400; color: var(--muted); }
input, select, textarea { font: inherit; color: inherit; width: 100%; max-width: 36rem; padding: .5rem; border: 1px solid #6b7280; border-radius: 4px; background: #fff; }
textarea { max-width: none; }
::placeholder { color: #6b7280; }
input[type=radio], input[type=checkbox] { width: 1.2rem; height: 1.2rem; margin: .2rem .5rem 0 0; flex: none; }
[aria-invalid=true] { border: 2px solid var(--bad); }
button { font: inherit; min-height: 2.75rem; padding: .45rem 1rem; border-radius: 6px; border: 1px solid #6b7280; background: #fff; color: var(--ink); cursor: pointer; }
button.primary { background: var(--accent); border-color: var(--accent); color: var(--accent-ink); font-weight: 600; }
button.quiet { min-height: 2.25rem; }
button:disabled { background: #e5e7eb; border-color: #9ca3af; color: #4b5563; cursor: not-allowed; }
.actions { display: flex; flex-wrap: wrap; gap: .75rem; margin-top: .5rem; }
.error { color: var(--bad); margin: .25rem 0 .5rem; font-weight: 600; }
.error .hint { font-weight: 400; display: block; }
.alert { background: var(--bad-bg); color: var(--bad); border: 1px solid var(--bad); border-radius: 6px; padding: .75rem; }
.lockout { background: var(--warn-bg); color: var(--warn); padding: .5rem .75rem; border-radius: 6px; font-weight: 600; }
.notice { background: var(--warn-bg); border-color: #d9a441; }
.summary { border: 2px solid var(--bad); }
.summary ul, #blockers ul { margin: .25rem 0 0; padding-left: 1.25rem; }
.linkish { background: none; border: none; padding: 0; min-height: 0; color: var(--accent); text-decoration: underline; text-align: left; }
.tabs { display: flex; gap: .25rem; }
.tabs [role=tab] { border-radius: 6px 6px 0 0; border-bottom: none; background: var(--bg); }
.tabs [aria-selected=true] { background: var(--card); font-weight: 600; box-shadow: inset 0 3px 0 var(--accent); }
.tabs + .card { border-top-left-radius: 0; }
.stepper { display: flex; flex-wrap: wrap; gap: .5rem; list-style: none; margin: 0 0 1rem; padding: 0; counter-reset: step; }
.stepper button { min-height: 2.5rem; counter-increment: step; }
.stepper button::before { content: counter(step) ". "; }
.stepper [aria-current=step] { background: var(--accent); border-color: var(--accent); color: #fff; font-weight: 600; }
.stepper .count { display: inline-block; margin-left: .35rem; padding: 0 .4rem; border-radius: 1rem; background: var(--bad); color: #fff; font-size: .85rem; }
.choice { display: flex; align-items: flex-start; padding: .5rem; border-radius: 6px; }
.choice + .choice { border-top: 1px solid #e5e7eb; }
.choice label { margin: 0; }
.choice .help { display: block; font-weight: 400; margin: 0; }
.choice.off label { color: var(--muted); }
.rows { list-style: none; padding: 0; margin: 0 0 .5rem; }
.list-row { display: flex; flex-wrap: wrap; gap: .5rem; align-items: flex-start; margin-bottom: .5rem; }
.list-row .error { flex-basis: 100%; margin-top: 0; }
.list-row input, .list-row textarea { flex: 1; }
.hand-over { color: var(--warn); font-weight: 600; }
.columns { display: grid; grid-template-columns: 1fr 1fr; gap: 0 1rem; }
.progress { list-style: none; padding: 0; margin: 0; }
.progress li { padding: .35rem 0 .35rem 2rem; position: relative; }
.progress li::before { position: absolute; left: 0; width: 1.5rem; text-align: center; font-weight: 700; content: "○"; color: var(--muted); }
.progress .running::before { content: "▶"; color: var(--accent); }
.progress .succeeded::before { content: "✓"; color: var(--ok); }
.progress .failed::before { content: "✗"; color: var(--bad); }
.progress .state { color: var(--muted); }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: .3rem .5rem .3rem 0; border-bottom: 1px solid #e5e7eb; vertical-align: top; }
.status-ok { color: var(--ok); font-weight: 600; }
.status-pending { color: var(--warn); font-weight: 600; }
.log { height: 18rem; overflow: auto; background: #0f172a; color: #e2e8f0; padding: .5rem; border-radius: 6px; font-size: .85rem; white-space: pre-wrap; word-break: break-word; }
.log .warn { color: #fcd34d; }
.log .error { color: #fca5a5; margin: 0; }
.log time { color: #94a3b8; }
.verdict.ok { border: 2px solid var(--ok); background: var(--ok-bg); }
.verdict.bad { border: 2px solid var(--bad); background: var(--bad-bg); }
.verdict h3 { font-size: 1.3rem; }
.verdict code { font-weight: 700; }
@media (max-width: 40rem) {
  main { padding: .5rem; }
  .where { order: 3; flex-basis: 100%; }
  .columns { grid-template-columns: 1fr; }
  .card { padding: .75rem; }
  .actions button { flex: 1; }
}
`;
