#!/usr/bin/python
# -*- coding: utf-8 -*-

DOCUMENTATION = r"""
module: support_bundle
short_description: Fetch a Stratum node's support bundle to the controller
description:
  - Streams the node's support bundle (C(GET /v1/installer/support-bundle), a C(.tar.gz); SPEC §11) into
    I(dest) on the controller, mode 0600, through a file beside it renamed over I(dest) only once the whole
    bundle came, so I(dest) holds a whole bundle or what it held before. An answer that is no gzip (a
    proxy's page) fails the task, saying how it begins, and leaves I(dest) as it was.
  - Each run fetches a new bundle (it is the node's state now), so the task reports C(changed) whenever it
    wrote one.
version_added: 0.1.0
author: Stratum installer team
extends_documentation_fragment:
  - stratum.installer.connection
options:
  dest:
    description:
      - The file to write on the controller; its folder must exist.
    type: path
    required: true
  max_bytes:
    description:
      - The most bytes the bundle may hold, 1 or more; a longer answer fails the task and leaves nothing.
    type: int
    default: 67108864
attributes:
  check_mode:
    support: full
    description: Fetches and writes nothing; reports changed, as the task would write the bundle.
  diff_mode:
    support: none
    description: A bundle is new each time; there is no before to show.
"""

EXAMPLES = r"""
- name: Fetch the node's support bundle
  stratum.installer.support_bundle:
    installer: "{{ stratum_node.installer }}"
    fingerprint: "{{ stratum_node.fingerprint }}"
    code: "{{ stratum_node.code }}"
    relative_to: "{{ inventory_dir }}"
    node: "{{ inventory_hostname }}"
    dest: "support-bundles/{{ inventory_hostname }}.tar.gz"
    timeout: 60
"""

RETURN = r"""
dest:
  description: The file written, as an absolute path.
  returned: success
  type: str
  sample: /home/ops/support-bundles/node-01.tar.gz
bytes:
  description: The bundle's size.
  returned: when written
  type: int
  sample: 48213
sha256:
  description: The bundle's SHA-256.
  returned: when written
  type: str
filename:
  description: The file name the node proposed (Content-Disposition).
  returned: when written
  type: str
  sample: stratum-support-node-01-20261204T101500Z.tar.gz
"""

import os

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.stratum.installer.plugins.module_utils.api import CONNECTION_SPEC, Failed, at_least, printable, run


def fetch(module, installer):
    p = module.params
    dest = os.path.abspath(p["dest"])
    if module.check_mode:
        return dict(changed=True, dest=dest, msg="%scheck mode: GET /support-bundle not sent" % (p["node"] + ": " if p["node"] else ""))
    try:
        saved = installer.support_bundle(dest, p["max_bytes"])
    except Failed as failed:
        if failed.kind == "too-large":
            raise Failed("the bundle is over max_bytes (%d bytes); nothing was saved" % p["max_bytes"])
        raise
    return dict(changed=True, dest=dest, bytes=saved["size"], sha256=saved["sha256"], filename=printable(saved["filename"], 255) if saved["filename"] else None)


def main():
    module = AnsibleModule(
        argument_spec=dict(CONNECTION_SPEC, dest=dict(type="path", required=True), max_bytes=dict(type="int", default=64 * 1024 * 1024)),
        supports_check_mode=True,
    )
    # A cap below 1 byte fits no bundle: the node would build one for nothing.
    at_least(module, "max_bytes", 1, "bytes the bundle may hold")
    run(module, lambda installer: fetch(module, installer))


if __name__ == "__main__":
    main()
