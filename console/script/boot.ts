/** After sign-in: load status, options and draft, open the right view, keep the status fresh. */
export const BOOT_JS = String.raw`
async function enter() {
  const [status, options, draft] = await Promise.all([api('/status'), api('/options'), api('/config')]);
  Object.assign(state, { status, options, draft, shownUpTo: draft.updatedAt ? steps().length : -1, yamlDirty: false, unattendedKey: '' });
  setupForm();
  fillForm(draft);
  renderErrors();
  renderStatus();
  clearInterval(state.poll);
  state.poll = setInterval(poll, 3000);
  if (status.phase !== 'configuring') return follow(status.attempt);
  showConfigure();
  goStep(state.step);
}

/** Keeps blockers, validity and the unattended notice current; a notice that the installer is gone clears once it answers again. */
function poll() {
  if (state.busy || !state.code) return;
  refreshStatus().then(
    () => { if (state.offline) notice(''); state.offline = false; },
    (err) => { state.offline = !err.status; report(err); },
  );
}

function showConfigure() {
  stopFollowing();
  showView('configure');
  showStep(state.step);
  selectTab(state.draft.source === 'yaml' ? 'yaml' : 'form');
  renderStatus();
}

function init() {
  document.addEventListener('submit', (event) => event.preventDefault());
  $('sign-in-form').addEventListener('submit', guard(signIn));
  $('sign-out').addEventListener('click', () => signOut());
  $('config-form').addEventListener('submit', guard(saveForm));
  $('back').addEventListener('click', () => goStep(state.step - 1));
  $('modes').addEventListener('change', applyMode);
  $('yaml-form').addEventListener('submit', guard(saveYaml));
  $('yaml').addEventListener('input', () => { state.yamlDirty = true; });
  for (const tab of ['form', 'yaml']) {
    $('tab-' + tab).addEventListener('click', () => selectTab(tab));
    $('tab-' + tab).addEventListener('keydown', onTabKey);
  }
  $('install-button').addEventListener('click', guard(install));
  if (!state.code) return showSignIn();
  enter().catch((err) => {
    if (err.status) return;
    showSignIn();
    report(err);
  });
}
`;
