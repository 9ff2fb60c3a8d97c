# -*- coding: utf-8 -*-
"""The connection options every stratum.installer module takes (plugins/module_utils/api.py CONNECTION_SPEC)."""


class ModuleDocFragment(object):
    DOCUMENTATION = r"""
options:
  installer:
    description:
      - The node's installer API, C(https://host:port) (its banner's URL line).
    type: str
    required: true
  fingerprint:
    description:
      - The SHA-256 of the installer's TLS certificate, as C(AA:BB:...) or as 64 hex digits (its banner's
        TLS SHA-256 line).
      - The certificate is compared with it on the TLS handshake, before any byte of a request (the install
        code included) is sent; another certificate fails the task and the node hears nothing.
    type: str
    required: true
  code:
    description:
      - The node's install code (its banner's Install code line), or C(env:NAME) to read it from the
        controller's environment variable NAME, or C(file:PATH) to read it from a file on the controller.
      - Never logged or returned.
    type: str
    required: true
  relative_to:
    description:
      - The folder a relative C(file:PATH) is read from, usually C({{ inventory_dir }}); without it, the
        folder ansible runs in.
    type: path
  node:
    description:
      - The node's name, put in front of every message (usually C({{ inventory_hostname }})).
    type: str
  timeout:
    description:
      - Seconds each request may take in all (connection, TLS handshake, request and the whole answer); 1 or more.
    type: int
    default: 30
notes:
  - "Runs on the controller (C(connection: local), or C(delegate_to: localhost)) with Python's standard library
    only; the node needs nothing but its installer."
  - Text the node sends (details, messages, firstboot output) is capped and its control characters are
    written out (C(\x1b)) before it goes into a message.
"""
