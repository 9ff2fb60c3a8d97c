#!/usr/bin/python
# -*- coding: utf-8 -*-

DOCUMENTATION = r"""
module: join_token
short_description: Read the join token from a Stratum cluster's installed init node
description:
  - Reads C(GET /v1/installer/cluster/join-token) from the node that founded the cluster (mode
    C(hyperconverged-init)) once its install succeeded; the token every joining node's draft carries
    (M(stratum.installer.draft)'s I(join_token)), the address they join and the cluster's name and release.
  - The token is a secret. The task's result is shown censored, as with C(no_log), at any verbosity (the
    module's action plugin marks it); C(register) still holds it for the tasks that follow.
  - Fails with the API's code and what to do when the node gives no token yet (C(NOT_INSTALLED)) or gives
    none at all (C(NOT_FOUND), a node of another mode).
  - Changes nothing on the node.
version_added: 0.1.0
author: Stratum installer team
extends_documentation_fragment:
  - stratum.installer.connection
  - stratum.installer.read_only
"""

EXAMPLES = r"""
- name: Read the join token from the init node
  stratum.installer.join_token:
    installer: "{{ hostvars[stratum_plan.init].stratum_node.installer }}"
    fingerprint: "{{ hostvars[stratum_plan.init].stratum_node.fingerprint }}"
    code: "{{ hostvars[stratum_plan.init].stratum_node.code }}"
    relative_to: "{{ hostvars[stratum_plan.init].inventory_dir }}"
    node: "{{ stratum_plan.init }}"
  register: stratum_token
  no_log: true
"""

RETURN = r"""
token:
  description: The join token, C(STRATUM1:<SHA-256 of the cluster API's certificate>:<secret>). A secret.
  returned: success
  type: str
joinAddress:
  description: The address joining nodes join (the cluster's vip).
  returned: success
  type: str
  sample: 10.20.0.10
cluster:
  description: The cluster's name.
  returned: success
  type: str
  sample: rack-a
release:
  description: The release the cluster runs; joining nodes need the same payload release.
  returned: success
  type: str
  sample: 2026.11.0
"""

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.stratum.installer.plugins.module_utils.api import CONNECTION_SPEC, Failed, Problem, printable, run

WHY = {
    "NOT_INSTALLED": "the init node gives no join token yet (NOT_INSTALLED): install it first (stratum.installer.install)",
    "NOT_FOUND": "this node gives no join token (NOT_FOUND): read it from the node whose mode is hyperconverged-init",
}


def read(installer):
    try:
        answer = installer.join_token()
    except Problem as problem:
        if problem.code not in WHY:
            raise
        raise Failed("%s; the node says: %s" % (WHY[problem.code], printable(problem.detail)), status=problem.status)
    return dict(changed=False, token=answer["token"], joinAddress=printable(answer["joinAddress"], 300), cluster=printable(answer["cluster"], 300), release=printable(answer.get("release"), 300) if answer.get("release") else None)


def main():
    module = AnsibleModule(argument_spec=dict(CONNECTION_SPEC), supports_check_mode=True)
    run(module, read)


if __name__ == "__main__":
    main()
