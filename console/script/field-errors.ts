/** The draft's errors beside their fields (matched by field path, falling back to the nearest parent) and in a summary list. */
export const FIELD_ERRORS_JS = String.raw`
let errorSeq = 0;

/** Errors of steps the person has not saved yet would only nag. */
function visibleErrors() {
  if (!state.draft) return [];
  return state.draft.source === 'yaml' ? state.draft.errors : state.draft.errors.filter((e) => stepOf(e.field) <= state.shownUpTo);
}

function fieldElement(path) {
  for (let p = path; p; p = p.replace(/(\[\d+\]|\.[^.[]+|^[^.[]+)$/, '')) {
    const el = form().querySelector('[data-field="' + CSS.escape(p) + '"]');
    if (el) return el;
  }
  return null;
}

function fieldLabel(path) {
  const el = fieldElement(path);
  if (!el) return path || 'The whole config';
  const label = el.tagName === 'FIELDSET' ? el.querySelector('legend') : document.querySelector('label[for="' + CSS.escape(el.id) + '"]');
  return steps()[stepOf(path)].dataset.title + ' › ' + (label ? label.textContent.replace(/\s*\(optional\)/, '') : path);
}

function renderErrors() {
  clearFieldErrors();
  const errors = visibleErrors();
  const structured = state.draft.source === 'structured';
  if (structured) errors.forEach(markField);
  renderYamlErrors(structured ? [] : errors);
  renderSummary(structured ? errors : []);
  renderStepper();
}

function clearFieldErrors() {
  for (const el of form().querySelectorAll('[data-error]')) el.remove();
  for (const el of form().querySelectorAll('[aria-invalid]')) {
    el.removeAttribute('aria-invalid');
    if (el.dataset.describedby) el.setAttribute('aria-describedby', el.dataset.describedby);
    else el.removeAttribute('aria-describedby');
  }
}

function markField(error) {
  const el = fieldElement(error.field);
  if (!el) return;
  const id = 'error-' + ++errorSeq;
  const message = h('p', { class: 'error', id, 'data-error': true }, error.message, error.hint ? h('span', { class: 'hint' }, error.hint) : null);
  if (el.tagName === 'FIELDSET') return el.querySelector('legend').after(message);
  const row = el.closest('.list-row, .choice');
  if (row) row.lastElementChild.after(message); else el.after(message);
  if (!el.hasAttribute('aria-invalid')) el.dataset.describedby = el.getAttribute('aria-describedby') || '';
  el.setAttribute('aria-invalid', 'true');
  el.setAttribute('aria-describedby', ((el.getAttribute('aria-describedby') || '') + ' ' + id).trim());
}

function renderSummary(errors) {
  const box = $('summary');
  box.hidden = errors.length === 0;
  fill(box, h('h3', {}, plural(errors.length, 'problem') + ' to fix'),
    h('ul', {}, errors.map((e) => h('li', {}, h('button', { type: 'button', class: 'linkish', onclick: () => focusField(e.field) }, fieldLabel(e.field)), ': ' + e.message))));
}

function focusField(path) {
  selectTab('form');
  if (stepOf(path) !== state.step) goStep(stepOf(path));
  const el = fieldElement(path);
  const target = el && el.tagName === 'FIELDSET' ? el.querySelector('input:not([disabled]), textarea, select') : el;
  (target || $('s' + state.step)).focus();
}
`;
