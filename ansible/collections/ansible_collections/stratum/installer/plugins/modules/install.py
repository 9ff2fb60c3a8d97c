#!/usr/bin/python
# -*- coding: utf-8 -*-

DOCUMENTATION = r"""
module: install
short_description: Install a Stratum node and wait for its verdict
description:
  - Installs the node's stored draft (set it first with M(stratum.installer.draft)) and waits inside the task
    for the attempt's verdict, following its events stream (C(GET /v1/installer/install/events), resumed with
    C(Last-Event-ID) when it breaks). No C(until:) loop is needed, so no retry lines are printed. A stream the
    installer ends saying it stops (its last line the comment C(installer stopping), on a restart or a stop) is a
    warning that says so, and the attempt is followed on once the installer answers again.
  - A node already installed (phase C(done)) is left as it is (ok, unchanged). An attempt that runs is
    followed. A node whose last attempt failed at readiness (next C(recheckReadiness)) is rechecked
    (C(POST /v1/installer/install/recheck-readiness)), never installed again. A node whose last attempt was
    interrupted at firstboot (code C(INTERRUPTED), step C(firstboot); firstboot may have finished) is never
    installed again by the task, which fails with the verdict's message; check the node as it says, and if it must be
    installed again, start that install on the node (its console, or C(POST /v1/installer/install)), then run the
    task again to follow it. Otherwise, after the join check
    when I(join_check) is set, C(POST /v1/installer/install) starts an attempt.
  - An attempt that fails at readiness is rechecked up to I(rechecks) times before the task fails.
  - "A failed install fails the task with C(NODE: the install failed: CODE at STEP: DETAIL (next: NEXT))."
  - The install goes on on the node when the task stops waiting (I(timeout_minutes)); run the task again to
    follow it.
version_added: 0.1.0
author: Stratum installer team
extends_documentation_fragment:
  - stratum.installer.connection
options:
  join_check:
    description:
      - Run the join check (C(POST /v1/installer/cluster/join-check)) before the install starts; any check
        that fails fails the task with its code and detail, and nothing starts.
    type: bool
    default: false
  timeout_minutes:
    description:
      - How long the task waits for the verdict, in minutes; 1 or more.
    type: int
    default: 60
  wait_timeout:
    description:
      - How long the task waits for the verdict, in seconds, 1 or more; instead of I(timeout_minutes) (not with it).
    type: int
  rechecks:
    description:
      - Readiness rechecks after an attempt of this task failed at readiness (the cloud was not READY in time); 0 or more.
    type: int
    default: 1
attributes:
  check_mode:
    support: full
    description: Reads the node's status and starts nothing; changed when the task would install, recheck or follow.
  diff_mode:
    support: none
    description: An install has no before and after to show.
"""

EXAMPLES = r"""
- name: Install the node and wait for its verdict
  stratum.installer.install:
    installer: "{{ stratum_node.installer }}"
    fingerprint: "{{ stratum_node.fingerprint }}"
    code: "{{ stratum_node.code }}"
    relative_to: "{{ inventory_dir }}"
    node: "{{ inventory_hostname }}"
    join_check: "{{ stratum_node.role == 'join' }}"
    timeout_minutes: "{{ stratum_install_timeout | default(60) }}"
  register: installed

- name: Say which steps it went through
  ansible.builtin.debug:
    msg: "attempt {{ installed.attempt }}: {{ installed.steps | join(', ') }}"
"""

RETURN = r"""
attempt:
  description: The node's latest attempt number (0 before the first).
  returned: always
  type: int
  sample: 1
verdict:
  description:
    - The verdict of the attempt the task ended with (attempt, kind, outcome, step, code, message, next,
      checks), its text made printable; null when there is none (check mode, or no attempt).
  returned: always
  type: dict
  sample:
    attempt: 1
    kind: install
    outcome: succeeded
    step: readiness
    code: null
    message: installed
    next: none
steps:
  description: The step names the followed attempts went through, in order.
  returned: always
  type: list
  elements: str
  sample: [preflight, write-config, firstboot, readiness]
"""

import time

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.stratum.installer.plugins.module_utils.api import CONNECTION_SPEC, MAX_ITEM_TEXT, Failed, at_least, Problem, items_text, listed, printable, printable_tree, run, who


# An attempt has a dozen steps (SPEC §5); a node that names more is not believed past this many.
MAX_STEPS = 64


class Run(object):
    def __init__(self, module, installer):
        self.module = module
        self.installer = installer
        p = module.params
        self.wait = p["wait_timeout"] if p["wait_timeout"] is not None else p["timeout_minutes"] * 60
        self.wait_text = "%d s" % self.wait if p["wait_timeout"] is not None else "%d minute%s" % (p["timeout_minutes"], "" if p["timeout_minutes"] == 1 else "s")
        self.until = time.monotonic() + self.wait
        self.steps = []
        self.attempt = 0
        # While the node does not answer: since when (UTC), and its last error.
        self.unanswered = None

    def result(self, verdict, changed, **extra):
        return dict(extra, changed=changed, attempt=self.attempt, verdict=printable_tree(verdict), steps=self.steps)

    def follow(self, attempt):
        """The attempt's events to attempt.finished, then its verdict; a broken stream resumed after the last event."""
        self.attempt = attempt
        last, pause = 0, 0.25
        while True:
            try:
                for event in self.installer.events(attempt, last, self.until):
                    self.unanswered = None
                    last = event["seq"]
                    pause = 0.25
                    step = event.get("step")
                    if event["type"] == "step.started" and isinstance(step, str) and len(self.steps) < MAX_STEPS and printable(step, 80) not in self.steps:
                        self.steps.append(printable(step, 80))
            except Failed as failed:
                self.not_answered(failed)
            try:
                verdict = self.installer.verdict(attempt)
                self.unanswered = None
            except Failed as failed:
                self.not_answered(failed)
                verdict = None
            if verdict is not None:
                return verdict
            left = self.until - time.monotonic()
            if left <= 0:
                raise Failed(self.out_of_time(attempt), **self.result(None, True))
            time.sleep(min(pause, left))
            pause = min(pause * 2, 5)

    def not_answered(self, failed):
        """A read that may pass (the node out of reach, its answer cut off) is waited out; since when is kept for the end."""
        if not failed.passing():
            raise failed
        if failed.kind == "stopping":
            self.module.warn("%s%s; attempt %d is followed on once it answers again" % (who(self.module), failed, self.attempt))
        since = self.unanswered[0] if self.unanswered else time.strftime("%H:%M:%S UTC", time.gmtime())
        self.unanswered = (since, printable(str(failed), 200))

    def out_of_time(self, attempt):
        if self.unanswered:
            since, why = self.unanswered
            return "no verdict within %s: the node has not answered since %s (%s); attempt %d may still run there: look at the node's installer (systemctl status stratum-installer), then run the task again to follow it" % (self.wait_text, since, why, attempt)
        try:
            step = self.installer.status().get("step")
        except Failed:
            step = None
        at = ", at step %s" % printable(step, 80) if step else ""
        return "no verdict within %s: attempt %d still runs%s; it goes on on the node: run the task again to follow it" % (self.wait_text, attempt, at)

    def start(self, recheck):
        try:
            started = self.installer.start(recheck)
        except Problem as problem:
            if problem.code != "INSTALL_RUNNING":
                raise
            started = self.installer.status()  # someone else's attempt, or ours whose answer was lost: follow it
        return self.follow(started["attempt"])

    def join_check(self):
        check = self.installer.join_check()
        if not check["ok"]:
            failures = ["%s: %s" % (printable(c.get("code"), 80), printable(c.get("detail"), MAX_ITEM_TEXT)) for c in check["checks"] if isinstance(c, dict) and c.get("code")]
            raise Failed("the join check failed: %s" % items_text(failures or ["no check passed"], "checks"), **self.result(None, False, checks=printable_tree(check["checks"])))

    def converge(self):
        status = self.installer.settled_status(min(self.wait, 600))
        self.attempt = status["attempt"]
        if status["phase"] == "done":
            verdict = self.installer.verdict()
            if not verdict or verdict["outcome"] != "succeeded":
                says = "none" if not verdict else "attempt %d %s (%s: %s)" % (verdict["attempt"], printable(verdict["outcome"], 40), printable(verdict["code"] or "no code", 80), printable(verdict["message"]))
                raise Failed("its answers disagree: its status says it is installed (phase done), its verdict says %s; an installer's answers agree: look at the node" % says, **self.result(verdict, False))
            return self.result(verdict, False, msg="installed already (attempt %d)" % status["attempt"])
        last = self.installer.verdict() if status["phase"] == "failed" else None
        if last and last["attempt"] == status["attempt"] and firstboot_may_have_run(last):
            raise Failed("%s; %s" % (failure(last), FIRSTBOOT_RETRY_BY_HAND), **self.result(last, False))
        if self.module.check_mode:
            what = "follow attempt %d" % status["attempt"] if status["phase"] == "installing" else "recheck readiness" if last and last["next"] == "recheckReadiness" else "install"
            return self.result(last, True, msg="check mode: it would %s; nothing was started" % what)
        verdict = None
        if status["phase"] == "installing":
            verdict = self.follow(status["attempt"])
        elif last and last["next"] == "recheckReadiness":
            verdict = self.start(recheck=True)
        rechecks = self.module.params["rechecks"]
        while True:
            if verdict is None:
                if self.module.params["join_check"]:
                    self.join_check()
                verdict = self.start(recheck=False)
            if verdict["outcome"] == "succeeded":
                return self.result(verdict, True)
            if verdict["next"] == "recheckReadiness" and rechecks > 0:
                rechecks -= 1
                verdict = self.start(recheck=True)
                continue
            raise Failed(failure(verdict) + ("; " + FIRSTBOOT_RETRY_BY_HAND if firstboot_may_have_run(verdict) else ""), **self.result(verdict, True))


def firstboot_may_have_run(verdict):
    """An attempt interrupted at firstboot (the installer killed as it ran): firstboot may have run to its end, and a
    retry runs it again (it erases disks). Its next says retryInstall (SPEC §6), but the task never starts that itself."""
    return verdict["outcome"] == "failed" and verdict["code"] == "INTERRUPTED" and verdict["step"] == "firstboot"


FIRSTBOOT_RETRY_BY_HAND = ("not started again by this task: firstboot may have run to its end, and an install runs it again. Check the node as its message says; "
                           "if it must be installed again, start that install on the node (its console, or POST /v1/installer/install with curl), then run the playbook again: it follows that attempt")


def failure(verdict):
    text = "the install failed: %s at %s: %s (next: %s)" % tuple(printable(verdict.get(k) or "?", 2000 if k == "message" else 80) for k in ("code", "step", "message", "next"))
    checks = ["join check %s: %s: %s" % (printable(c.get("name"), 40), printable(c["code"], 80), printable(c.get("detail"), MAX_ITEM_TEXT)) for c in listed(verdict.get("checks")) if isinstance(c, dict) and c.get("code")]
    return text + ("; " + items_text(checks, "checks") if checks else "")


def main():
    module = AnsibleModule(
        argument_spec=dict(
            CONNECTION_SPEC,
            join_check=dict(type="bool", default=False),
            timeout_minutes=dict(type="int", default=60),
            wait_timeout=dict(type="int"),
            rechecks=dict(type="int", default=1),
        ),
        mutually_exclusive=[("timeout_minutes", "wait_timeout")],
        supports_check_mode=True,
    )
    # A wait of 0 would start an install and give up on it at once.
    at_least(module, "timeout_minutes" if module.params["wait_timeout"] is None else "wait_timeout", 1, "minutes the task waits for the verdict" if module.params["wait_timeout"] is None else "seconds the task waits for the verdict")
    at_least(module, "rechecks", 0, "readiness rechecks")
    run(module, lambda installer: Run(module, installer).converge())


if __name__ == "__main__":
    main()
