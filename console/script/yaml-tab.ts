/** The tabs, and the raw node.yaml editor: PUT as application/yaml, errors by line:column. */
export const YAML_TAB_JS = String.raw`
function selectTab(name) {
  for (const tab of ['form', 'yaml']) {
    const on = tab === name;
    $('tab-' + tab).setAttribute('aria-selected', String(on));
    $('tab-' + tab).tabIndex = on ? 0 : -1;
    $('panel-' + tab).hidden = !on;
  }
  if (name === 'yaml' && !state.yamlDirty) $('yaml').value = state.draft.source === 'yaml' ? state.draft.yaml : toNodeYaml(readForm());
}

function onTabKey(event) {
  const order = ['form', 'yaml'];
  const at = order.indexOf(event.target.id.slice(4));
  const to = { ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: order.length - 1 }[event.key];
  if (to === undefined) return;
  event.preventDefault();
  const name = order[(to + order.length) % order.length];
  selectTab(name);
  $('tab-' + name).focus();
}

/** What the form holds, as node.yaml: snake_case keys, node.yaml mode names, every scalar quoted. */
function toNodeYaml(config) {
  const lines = [];
  const emit = (key, value, depth) => {
    const line = '  '.repeat(depth) + key.replace(/[A-Z]/g, (c) => '_' + c.toLowerCase()) + ':';
    if (Array.isArray(value)) {
      lines.push(line + (value.length ? '' : ' []'));
      for (const item of value) lines.push('  '.repeat(depth + 1) + '- ' + JSON.stringify(String(item)));
    } else if (value && typeof value === 'object') {
      lines.push(line);
      for (const [k, v] of Object.entries(value)) emit(k, v, depth + 1);
    } else {
      const mode = depth === 0 && key === 'mode' && state.options.modes.find((m) => m.mode === value);
      lines.push(line + ' ' + JSON.stringify(String(mode ? mode.nodeYamlMode : value)));
    }
  };
  for (const [key, value] of Object.entries(config)) emit(key, value, 0);
  return lines.join('\n') + '\n';
}

async function saveYaml() {
  const draft = await api('/config', { method: 'PUT', yaml: $('yaml').value });
  state.yamlDirty = false;
  state.shownUpTo = steps().length;
  await saved(draft);
  if (!draft.valid) $('yaml-errors').querySelector('button').focus();
}

function renderYamlErrors(errors) {
  const box = $('yaml-errors');
  $('yaml').setAttribute('aria-invalid', String(errors.length > 0));
  fill(box, errors.length ? [h('h3', {}, plural(errors.length, 'problem') + ' in node.yaml'),
    h('ul', {}, errors.map((e) => h('li', {},
      h('button', { type: 'button', class: 'linkish', 'aria-label': 'Line ' + (e.line || 1) + ', column ' + (e.column || 1), onclick: () => caretTo(e.line || 1, e.column || 1) }, (e.line || 1) + ':' + (e.column || 1)),
      ' ' + (e.field || 'node.yaml') + ': ' + e.message + (e.hint ? ' (' + e.hint + ')' : ''))))] : []);
}

function caretTo(line, column) {
  const area = $('yaml');
  const offset = area.value.split('\n').slice(0, line - 1).reduce((n, text) => n + text.length + 1, 0) + column - 1;
  area.focus();
  area.setSelectionRange(offset, offset);
  area.scrollTop = Math.max(0, (line - 3) * parseFloat(getComputedStyle(area).lineHeight));
}
`;
