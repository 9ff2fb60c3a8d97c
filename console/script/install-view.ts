/** One attempt, live: its steps, the cloud's readiness checks, the log, and the verdict with its next action. */
export const INSTALL_VIEW_JS = String.raw`
const STEPS_OF = { install: ['preflight', 'write-config', 'firstboot', 'readiness'], 'recheck-readiness': ['readiness'] };
const STEP_TEXT = { preflight: 'Preflight checks', 'write-config': 'Write node.yaml', firstboot: 'Run firstboot', readiness: 'Wait until the cloud is READY' };
const STATE_TEXT = { pending: 'waiting', running: 'running', succeeded: 'done', failed: 'failed' };
const READY_STATUSES = ['ok', 'ready', 'pass', 'passed', 'healthy', 'up'];
const NEXT = {
  recheckReadiness: ['Recheck readiness', recheck],
  retryInstall: ['Retry the install', install],
  fixConfig: ['Fix the config', fixConfig],
  clearBlockers: ['Show the blockers', showBlockers],
};

function follow(attempt) {
  stopFollowing();
  const controller = new AbortController();
  state.follow = controller;
  state.run = { attempt, kind: 'install', steps: {} };
  showView('install');
  $('verdict').hidden = true;
  fill($('log'));
  $('cloud-state').textContent = 'Not polled yet.';
  $('checks').hidden = true;
  renderRun();
  $('install-view-title').focus();
  readEvents(attempt, controller.signal, onEvent).catch(report);
  refreshStatus().catch(report);
}

function stopFollowing() {
  if (state.follow) state.follow.abort();
  state.follow = null;
}

function onEvent(event) {
  const run = state.run;
  if (event.type === 'attempt.started') run.kind = event.data.kind;
  if (event.type === 'step.started') run.steps[event.step] = 'running';
  if (event.type === 'step.finished') run.steps[event.step] = event.data.outcome;
  if (event.type === 'readiness.poll') renderReadiness(event.data);
  appendLog(event);
  if (event.type === 'attempt.finished') {
    for (const step of Object.keys(run.steps)) if (run.steps[step] === 'running') run.steps[step] = 'failed';
    showVerdict(event.data.verdict);
    refreshStatus().catch(report);
  }
  renderRun();
}

function renderRun() {
  const run = state.run;
  $('install-view-title').textContent = (run.kind === 'install' ? 'Install' : 'Readiness recheck') + ', attempt ' + run.attempt;
  fill($('steps'), STEPS_OF[run.kind].map((step) => {
    const now = run.steps[step] || 'pending';
    return h('li', { class: now, 'data-step': step, 'aria-current': now === 'running' ? 'step' : null }, STEP_TEXT[step] + ' ', h('span', { class: 'state' }, '(' + STATE_TEXT[now] + ')'));
  }));
}

function renderReadiness(data) {
  $('cloud-state').textContent = 'State: ' + data.state + (data.detail ? ', ' + data.detail : '');
  const checks = data.checks || [];
  $('checks').hidden = checks.length === 0;
  fill($('checks').tBodies[0], checks.map((c) => {
    const ok = READY_STATUSES.includes(c.status.toLowerCase());
    return h('tr', {}, h('td', {}, c.name), h('td', { class: ok ? 'status-ok' : 'status-pending' }, (ok ? '✓ ' : '… ') + c.status), h('td', {}, c.detail || ''));
  }));
}

function appendLog(event) {
  const log = $('log');
  const atEnd = log.scrollHeight - log.scrollTop - log.clientHeight < 32;
  log.append(h('div', { class: event.level === 'info' ? null : event.level },
    h('time', { datetime: event.time }, new Date(event.time).toLocaleTimeString()), ' ', event.step ? '[' + event.step + '] ' : '', event.message));
  if (log.childElementCount > 2000) log.firstElementChild.remove();
  if (atEnd) log.scrollTop = log.scrollHeight;
}

function showVerdict(verdict) {
  const ok = verdict.outcome === 'succeeded';
  const next = NEXT[verdict.next];
  const box = $('verdict');
  box.className = 'card verdict ' + (ok ? 'ok' : 'bad');
  fill(box,
    h('h3', {}, ok ? (verdict.kind === 'install' ? 'Done: the node is installed' : 'Done: the cloud is READY') : 'Attempt ' + verdict.attempt + ' failed at ' + verdict.step),
    ok ? null : h('p', {}, h('code', {}, verdict.code)),
    h('p', {}, verdict.message),
    h('div', { class: 'actions' },
      next ? h('button', { type: 'button', class: 'primary', onclick: guard(next[1]) }, next[0]) : null,
      !ok && (verdict.next === 'retryInstall' || verdict.next === 'recheckReadiness') ? h('button', { type: 'button', onclick: guard(fixConfig) }, 'Edit the config') : null,
      h('button', { type: 'button', onclick: guard(() => downloadReport(verdict.attempt)) }, 'Download report')));
  box.hidden = false;
  box.focus();
}

async function recheck() {
  try {
    follow((await api('/install/recheck-readiness', { method: 'POST' })).attempt);
  } catch (problem) {
    await refused(problem);
  }
}

async function fixConfig() {
  state.draft = await api('/config');
  state.shownUpTo = steps().length;
  showConfigure();
  renderErrors();
  if (visibleErrors().length) (state.draft.source === 'yaml' ? $('yaml-errors').querySelector('button') : $('summary')).focus();
}

async function downloadReport(attempt) {
  const report = await api('/install/report?attempt=' + attempt);
  const url = URL.createObjectURL(new Blob([JSON.stringify(report, null, 2) + '\n'], { type: 'application/json' }));
  const link = h('a', { href: url, download: 'stratum-install-report-attempt-' + attempt + '.json', hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60000);
}
`;
