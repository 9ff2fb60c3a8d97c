# -*- coding: utf-8 -*-
"""Runs the join_token module and marks its answer no_log: the token stays in `register`, out of every output."""

from ansible.plugins.action import ActionBase


class ActionModule(ActionBase):
    def run(self, tmp=None, task_vars=None):
        result = super(ActionModule, self).run(tmp, task_vars)
        try:
            result.update(self._execute_module(module_name="stratum.installer.join_token", task_vars=task_vars))
        finally:
            self._remove_tmp_path(self._connection._shell.tmpdir)
        if "token" in result:
            result["_ansible_no_log"] = True
        return result
