#!/usr/bin/python
# -*- coding: utf-8 -*-
"""One request to a Stratum installer's API over TLS pinned by the certificate's SHA-256."""

DOCUMENTATION = r"""
module: stratum_api
short_description: One request to a Stratum node's installer API, its certificate pinned
description:
  - Connects to the installer and checks that its TLS certificate's SHA-256 is the pinned
    fingerprint before any byte of the request (the install code included) is sent; then sends
    one request under /v1/installer and returns the status, the JSON body and the ETag.
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
  timeout:
    description: Seconds for the connection and for the answer.
    type: int
    default: 30
"""

import hashlib
import hmac
import http.client
import json
import os
import re
import ssl
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


def send(url, pinned, code, method, path, body, if_match, timeout):
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
        headers = {"Authorization": "Bearer " + code, "Accept": "application/json"}
        payload = None
        if body is not None:
            payload = json.dumps(body).encode("utf-8")
            headers["Content-Type"] = "application/json"
        if if_match:
            headers["If-Match"] = if_match
        try:
            conn.request(method, parts.path.rstrip("/") + API + path, body=payload, headers=headers)
            response = conn.getresponse()
            text = response.read().decode("utf-8", "replace")
        except (OSError, http.client.HTTPException) as err:
            raise Refused("the installer at %s did not answer %s %s: %s" % (url, method, path, err))
        try:
            data = json.loads(text) if text else None
        except ValueError:
            data = None
        return response.status, data, response.getheader("ETag")
    finally:
        conn.close()


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
            timeout=dict(type="int", default=30),
        ),
        supports_check_mode=True,
    )
    p = module.params
    method, path = p["method"], p["path"]
    who = (p["node"] + ": ") if p["node"] else ""
    read_only = is_read_only(method, path)
    if module.check_mode and not read_only:
        module.exit_json(changed=True, msg="check mode: %s %s not sent" % (method, path))

    body = p["body"]
    if p["join_token"]:
        body = dict(body or {})
        body["cluster"] = dict(body.get("cluster") or {}, joinToken=p["join_token"])
    try:
        code = resolve_code(p["code"], p["relative_to"])
        module.no_log_values.add(code)
        status, data, etag = send(p["installer"], pinned_hex(p["fingerprint"]), code, method, path, body, p["if_match"], p["timeout"])
    except Refused as err:
        module.fail_json(msg=who + str(err))

    result = dict(status=status, json=redacted(data), etag=etag, changed=not read_only and 200 <= status < 300)
    if status not in p["ok_status"]:
        module.fail_json(msg="%s%s %s%s: %s" % (who, method, API, path, problem_text(status, data)), **result)
    module.exit_json(**result)


if __name__ == "__main__":
    main()
