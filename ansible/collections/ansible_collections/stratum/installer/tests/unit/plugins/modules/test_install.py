# -*- coding: utf-8 -*-
"""The install module's decisions (Run.converge) against a node stood in for at its requests: what it starts, and what it does not.

Run: python3 -m unittest test_install (from this folder; test/ansible/collection-units.test.ts runs it under npm test)."""

import json
import os
import sys
import types
import unittest

sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), *([".."] * 7))))

try:
    import ansible.module_utils.basic  # noqa: F401
except ImportError:
    # A Python without Ansible (the module's own AnsibleModule is not what is tested: Run is given a stand-in).
    basic = types.ModuleType("ansible.module_utils.basic")
    basic.AnsibleModule = object
    sys.modules.setdefault("ansible", types.ModuleType("ansible"))
    sys.modules["ansible.module_utils"] = types.ModuleType("ansible.module_utils")
    sys.modules["ansible.module_utils.basic"] = basic

from ansible_collections.stratum.installer.plugins.module_utils.api import Failed, Installer  # noqa: E402
from ansible_collections.stratum.installer.plugins.module_utils.client import Answer  # noqa: E402
from ansible_collections.stratum.installer.plugins.modules.install import Run  # noqa: E402


class _Node(object):
    """A PinnedClient stand-in: a node whose latest attempt 1 ended with `verdict`; POST /install starts attempt 2, which succeeds."""

    def __init__(self, verdict):
        self.verdict = verdict
        self.requests = []
        self.latest = 1
        self.where = "127.0.0.1:1"
        self.timeout = 30

    def request(self, method, path, headers, payload, limit):
        self.requests.append("%s %s" % (method, path))
        path = path.replace("/v1/installer", "")
        if method == "GET" and path == "/status":
            return self._json(200, {"phase": "failed" if self.latest == 1 else "installing", "attempt": self.latest, "blockers": []})
        if method == "GET" and path.startswith("/install/verdict"):
            return self._json(200, self.verdict if self.latest == 1 else dict(self.verdict, attempt=2, outcome="succeeded", step="readiness", code=None, message="installed", next="none"))
        if method == "POST" and path == "/install":
            self.latest = 2
            return self._json(202, {"attempt": 2, "phase": "installing", "eventsUrl": "/v1/installer/install/events?attempt=2"})
        return self._json(404, {"code": "NOT_FOUND", "detail": path})

    def events(self, path, headers, **kwargs):
        self.requests.append("GET %s" % path)
        return iter(())

    @staticmethod
    def _json(status, body):
        return Answer(status, {}, json.dumps(body).encode("utf-8"), None)


class _Module(object):
    check_mode = False
    params = {"wait_timeout": 30, "timeout_minutes": 60, "rechecks": 1, "join_check": False}

    def __init__(self):
        self.warnings = []

    def warn(self, text):
        self.warnings.append(text)


def converge(verdict):
    node = _Node(verdict)
    installer = Installer("https://127.0.0.1:1", "ab" * 32, "abcd-efgh-ijkl", 30)
    installer.client = node
    return node, Run(_Module(), installer)


FIRSTBOOT_FAILED = {"attempt": 1, "kind": "install", "outcome": "failed", "step": "firstboot", "code": "FIRSTBOOT_FAILED", "message": "firstboot exited with code 1", "next": "retryInstall"}


class InterruptedAtFirstbootTest(unittest.TestCase):
    def test_an_attempt_interrupted_at_firstboot_is_never_installed_again_the_task_fails_with_its_message_and_what_to_do(self):
        message = "The installer stopped during firstboot \x1b[2J: firstboot may have finished; check on the node whether firstboot completed."
        node, run = converge(dict(FIRSTBOOT_FAILED, code="INTERRUPTED", message=message))
        with self.assertRaises(Failed) as failed:
            run.converge()
        self.assertEqual([r for r in node.requests if r.startswith("POST")], [], "no install request")
        text = str(failed.exception)
        self.assertIn("INTERRUPTED at firstboot: The installer stopped during firstboot \\x1b[2J: firstboot may have finished", text)
        self.assertNotIn("\x1b", text)
        self.assertIn("not started again by this task: firstboot may have run to its end, and an install runs it again. Check the node as its message says; if it must be installed again, start that install on the node (its console, or POST /v1/installer/install with curl), then run the playbook again: it follows that attempt", text)
        self.assertEqual((failed.exception.result["attempt"], failed.exception.result["changed"]), (1, False))
        self.assertEqual(failed.exception.result["verdict"]["message"], message.replace("\x1b", "\\x1b"))

    def test_other_failures_are_installed_again_as_before(self):
        for verdict in (FIRSTBOOT_FAILED, dict(FIRSTBOOT_FAILED, code="INTERRUPTED", step="write-config")):
            node, run = converge(verdict)
            self.assertEqual(run.converge()["verdict"]["outcome"], "succeeded")
            self.assertEqual([r for r in node.requests if r.startswith("POST")], ["POST /v1/installer/install"])


class _Restarting(object):
    """A PinnedClient stand-in: attempt 1 runs; its first event stream ends with the installer's word that it stops (a
    restart), the next one ends at attempt.finished, and only then has the attempt a verdict (it succeeded)."""

    def __init__(self):
        self.streams = [["attempt.started"], ["attempt.finished"]]
        self.after = []
        self.finished = False
        self.where = "127.0.0.1:1"
        self.timeout = 30

    def request(self, method, path, headers, payload, limit):
        path = path.replace("/v1/installer", "")
        if method == "GET" and path == "/status":
            return _Node._json(200, {"phase": "installing", "attempt": 1, "blockers": []})
        if method == "GET" and path.startswith("/install/verdict") and not self.finished:
            return _Node._json(409, {"code": "INSTALL_RUNNING", "detail": "attempt 1 runs"})
        if method == "GET" and path.startswith("/install/verdict"):
            return _Node._json(200, dict(FIRSTBOOT_FAILED, outcome="succeeded", step="readiness", code=None, message="installed", next="none"))
        return _Node._json(404, {"code": "NOT_FOUND", "detail": path})

    def events(self, path, headers, last_event_id=None, comment=None, **kwargs):
        self.after.append(last_event_id)
        first = len(self.after) == 1
        for kind in self.streams.pop(0):
            seq = len(self.after)
            self.finished = kind == "attempt.finished"
            yield str(seq), json.dumps({"seq": seq, "attempt": 1, "type": kind, "message": ""})
        if first and comment is not None:
            comment("heartbeat")
            comment("installer stopping")


class InstallerStoppingTest(unittest.TestCase):
    def test_a_stream_the_installer_ends_saying_it_stops_is_warned_of_as_that_and_followed_on_after_its_last_event(self):
        node = _Restarting()
        installer = Installer("https://127.0.0.1:1", "ab" * 32, "abcd-efgh-ijkl", 30)
        installer.client = node
        module = _Module()
        result = Run(module, installer).converge()
        self.assertEqual((result["verdict"]["outcome"], result["steps"]), ("succeeded", []))
        self.assertEqual(node.after, [0, 1], "followed on after its last event")
        self.assertEqual(module.warnings, ["the installer at https://127.0.0.1:1 is stopping (a restart, or a stop); attempt 1 is followed on once it answers again"])


if __name__ == "__main__":
    unittest.main()
