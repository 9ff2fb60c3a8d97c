# -*- coding: utf-8 -*-
"""The AnsibleModule of node_info and draft, whose options hold a draft: its secrets masked as no_log options' are."""

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.stratum.installer.plugins.module_utils.api import secrets


class DraftModule(AnsibleModule):
    """An AnsibleModule whose `draft_options` (dicts) have their secrets (api.secrets) in no_log_values before the
    invocation is logged and before any exit, the argument check's included: neither the target's log nor the
    returned invocation (-vvv) shows them. A no_log on the whole option would mask every value of the draft (a
    hostname, a mode) wherever it is shown."""

    def __init__(self, draft_options, **kwargs):
        self._draft_options = draft_options
        super(DraftModule, self).__init__(**kwargs)

    def _mask_drafts(self):
        for name in self._draft_options:
            self.no_log_values.update(secrets(self.params.get(name)))

    def _log_invocation(self):
        self._mask_drafts()
        super(DraftModule, self)._log_invocation()

    def exit_json(self, **kwargs):
        self._mask_drafts()
        super(DraftModule, self).exit_json(**kwargs)

    def fail_json(self, msg, **kwargs):
        self._mask_drafts()
        super(DraftModule, self).fail_json(msg, **kwargs)
