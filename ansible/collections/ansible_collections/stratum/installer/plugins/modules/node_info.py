#!/usr/bin/python
# -*- coding: utf-8 -*-

DOCUMENTATION = r"""
module: node_info
short_description: Read a Stratum node's status, release and last verdict, and validate a draft on it
description:
  - Reads the node's installer status (C(GET /v1/installer/status)), the release its payload carries
    (C(GET /v1/installer/options)) and the last install attempt's verdict, for C(when:) conditions.
  - With I(validate), the node validates that draft (C(POST /v1/installer/config/validate)) against its own
    disks, interfaces and release, without storing it.
  - While the node still verifies its payload (blocker C(PAYLOAD_VERIFYING)) it waits, up to I(payload_wait)
    seconds, so that the status read is the one an install would meet.
  - Changes nothing on the node.
version_added: 0.1.0
author: Stratum installer team
extends_documentation_fragment:
  - stratum.installer.connection
  - stratum.installer.read_only
options:
  validate:
    description:
      - A structured draft (camelCase, as in C(PUT /v1/installer/config)) for the node to validate.
      - Its secrets (C(joinToken), C(passwordHash)) are kept out of the log and the output as C(no_log) values are.
    type: dict
  stored_draft:
    description:
      - Also read the node's stored draft (C(GET /v1/installer/config)) into I(stored_draft), its secrets redacted.
    type: bool
    default: false
  payload_wait:
    description:
      - Seconds to wait while the node verifies its payload (it is checked once a second); C(0) reads the
        status as it is.
    type: int
    default: 600
"""

EXAMPLES = r"""
- name: Read the node
  stratum.installer.node_info:
    installer: https://10.20.0.11:9443
    fingerprint: "9F:86:D0:81:88:4C:7D:65:9A:2F:EA:A0:C5:5A:D0:15:A3:BF:4F:1B:2B:0B:82:2C:D1:5D:6C:15:B0:F0:0A:08"
    code: file:codes/node-01
    relative_to: "{{ inventory_dir }}"
    node: "{{ inventory_hostname }}"
  register: node

- name: Only nodes not installed yet
  ansible.builtin.debug:
    msg: "{{ inventory_hostname }} is {{ node.status.phase }} (release {{ node.release }})"
  when: node.status.phase != 'done'

- name: The node validates its draft
  stratum.installer.node_info:
    installer: "{{ stratum_node.installer }}"
    fingerprint: "{{ stratum_node.fingerprint }}"
    code: "{{ stratum_node.code }}"
    validate: "{{ stratum_node.config }}"
  register: checked
  failed_when: not checked.validation.valid
"""

RETURN = r"""
status:
  description: The node's status (C(GET /v1/installer/status)), its text made printable.
  returned: always
  type: dict
  sample:
    phase: configuring
    attempt: 0
    configValid: false
    mode: single-node
    hostname: node-01
release:
  description: The release of the node's payload; null while none is loaded.
  returned: always
  type: str
  sample: 2026.11.0
verdict:
  description:
    - The last attempt's verdict (attempt, kind, outcome, step, code, message, next); null before the first
      attempt and while one runs.
  returned: always
  type: dict
  sample:
    attempt: 1
    kind: install
    outcome: failed
    step: firstboot
    code: FIRSTBOOT_FAILED
    message: firstboot exited with status 3
    next: retryInstall
validation:
  description:
    - What the node says of I(validate) (valid, errors as field and message, mode, profile).
    - Each error has a I(field) and a I(message), text (empty where the node gave none); an error that is no
      object is its JSON as the message.
  returned: when validate was given
  type: dict
  sample:
    valid: false
    errors:
      - field: network.address
        message: not a CIDR
stored_draft:
  description: The node's stored draft, its secrets redacted; C(None) when it is a raw node.yaml.
  returned: when stored_draft was true
  type: dict
  sample:
    mode: hyperconverged-init
    cluster:
      name: rack-a
"""

import json

from ansible_collections.stratum.installer.plugins.module_utils.api import CONNECTION_SPEC, printable, printable_tree, redacted, run
from ansible_collections.stratum.installer.plugins.module_utils.draft_module import DraftModule


def read(module, installer):
    status = installer.settled_status(module.params["payload_wait"])
    result = dict(
        changed=False,
        status=printable_tree(status),
        release=printable_tree(installer.release()),
        verdict=printable_tree(installer.verdict()) if status["attempt"] > 0 and status["phase"] != "installing" else None,
    )
    if module.params["stored_draft"]:
        view = installer.config()[0]
        result["stored_draft"] = printable_tree(redacted(view.get("config"))) if view["source"] == "structured" else None
    if module.params["validate"] is not None:
        validation = printable_tree(installer.validate(module.params["validate"]))
        validation["errors"] = [field_error(e) for e in validation["errors"]]
        result["validation"] = validation
    return result


def field_error(error):
    """A validation error with its field and message as text ("" where the node gave none), as the role reads them."""
    if not isinstance(error, dict):
        return dict(field="", message=printable(json.dumps(error)))
    return dict(error, **dict((k, error[k] if isinstance(error.get(k), str) else "") for k in ("field", "message")))


def main():
    module = DraftModule(
        ("validate",),
        argument_spec=dict(CONNECTION_SPEC, validate=dict(type="dict"), stored_draft=dict(type="bool", default=False), payload_wait=dict(type="int", default=600)),
        supports_check_mode=True,
    )
    run(module, lambda installer: read(module, installer))


if __name__ == "__main__":
    main()
