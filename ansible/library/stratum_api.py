#!/usr/bin/python
# -*- coding: utf-8 -*-
"""One request to a Stratum installer's API over TLS pinned by the certificate's SHA-256; a body saved to a file, or its JSON returned."""

DOCUMENTATION = r"""
module: stratum_api
short_description: One request to a Stratum node's installer API, its certificate pinned
description:
  - Connects to the installer and checks that its TLS certificate's SHA-256 is the pinned
    fingerprint before any byte of the request (the install code included) is sent; then sends
    one request under /v1/installer and returns the status, the JSON body and the ETag.
  - With C(dest), a successful answer's body (such as the support bundle's .tar.gz) is streamed to
    that file on the controller instead, mode 0600, replacing it only once the whole body came.
  - Secret fields of a draft (joinToken, passwordHash) are redacted from what it returns.
  - In check mode only the requests that change nothing are sent (GET, validate, join-check).
options:
  installer:
    description: The installer's URL, https://host:9443.
    type: str
    required: true
  fingerprint:
    description: Its certificate's SHA-256, as AA:BB:... or as 64 hex digits.
    type: str
    required: true
  code:
    description: The install code, or env:NAME, or file:PATH (relative to relative_to).
    type: str
    required: true
  relative_to:
    description: The folder a relative file:PATH is read from (the inventory's).
    type: path
  node:
    description: The node's name, for messages.
    type: str
  method:
    description: The HTTP method.
    type: str
    default: GET
    choices: [GET, PUT, POST]
  path:
    description: The path under /v1/installer, query included (/install/verdict?attempt=2).
    type: str
    required: true
  body:
    description: The JSON body.
    type: raw
  join_token:
    description: Put into the body's cluster.joinToken; a secret, never echoed.
    type: str
  if_match:
    description: The draft's ETag, sent as If-Match.
    type: str
  ok_status:
    description: The statuses that are not a failure.
    type: list
    elements: int
    default: [200, 201, 202, 204]
  dest:
    description:
      - Save a successful answer's body to this file (its folder must exist), mode 0600, written
        beside it first and renamed once complete; nothing is saved in check mode.
    type: path
  max_bytes:
    description: The most a saved body may hold; a longer one fails and leaves nothing.
    type: int
    default: 67108864
  timeout:
    description: Seconds for the connection and for each read of the answer.
    type: int
    default: 30
"""

EXAMPLES = r"""
- name: Read the node's status
  stratum_api:
    installer: https://10.20.0.11:9443
    fingerprint: "9F:86:D0:..."
    code: env:NODE01_CODE
    path: /status
  register: status

- name: Fetch the node's support bundle to the controller
  stratum_api:
    installer: https://10.20.0.11:9443
    fingerprint: "9F:86:D0:..."
    code: file:codes/node-01
    path: /support-bundle
    dest: ./support-bundles/node-01.tar.gz
"""

RETURN = r"""
status:
  description: The HTTP status.
  returned: when the installer answered
  type: int
json:
  description: The JSON body, draft secrets redacted; none when the body was saved to dest.
  returned: when the installer answered
  type: raw
etag:
  description: The ETag header.
  returned: when the installer answered
  type: str
dest:
  description: The file the body was saved to, as an absolute path.
  returned: when the body was saved
  type: str
bytes:
  description: The saved body's size.
  returned: when the body was saved
  type: int
sha256:
  description: The saved body's SHA-256.
  returned: when the body was saved
  type: str
filename:
  description: The file name the installer proposed (Content-Disposition).
  returned: when the body was saved
  type: str
"""

import hashlib
import hmac
import http.client
import json
import os
import re
import ssl
import tempfile
from urllib.parse import urlsplit

from ansible.module_utils.basic import AnsibleModule

API = "/v1/installer"
READ_ONLY_POSTS = ("/config/validate", "/cluster/join-check")
SECRET_KEYS = ("joinToken", "passwordHash")


class Refused(Exception):
    pass


def pinned_hex(fingerprint):
    value = fingerprint.replace(":", "").strip().lower()
    if not re.fullmatch(r"[0-9a-f]{64}", value):
        raise Refused("the fingerprint is not a SHA-256 (64 hex digits, with or without colons)")
    return value


def colons(hex_digest):
    return ":".join(hex_digest[i:i + 2] for i in range(0, len(hex_digest), 2)).upper()


def resolve_code(code, relative_to):
    if code.startswith("env:"):
        value = os.environ.get(code[4:])
        if not value:
            raise Refused("the install code's variable %s is not set" % code[4:])
        return value.strip()
    if code.startswith("file:"):
        path = os.path.join(relative_to or os.getcwd(), os.path.expanduser(code[5:]))
        try:
            with open(path, encoding="utf-8") as f:
                return f.read().strip()
        except OSError as err:
            raise Refused("cannot read the install code from %s: %s" % (path, err.strerror))
    return code


def redacted(value):
    if isinstance(value, dict):
        return {k: "[redacted]" if k in SECRET_KEYS and v else redacted(v) for k, v in value.items()}
    if isinstance(value, list):
        return [redacted(v) for v in value]
    return value


def is_read_only(method, path):
    return method == "GET" or path.split("?")[0] in READ_ONLY_POSTS


def problem_text(status, body):
    if not isinstance(body, dict):
        return "HTTP %d" % status
    text = "%s: %s" % (body.get("code", "HTTP %d" % status), body.get("detail", ""))
    for e in body.get("errors") or []:
        text += "; %s: %s" % (e.get("field") or "(config)", e.get("message"))
    for b in body.get("blockers") or []:
        text += "; %s: %s" % (b.get("code"), b.get("detail"))
    return text


def send(url, pinned, code, method, path, body, if_match, timeout, save=None):
    """The certificate is checked on the open connection, before the request (and its code) is written."""
    parts = urlsplit(url)
    if parts.scheme != "https" or not parts.hostname:
        raise Refused("the installer URL %s is not https://host:port" % url)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE  # trust comes from the pinned fingerprint below
    conn = http.client.HTTPSConnection(parts.hostname, parts.port or 9443, timeout=timeout, context=context)
    try:
        try:
            conn.connect()
        except OSError as err:
            raise Refused("cannot reach the installer at %s: %s" % (url, err))
        seen = hashlib.sha256(conn.sock.getpeercert(binary_form=True)).hexdigest()
        if not hmac.compare_digest(seen, pinned):
            raise Refused(
                "the installer at %s presented a certificate whose SHA-256 is %s, not the inventory's fingerprint %s; "
                "nothing was sent (check the node's banner, or that the address is this node's)" % (url, colons(seen), colons(pinned))
            )
        headers = {"Authorization": "Bearer " + code, "Accept": "application/gzip, application/json" if save else "application/json"}
        payload = None
        if body is not None:
            payload = json.dumps(body).encode("utf-8")
            headers["Content-Type"] = "application/json"
        if if_match:
            headers["If-Match"] = if_match
        try:
            conn.request(method, parts.path.rstrip("/") + API + path, body=payload, headers=headers)
            response = conn.getresponse()
            if save and 200 <= response.status < 300:
                return response.status, None, response.getheader("ETag"), save(response)
            text = response.read().decode("utf-8", "replace")
        except (OSError, http.client.HTTPException) as err:
            raise Refused("the installer at %s did not answer %s %s: %s" % (url, method, path, err))
        try:
            data = json.loads(text) if text else None
        except ValueError:
            data = None
        return response.status, data, response.getheader("ETag"), None
    finally:
        conn.close()


def saver(dest, max_bytes):
    """Streams a body into a 0600 file beside dest, renamed onto dest only once it all came."""
    dest = os.path.abspath(dest)

    def save(response):
        digest = hashlib.sha256()
        size = 0
        try:
            fd, partial = tempfile.mkstemp(dir=os.path.dirname(dest), prefix=".%s." % os.path.basename(dest), suffix=".partial")
        except OSError as err:
            raise Refused("cannot write %s: %s" % (dest, err.strerror))
        try:
            with os.fdopen(fd, "wb") as f:
                while True:
                    chunk = response.read(65536)
                    if not chunk:
                        break
                    size += len(chunk)
                    if size > max_bytes:
                        raise Refused("the answer is longer than max_bytes (%d); nothing was saved" % max_bytes)
                    digest.update(chunk)
                    try:
                        f.write(chunk)
                    except OSError as err:
                        raise Refused("cannot write %s: %s" % (dest, err.strerror))
            os.replace(partial, dest)
        except BaseException:
            os.unlink(partial)
            raise
        disposition = response.getheader("Content-Disposition") or ""
        named = re.search(r'filename="([^"]*)"', disposition)
        return dict(dest=dest, bytes=size, sha256=digest.hexdigest(), filename=named.group(1) if named else None)

    return save


def main():
    module = AnsibleModule(
        argument_spec=dict(
            installer=dict(type="str", required=True),
            fingerprint=dict(type="str", required=True),
            code=dict(type="str", required=True, no_log=True),
            relative_to=dict(type="path"),
            node=dict(type="str"),
            method=dict(type="str", default="GET", choices=["GET", "PUT", "POST"]),
            path=dict(type="str", required=True),
            body=dict(type="raw"),
            join_token=dict(type="str", no_log=True),
            if_match=dict(type="str"),
            ok_status=dict(type="list", elements="int", default=[200, 201, 202, 204]),
            dest=dict(type="path"),
            max_bytes=dict(type="int", default=64 * 1024 * 1024),
            timeout=dict(type="int", default=30),
        ),
        supports_check_mode=True,
    )
    p = module.params
    method, path = p["method"], p["path"]
    who = (p["node"] + ": ") if p["node"] else ""
    read_only = is_read_only(method, path)
    if module.check_mode and (p["dest"] or not read_only):
        module.exit_json(changed=True, msg="%scheck mode: %s %s not sent" % (who, method, path))

    body = p["body"]
    if p["join_token"]:
        body = dict(body or {})
        body["cluster"] = dict(body.get("cluster") or {}, joinToken=p["join_token"])
    try:
        code = resolve_code(p["code"], p["relative_to"])
        module.no_log_values.add(code)
        save = saver(p["dest"], p["max_bytes"]) if p["dest"] else None
        status, data, etag, saved = send(p["installer"], pinned_hex(p["fingerprint"]), code, method, path, body, p["if_match"], p["timeout"], save)
    except Refused as err:
        module.fail_json(msg=who + str(err))

    result = dict(status=status, json=redacted(data), etag=etag, changed=bool(saved) or (not read_only and 200 <= status < 300))
    result.update(saved or {})
    if status not in p["ok_status"]:
        module.fail_json(msg="%s%s %s%s: %s" % (who, method, API, path, problem_text(status, data)), **result)
    module.exit_json(**result)


if __name__ == "__main__":
    main()
