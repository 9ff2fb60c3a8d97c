# -*- coding: utf-8 -*-
"""A Stratum node's installer API (SPEC §9) over the pinned client: the paths, the answers' shapes, the
problems in the operator's words, and what the modules share (connection options, code, redaction, text
from the node made printable). Standard library only, like client.py."""

import json
import os
import re
import time

from ansible_collections.stratum.installer.plugins.module_utils.client import ClientError, PinnedClient, colons, pin_of, seconds

API = "/v1/installer"
SECRET_KEYS = ("joinToken", "passwordHash")
MAX_ANSWER = 16 * 1024 * 1024
MAX_TEXT = 2000
# A node may list thousands of errors, blockers or checks: a message shows this many, each item this long (the fleet's caps).
MAX_ITEMS = 50
MAX_ITEM_TEXT = 512
# An answer nests a handful of levels; a deeper one is not believed (Python's json and every walk of it recurse).
MAX_DEPTH = 64
# The installer sends a heartbeat every 15 s: three missed ones and the stream is gone.
IDLE = 45
# The comment line an event stream ends with when its installer stops (a restart, or a stop) before the attempt
# finished: follow it again once the installer answers (STOPPING_COMMENT, core/http/sse.ts).
STOPPING_COMMENT = "installer stopping"

CONNECTION_SPEC = dict(
    installer=dict(type="str", required=True),
    fingerprint=dict(type="str", required=True),
    code=dict(type="str", required=True, no_log=True),
    relative_to=dict(type="path"),
    node=dict(type="str"),
    timeout=dict(type="int", default=30),
)

# C0 (tab and newline too: a message is one line), DEL, C1, the line separators, every bidi control and the invisible
# zero-width space, word joiner and byte order mark (core/common/printable.ts).
_UNSAFE = re.compile("[\u0000-\u001f\u007f-\u009f\u2028\u2029\u061c\u200b\u200e\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff]")


def printable(text, cap=MAX_TEXT):
    """Text from a node as a terminal may show it: control characters written out (\\x1b), never obeyed; capped."""
    text = "%s" % (text,)
    cut = len(text) - cap
    if cut > 0:
        text = text[:cap]
    text = _UNSAFE.sub(lambda m: "\\x%02x" % ord(m.group()) if ord(m.group()) <= 0xFF else "\\u%04x" % ord(m.group()), text)
    return text + ("… (%d more characters)" % cut if cut > 0 else "")


def printable_tree(value):
    """A node's JSON answer with every string printable (and capped), to return where -v shows it."""
    if isinstance(value, dict):
        return dict((printable(k, 200), printable_tree(v)) for k, v in value.items())
    if isinstance(value, list):
        return [printable_tree(v) for v in value]
    if isinstance(value, str):
        return printable(value, 16 * 1024)
    return value


def redacted(value, against=None):
    """A draft with its secrets (joinToken, passwordHash) replaced; one that differs from `against`'s says so."""
    if isinstance(value, dict):
        other = against if isinstance(against, dict) else {}
        out = {}
        for k, v in value.items():
            if k in SECRET_KEYS and v:
                out[k] = "[redacted]" if against is None or other.get(k) == v else "[redacted, changed]"
            else:
                out[k] = redacted(v, other.get(k, {}) if against is not None else None)
        return out
    if isinstance(value, list):
        return [redacted(v) for v in value]
    return value


def secrets(value):
    """A draft's secrets (joinToken, passwordHash, at any depth): each text under such a key, to mask as no_log values are."""
    found = set()
    if isinstance(value, dict):
        for k, v in value.items():
            found |= _texts(v) if k in SECRET_KEYS else secrets(v)
    elif isinstance(value, list):
        for v in value:
            found |= secrets(v)
    return found


def _texts(value):
    if isinstance(value, dict):
        return set().union(*map(_texts, value.values()))
    if isinstance(value, list):
        return set().union(*map(_texts, value))
    if value is None or isinstance(value, bool) or value == "":
        return set()
    return {"%s" % (value,)}


def parsed(text):
    """JSON from a node; ValueError for one that is not JSON or nests deeper than MAX_DEPTH (never a RecursionError)."""
    try:
        value = json.loads(text)
    except RecursionError:
        raise ValueError("nested too deep")
    level = [value]
    for _ in range(MAX_DEPTH + 1):
        level = [v for c in level if isinstance(c, (dict, list)) for v in (c.values() if isinstance(c, dict) else c)]
        if not level:
            return value
    raise ValueError("nested deeper than %d levels" % MAX_DEPTH)


def listed(value):
    """A list an answer may hold, or none: anything else where a list goes is no list (never iterated)."""
    return value if isinstance(value, list) else []


def items_text(items, what):
    """"; "-joined texts of a message, at most MAX_ITEMS of them, then how many more the node listed."""
    shown = list(items)
    more = "; and %d more %s the node listed" % (len(shown) - MAX_ITEMS, what) if len(shown) > MAX_ITEMS else ""
    return "; ".join(shown[:MAX_ITEMS]) + more


class Failed(Exception):
    """The module fails with this message (its node's name put in front by the module); `result` goes with it."""

    def __init__(self, message, kind=None, **result):
        super().__init__(message)
        self.kind = kind
        self.result = result

    def passing(self):
        """A failure that may pass: the node out of reach, or its answer cut off (not a refusal, not another certificate)."""
        return self.kind in ("unreachable", "timeout", "broken", "stopping")


class Problem(Failed):
    """The installer refused: a problem+json (SPEC §4)."""

    def __init__(self, method, path, status, body, excerpt=""):
        body = body if isinstance(body, dict) else {}
        self.status = status
        self.code = body.get("code") if isinstance(body.get("code"), str) else "HTTP %d" % status
        self.detail = body.get("detail") if isinstance(body.get("detail"), str) else ""
        self.body = body
        if not self.detail and excerpt:
            self.detail = excerpt
        text = "%s %s%s: %s: %s" % (method, API, path.split("?")[0], printable(self.code, 80), printable(self.detail, 300 if excerpt else MAX_TEXT))
        errors = ["%s: %s" % (printable(e.get("field") or "(config)", 200), printable(e.get("message"), MAX_ITEM_TEXT)) for e in listed(body.get("errors")) if isinstance(e, dict)]
        blockers = ["%s: %s" % (printable(b.get("code"), 80), printable(b.get("detail"), MAX_ITEM_TEXT)) for b in listed(body.get("blockers")) if isinstance(b, dict)]
        for shown, what in ((errors, "errors"), (blockers, "blockers")):
            if shown:
                text += "; " + items_text(shown, what)
        super().__init__(text, kind="status", status=status)


def resolve_code(code, relative_to):
    """The install code itself, from the option: the code, env:NAME or file:PATH (relative to relative_to)."""
    if code.startswith("env:"):
        value = os.environ.get(code[4:])
        if value is None:
            raise Failed("the install code's variable %s is not set" % code[4:])
        return _checked_code(value.strip(), "the variable %s" % code[4:])
    if code.startswith("file:"):
        path = os.path.join(relative_to or os.getcwd(), os.path.expanduser(code[5:]))
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except OSError as err:
            raise Failed("cannot read the install code from %s: %s" % (path, err.strerror))
        except UnicodeDecodeError:
            raise Failed("the install code from %s is not text (UTF-8): is it the file the installer wrote the code to?" % path)
        return _checked_code(text.strip(), "the install code from %s" % path)
    return _checked_code(code.strip(), "the install code")


def _checked_code(code, where):
    """A code as a header carries it (printable ASCII, tabs): any other character is refused here, never sent (the fleet's rule)."""
    if not code:
        raise Failed("%s is empty: give the code the node's banner shows (or `node installer.js code` on the node prints)" % where)
    odd = re.search(r"[^\t\x20-\x7e]", code)
    if odd:
        raise Failed(
            "%s holds the character U+%04X, which no install code has: codes are printable ASCII, letters and digits in groups "
            "with dashes or spaces (a dash, space or letter pasted from a document? type it again)" % (where, ord(odd.group(0)))
        )
    return code


def _shape(value, fields, what):
    """The answer is a dict whose `fields` ({name: type, tuple of types, or tuple of the words it may be}) are there with
    their types; a name ending in ? may be absent or null, but is of its type when there."""
    if not isinstance(value, dict):
        return "%s is not an object" % what
    for name, kind in fields.items():
        if name.endswith("?"):
            name = name[:-1]
            if value.get(name) is None:
                continue
        if isinstance(kind, tuple) and kind and all(isinstance(k, str) for k in kind):
            # One of these words (a phase): a word no installer says is no installer's answer, never read as another.
            if value.get(name) not in kind:
                return "%s's %s is %s, none of %s" % (what, name, printable(json.dumps(value.get(name), ensure_ascii=False), 80), ", ".join(kind))
            continue
        if name not in value or not isinstance(value[name], kind) or (kind is int and isinstance(value[name], bool)):
            return "%s has no %s of its type" % (what, name)
    return None


NULLABLE_STR = (str, type(None))
# An installer's phases (core/common/model.ts PHASES).
PHASES = ("configuring", "installing", "done", "failed")
SHAPES = {
    "status": {"phase": PHASES, "attempt": int, "blockers?": list},
    "options": {"release": NULLABLE_STR},
    "draft": {"source": str, "valid": bool, "errors": list},
    "validation": {"valid": bool, "errors": list},
    "started": {"attempt": int},
    "verdict": {"attempt": int, "outcome": str, "step": NULLABLE_STR, "code": NULLABLE_STR, "message": str, "next": str, "checks?": list},
    "join-token": {"token": str, "joinAddress": str, "cluster": str},
    "join-check": {"ok": bool, "checks": list},
    "event": {"seq": int, "attempt": int, "type": str, "message": str},
}


class Installer(object):
    """One node's installer: its URL, the pinned fingerprint, the install code, `timeout` seconds a request."""

    def __init__(self, url, fingerprint, code, timeout, clock=time.monotonic):
        try:
            self.client = PinnedClient(url, pin_of(fingerprint), timeout, clock)
        except ValueError as err:
            raise Failed(str(err))
        self.url = url
        self.code = code
        self.clock = clock

    def _headers(self, extra=None):
        headers = {"Authorization": "Bearer " + self.code, "Accept": "application/json"}
        headers.update(extra or {})
        return headers

    def _failed(self, err, method, path):
        """A client error in the operator's words."""
        kind, where = err.kind, self.url
        if kind == "unreachable":
            return Failed("cannot reach the installer at %s: %s" % (where, err), kind)
        if kind == "tls-mismatch":
            seen = colons(err.presented) if err.presented else "unknown (it presented none)"
            return Failed(
                "the installer at %s presented a certificate whose SHA-256 is %s, not the inventory's fingerprint %s; "
                "nothing was sent (check the node's banner, or that the address is this node's)" % (where, seen, colons(self.client.pin)),
                kind,
            )
        if kind == "status":
            raw = err.answer.body.decode("utf-8", "replace") if err.answer and err.answer.body else ""
            try:
                body = parsed(raw) if raw else None
            except ValueError:
                body = None
            # An answer that is no problem+json (a proxy's page, a crash's text, JSON with neither code nor detail): its
            # start, to say what came.
            problem = isinstance(body, dict) and any(isinstance(body.get(k), str) for k in ("code", "detail"))
            excerpt = "" if problem else " ".join(raw.split())
            return Problem(method, path, err.answer.status if err.answer else 0, body, excerpt)
        if kind == "malformed":
            # Not out of reach: something answers there, and asking again would only hear it again.
            return Failed("the installer at %s answered %s %s%s with %s: is it the installer?" % (where, method, API, path, printable(err, 300)), kind)
        if kind in ("too-large", "not-json", "schema"):
            return Failed("the installer at %s gave an answer to %s %s%s that is not its installer's: %s" % (where, method, API, path, printable(err)), kind)
        return Failed("the installer at %s did not answer %s %s%s: %s" % (where, method, API, path, printable(err)), kind)

    def call(self, method, path, shape, body=None, if_match=None, expect=(200,)):
        """The answer's JSON (checked against SHAPES[shape]) and its ETag; a refusal is a Problem."""
        headers = self._headers()
        payload = None
        if body is not None:
            payload = json.dumps(body).encode("utf-8")
            headers["Content-Type"] = "application/json"
        if if_match:
            headers["If-Match"] = if_match
        try:
            answer = self.client.request(method, API + path, headers, payload, MAX_ANSWER)
            if answer.status not in expect:
                raise ClientError("status", self.client.where, "HTTP %d" % answer.status, answer=answer)
            try:
                data = parsed(answer.body.decode("utf-8"))
            except ValueError:
                raise ClientError("not-json", self.client.where, "HTTP %d: the answer is not JSON" % answer.status)
            wrong = _shape(data, SHAPES[shape], "the answer") if shape else None
            if wrong:
                raise ClientError("schema", self.client.where, "HTTP %d: %s" % (answer.status, wrong))
            return data, answer.header("etag")
        except ClientError as err:
            raise self._failed(err, method, path)

    def status(self):
        return self.call("GET", "/status", "status")[0]

    def settled_status(self, wait):
        """The status once the node no longer verifies its payload (blocker PAYLOAD_VERIFYING), waiting at most `wait` s."""
        status = self.status()
        until = self.clock() + wait
        while _verifying(status) and self.clock() < until:
            time.sleep(1)
            status = self.status()
        return status

    def release(self):
        return self.call("GET", "/options", "options")[0]["release"]

    def config(self):
        return self.call("GET", "/config", "draft")

    def put_config(self, draft, etag):
        return self.call("PUT", "/config", "draft", body=draft, if_match=etag)

    def validate(self, draft):
        return self.call("POST", "/config/validate", "validation", body=draft)[0]

    def verdict(self, attempt=None):
        """The attempt's verdict; None while it runs (or before any attempt)."""
        try:
            return self.call("GET", "/install/verdict" + ("?attempt=%d" % attempt if attempt else ""), "verdict")[0]
        except Problem as problem:
            if problem.code == "INSTALL_RUNNING" or (problem.code == "NOT_FOUND" and not attempt):
                return None
            raise

    def start(self, recheck=False):
        return self.call("POST", "/install/recheck-readiness" if recheck else "/install", "started", expect=(202,))[0]

    def join_check(self):
        return self.call("POST", "/cluster/join-check", "join-check")[0]

    def join_token(self):
        return self.call("GET", "/cluster/join-token", "join-token")[0]

    def support_bundle(self, dest, max_bytes):
        path = "/support-bundle"

        def gzip_only(partial):
            # A 200 that is no gzip (a proxy's page) is no bundle: it does not take the place of one fetched before.
            with open(partial, "rb") as f:
                head = f.read(256)
            if not head.startswith(b"\x1f\x8b"):
                raise Failed("GET %s%s: HTTP 200, but no support bundle (no gzip; it begins: %s); %s is left as it was"
                             % (API, path, printable(head.decode("utf-8", "replace"), 120), dest))

        try:
            return self.client.download(API + path, dest, self._headers({"Accept": "application/gzip, application/json"}), max_bytes, gzip_only)
        except ClientError as err:
            raise self._failed(err, "GET", path)
        except OSError as err:
            raise Failed("cannot write %s: %s" % (dest, err.strerror or err))

    def events(self, attempt, after, until):
        """The attempt's events after seq `after` (SSE), each checked, until attempt.finished or the stream ends; a
        stream the installer ends saying it stops (a restart, or a stop) fails as passing (kind stopping), said so."""
        path = "/install/events?attempt=%d" % attempt
        said = [None]  # the last comment line since the last event: one kept, however many a node sends

        def heard(text):
            said[0] = text

        stream = self.client.events(API + path, self._headers(), last_event_id=after, idle=max(IDLE, self.client.timeout), until=until, is_final=_finishes, comment=heard)
        try:
            for _, data in stream:
                said[0] = None
                try:
                    event = parsed(data)
                except ValueError:
                    raise ClientError("not-json", self.client.where, "an event is not JSON")
                wrong = _shape(event, SHAPES["event"], "an event")
                if wrong:
                    raise ClientError("schema", self.client.where, wrong)
                yield event
                if event["type"] == "attempt.finished":
                    return
        except ClientError as err:
            raise self._failed(err, "GET", path)
        if said[0] == STOPPING_COMMENT:
            raise Failed("the installer at %s is stopping (a restart, or a stop)" % self.url, "stopping")


def _verifying(status):
    return any(isinstance(b, dict) and b.get("code") == "PAYLOAD_VERIFYING" for b in listed(status.get("blockers")))


def _finishes(data):
    try:
        return parsed(data).get("type") == "attempt.finished"
    except (ValueError, AttributeError):
        return False


def at_least(module, name, least, what):
    """Fails the module, before anything is sent, when the option `name` is set below `least`."""
    value = module.params.get(name)
    if value is not None and value < least:
        module.fail_json(msg="%s%s is %d: give %d or more (%s); nothing was sent" % (who(module), name, value, least, what))


def connect(module):
    """The node's installer from the module's connection options; its code kept out of every output."""
    p = module.params
    at_least(module, "timeout", 1, "seconds a request to the installer may take")
    try:
        code = resolve_code(p["code"], p["relative_to"])
    except Failed as failed:
        module.fail_json(msg=who(module) + str(failed))
    module.no_log_values.add(code)
    try:
        return Installer(p["installer"], p["fingerprint"], code, p["timeout"])
    except Failed as failed:
        module.fail_json(msg=who(module) + str(failed))


def who(module):
    return "%s: " % module.params["node"] if module.params.get("node") else ""


def run(module, work):
    """work(installer) → the result to exit with; Failed → the module fails with its message, the node named."""
    installer = connect(module)
    try:
        result = work(installer)
    except Failed as failed:
        module.fail_json(msg=who(module) + str(failed), **failed.result)
    module.exit_json(**result)


__all__ = ["API", "CONNECTION_SPEC", "MAX_ITEM_TEXT", "Failed", "Installer", "Problem", "at_least", "connect", "items_text", "listed", "printable", "printable_tree", "redacted", "run", "seconds", "secrets", "who"]
