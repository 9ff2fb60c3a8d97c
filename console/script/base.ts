/** Shared by every part of the console script: state, DOM helpers and the API client. */
export const BASE_JS = String.raw`
const API = '/v1/installer';
const CODE_KEY = 'stratum.installCode';
const state = { code: sessionStorage.getItem(CODE_KEY) || '', status: null, options: null, draft: null, step: 0, shownUpTo: -1, yamlDirty: false, follow: null, run: null, poll: 0, busy: false, offline: false, unattendedKey: '' };

function $(id) { return document.getElementById(id); }

function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on')) el.addEventListener(name.slice(2), value);
    else el.setAttribute(name, value === true ? '' : String(value));
  }
  el.append(...present(children));
  return el;
}

function fill(el, ...children) { el.replaceChildren(...present(children)); return el; }
function present(children) { return children.flat(2).filter((c) => c !== undefined && c !== null && c !== false); }

function getPath(obj, path) { return path.split('.').reduce((o, key) => (o == null ? undefined : o[key]), obj); }
function setPath(obj, path, value) {
  const keys = path.split('.');
  const last = keys.pop();
  let o = obj;
  for (const key of keys) o = o[key] = o[key] || {};
  o[last] = value;
}
function plural(n, word) { return n + ' ' + word + (n === 1 ? '' : 's'); }

async function api(path, options) {
  const opts = options || {};
  const headers = { Authorization: 'Bearer ' + state.code };
  let body;
  if (opts.yaml !== undefined) { headers['Content-Type'] = 'application/yaml'; body = opts.yaml; }
  else if (opts.body !== undefined) { headers['Content-Type'] = 'application/json'; body = JSON.stringify(opts.body); }
  const res = await fetch(API + path, { method: opts.method || 'GET', headers, body, cache: 'no-store' });
  const data = (res.headers.get('content-type') || '').includes('json') ? await res.json() : await res.text();
  if (res.ok) return data;
  throw problemOf(res, data, opts.signingIn);
}

/** A problem+json answer as an Error; a refused code ends the session. */
function problemOf(res, data, signingIn) {
  const problem = Object.assign(new Error(data.detail || data.title || 'HTTP ' + res.status), {
    status: res.status, code: data.code, errors: data.errors || [], blockers: data.blockers || [], retryAfter: Number(res.headers.get('retry-after')) || 0,
  });
  if ((res.status === 401 || res.status === 429) && !signingIn) signOut(problem);
  return problem;
}

function notice(text) { const el = $('notice'); el.textContent = text || ''; el.hidden = !text; }
function announce(text) { $('announce').textContent = text; }

function report(err) {
  if (err && (err.status === 401 || err.status === 429)) return;
  notice(err && err.status ? err.message : 'The installer did not answer (' + (err && err.message) + '). Check that it still runs, then try again.');
}

/** Runs a person's action once at a time; its failure is shown, not thrown. */
function guard(action) {
  return async (...args) => {
    if (state.busy) return;
    state.busy = true;
    notice('');
    try { await action(...args); } catch (err) { report(err); } finally { state.busy = false; }
  };
}

function showView(name) {
  for (const view of ['sign-in', 'configure', 'install']) $(view).hidden = view !== name;
  $('sign-out').hidden = name === 'sign-in';
  if (name === 'sign-in') { $('unattended').hidden = true; $('where').textContent = ''; }
}
`;
