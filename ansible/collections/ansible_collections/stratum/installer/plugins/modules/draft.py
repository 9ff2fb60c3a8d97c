#!/usr/bin/python
# -*- coding: utf-8 -*-

DOCUMENTATION = r"""
module: draft
short_description: Make a Stratum node's stored draft the one the inventory says
description:
  - Reads the node's stored draft (C(GET /v1/installer/config)) and, only when it differs from I(draft),
    replaces it (C(PUT /v1/installer/config)) with C(If-Match) set to the ETag just read, so that a change
    someone else made meanwhile is refused rather than overwritten.
  - Reports C(changed) only when the stored draft differed. The draft is stored even when it does not
    validate; I(valid) and I(errors) say what the node thinks of it (M(stratum.installer.node_info) validates
    before anything is written).
  - A node already installed (phase C(done)) keeps its config; it is not written, and the task is ok and
    unchanged with a message saying so; where the inventory's draft differs, a warning (shown at every verbosity)
    names the node and the fields, not applied.
  - A node whose attempt runs (phase C(installing)) refuses a new draft; where the inventory's differs, the task
    fails naming the attempt and the fields, in check mode too. The same draft is ok.
  - With C(--diff), the stored and the inventory's draft as JSON, their secrets (C(joinToken),
    C(passwordHash)) redacted.
version_added: 0.1.0
author: Stratum installer team
extends_documentation_fragment:
  - stratum.installer.connection
options:
  draft:
    description:
      - The structured draft (camelCase, as in C(PUT /v1/installer/config); SPEC §5), e.g. the plan filter's
        C(drafts[inventory_hostname]).
      - Its secrets (C(joinToken), C(passwordHash)) are kept out of the log and the output as C(no_log) values are.
    type: dict
    required: true
  join_token:
    description:
      - The cluster's join token (M(stratum.installer.join_token) on the init node), put into the draft's
        C(cluster.joinToken). A secret, never logged or returned.
    type: str
attributes:
  check_mode:
    support: full
    description: Reads the stored draft and reports whether it would be replaced; writes nothing.
  diff_mode:
    support: full
    description: The stored and the inventory's draft, secrets redacted.
"""

EXAMPLES = r"""
- name: The node's draft is the inventory's
  stratum.installer.draft:
    installer: "{{ stratum_node.installer }}"
    fingerprint: "{{ stratum_node.fingerprint }}"
    code: "{{ stratum_node.code }}"
    relative_to: "{{ inventory_dir }}"
    node: "{{ inventory_hostname }}"
    draft:
      mode: single-node
      hostname: node-01
      network:
        interface: eno1
        address: 10.20.0.11/24
        gateway: 10.20.0.1
      admin:
        sshAuthorizedKeys:
          - ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAILiKC8H2HZ+8AWqEaKfWurXlBfJr2GIG7jvaAWYOvYgK ops@example

- name: A joining node's draft, with the init node's token
  stratum.installer.draft:
    installer: "{{ stratum_node.installer }}"
    fingerprint: "{{ stratum_node.fingerprint }}"
    code: "{{ stratum_node.code }}"
    draft: "{{ stratum_plan.drafts[inventory_hostname] }}"
    join_token: "{{ stratum_token.token }}"
"""

RETURN = r"""
draft:
  description: The node's draft after the task (the inventory's, or the stored one when unchanged), secrets redacted.
  returned: success
  type: dict
  sample:
    mode: hyperconverged-join
    cluster:
      joinAddress: 10.20.0.10
      joinToken: "[redacted]"
etag:
  description: The stored draft's ETag after the task (for C(If-Match)).
  returned: success
  type: str
  sample: '"x6W0c4p4r5yqgGQ0xX1Fbg"'
valid:
  description: Whether the node's draft validates.
  returned: success
  type: bool
errors:
  description: The node's draft's problems (field, message), empty when it validates.
  returned: success
  type: list
  elements: dict
differs:
  description: Where the inventory's draft differs from the stored one (field paths), empty when they agree.
  returned: success
  type: list
  elements: str
  sample: [network.address, cluster.joinToken]
"""

import json

from ansible_collections.stratum.installer.plugins.module_utils.api import CONNECTION_SPEC, Failed, printable, printable_tree, redacted, run
from ansible_collections.stratum.installer.plugins.module_utils.draft_module import DraftModule


def differences(before, after, path=""):
    """The field paths where two drafts differ (a secret's path, never its value)."""
    if isinstance(before, dict) and isinstance(after, dict):
        found = []
        for key in sorted(set(before) | set(after), key=str):
            found += differences(before.get(key), after.get(key), "%s.%s" % (path, key) if path else str(key))
        return found
    return [] if before == after else [printable(path or "(the whole draft)", 200)]


def text(draft):
    return json.dumps(draft, indent=2, sort_keys=True) + "\n"


def converge(module, installer):
    p = module.params
    desired = dict(p["draft"])
    if p["join_token"]:
        desired["cluster"] = dict(desired.get("cluster") or {}, joinToken=p["join_token"])
    status = installer.status()
    view, etag = installer.config()
    stored = view.get("config") if view["source"] == "structured" else None
    differs = differences(stored, desired) if stored is not None else ["(the stored draft is a raw node.yaml)"]
    result = dict(changed=False, draft=printable_tree(redacted(stored)), etag=printable(etag, 200) if etag else etag, valid=view["valid"], errors=printable_tree(view["errors"]), differs=differs)
    if status["phase"] == "done":
        if differs:
            # A warning, shown at every verbosity (a msg of an ok task is shown at -v only): the change is not made.
            module.warn("%sinstalled already (attempt %d), its config is kept: the inventory's draft differs at %s, not applied (an installed node is not reconfigured)" % (p["node"] + ": " if p["node"] else "", status["attempt"], ", ".join(differs)))
        note = "; the inventory's draft differs at %s: not applied" % ", ".join(differs) if differs else ""
        return dict(result, msg="installed already (attempt %d): an installed node keeps its config, its draft is not written%s" % (status["attempt"], note))
    if not differs:
        return result
    if status["phase"] == "installing":
        # The node refuses the write (409 INSTALL_RUNNING): check mode says so too, rather than that it would write.
        raise Failed("attempt %d runs on it, so its draft cannot change until the attempt ends; the inventory's draft differs at %s: run again once it ended (stratum.installer.install follows it to its verdict)" % (status["attempt"], ", ".join(differs)), **result)
    if module._diff:
        result["diff"] = dict(
            before_header="%sthe stored draft" % (p["node"] + ": " if p["node"] else ""),
            after_header="the inventory's draft",
            before=text(redacted(stored)) if stored is not None else "(a raw node.yaml, not shown: it may hold secrets)\n",
            after=text(redacted(desired, against=stored or {})),
        )
    if module.check_mode:
        return dict(result, changed=True, draft=redacted(desired))
    try:
        view, etag = installer.put_config(desired, etag)
    except Failed as failed:
        if getattr(failed, "code", None) == "PRECONDITION_FAILED":
            raise Failed("its draft was changed by someone else between this task's read and its write (412 on If-Match): look at GET /v1/installer/config on it, then run again")
        raise
    return dict(result, changed=True, draft=printable_tree(redacted(view.get("config"))), etag=printable(etag, 200) if etag else etag, valid=view["valid"], errors=printable_tree(view["errors"]))


def main():
    module = DraftModule(
        ("draft",),
        argument_spec=dict(CONNECTION_SPEC, draft=dict(type="dict", required=True), join_token=dict(type="str", no_log=True)),
        supports_check_mode=True,
    )
    run(module, lambda installer: converge(module, installer))


if __name__ == "__main__":
    main()
