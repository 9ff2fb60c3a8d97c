# -*- coding: utf-8 -*-
"""api.py's pure parts: text from a node made printable, secrets redacted, problems worded, the code resolved.

Run: python3 -m unittest test_api (from this folder; test/ansible/collection-units.test.ts runs it under npm test)."""

import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), *([".."] * 7))))

from ansible_collections.stratum.installer.plugins.module_utils.api import Failed, Installer, Problem, printable, redacted, resolve_code, secrets  # noqa: E402
from ansible_collections.stratum.installer.plugins.module_utils.client import Answer  # noqa: E402


class PrintableTest(unittest.TestCase):
    def test_control_characters_are_written_out_never_obeyed(self):
        cases = [
            ("plain text", "plain text"),
            ("\x1b[2J cleared", "\\x1b[2J cleared"),
            ("two\nlines\ttab", "two\\x0alines\\x09tab"),
            ("csi \x9b and del \x7f", "csi \\x9b and del \\x7f"),
            ("bidi \u202e txt", "bidi \\u202e txt"),
            ("marks \u200e\u200f\u061c txt", "marks \\u200e\\u200f\\u061c txt"),
            ("line sep \u2028", "line sep \\u2028"),
            ("é and 雪 stay", "é and 雪 stay"),
            ("hid\u200bden\u2060 \ufeffBOM", "hid\\u200bden\\u2060 \\ufeffBOM"),
        ]
        for given, shown in cases:
            self.assertEqual(printable(given), shown, given)

    def test_long_text_is_capped_saying_how_much_was_cut(self):
        self.assertEqual(printable("x" * 30, 10), "x" * 10 + "… (20 more characters)")


class RedactedTest(unittest.TestCase):
    def test_secrets_are_redacted_and_a_changed_one_says_so(self):
        before = {"cluster": {"joinToken": "old", "name": "a"}, "admin": {"passwordHash": "h"}}
        after = {"cluster": {"joinToken": "new", "name": "a"}, "admin": {"passwordHash": "h"}, "mode": "x"}
        self.assertEqual(redacted(before), {"cluster": {"joinToken": "[redacted]", "name": "a"}, "admin": {"passwordHash": "[redacted]"}})
        self.assertEqual(redacted(after, against=before), {"cluster": {"joinToken": "[redacted, changed]", "name": "a"}, "admin": {"passwordHash": "[redacted]"}, "mode": "x"})
        self.assertEqual(redacted({"cluster": {"joinToken": "t"}}, against={}), {"cluster": {"joinToken": "[redacted, changed]"}})
        self.assertEqual(redacted({"cluster": {"joinToken": ""}}), {"cluster": {"joinToken": ""}})


class SecretsTest(unittest.TestCase):
    def test_each_text_under_a_secret_key_at_any_depth_and_nothing_else(self):
        draft = {
            "hostname": "node-01",
            "admin": {"passwordHash": "$6$s$HASH", "sshAuthorizedKeys": ["ssh-ed25519 AAAA"]},
            "cluster": {"name": "a", "joinToken": "STRATUM1:TOKEN"},
            "extra": [{"passwordHash": ["in", {"a": "list"}, 7]}, {"joinToken": ""}, {"joinToken": None}, {"joinToken": True}],
        }
        self.assertEqual(secrets(draft), {"$6$s$HASH", "STRATUM1:TOKEN", "in", "list", "7"})
        self.assertEqual(secrets(None), set())


class ProblemTest(unittest.TestCase):
    def test_a_problem_names_the_request_the_code_and_every_error_printable(self):
        body = {"code": "INVALID_CONFIG", "detail": "bad\x1b[31m", "errors": [{"field": "network.address", "message": "not a CIDR"}, {"field": "", "message": "m"}]}
        problem = Problem("PUT", "/config?x=1", 422, body)
        self.assertEqual(str(problem), "PUT /v1/installer/config: INVALID_CONFIG: bad\\x1b[31m; network.address: not a CIDR; (config): m")
        self.assertEqual((problem.code, problem.kind, problem.result), ("INVALID_CONFIG", "status", {"status": 422}))
        self.assertEqual(str(Problem("GET", "/status", 502, None)), "GET /v1/installer/status: HTTP 502: ")

    def test_a_node_that_lists_thousands_of_errors_or_blockers_is_shown_fifty_of_each_saying_how_many_more(self):
        body = {"code": "INSTALL_BLOCKED", "detail": "d", "errors": [{"field": "f%d" % i, "message": "m" * 1500} for i in range(5000)],
                "blockers": [{"code": "B%d" % i, "detail": "y" * 1500} for i in range(5000)]}
        text = str(Problem("POST", "/install", 409, body))
        self.assertLess(len(text), 64 * 1024)
        self.assertIn("; f49: " + "m" * 512 + "… (988 more characters); and 4950 more errors the node listed", text)
        self.assertIn("; B49: " + "y" * 512 + "… (988 more characters); and 4950 more blockers the node listed", text)
        self.assertNotIn("f50:", text)
        self.assertNotIn("B50:", text)


class CodeTest(unittest.TestCase):
    def test_the_code_itself_from_the_environment_or_from_a_file_relative_to_a_folder(self):
        folder = tempfile.mkdtemp()
        with open(os.path.join(folder, "code"), "w") as f:
            f.write("FILE-CODE\n")
        os.environ["STRATUM_TEST_CODE"] = " ENV-CODE "
        self.addCleanup(os.environ.pop, "STRATUM_TEST_CODE")
        self.assertEqual(resolve_code("K7QX-M2PD", None), "K7QX-M2PD")
        self.assertEqual(resolve_code("env:STRATUM_TEST_CODE", None), "ENV-CODE")
        self.assertEqual(resolve_code("file:code", folder), "FILE-CODE")
        self.assertRaisesRegex(Failed, "the install code's variable STRATUM_TEST_UNSET is not set", resolve_code, "env:STRATUM_TEST_UNSET", None)
        self.assertRaisesRegex(Failed, "cannot read the install code from .*/missing: No such file", resolve_code, "file:missing", folder)

    def test_an_empty_code_is_refused_naming_where_it_came_from_never_sent(self):
        folder = tempfile.mkdtemp()
        for name, text in (("empty", ""), ("blank", " \n\t\n")):
            with open(os.path.join(folder, name), "w") as f:
                f.write(text)
            self.assertRaisesRegex(Failed, "^the install code from .*/%s is empty: give the code the node's banner shows" % name, resolve_code, "file:" + name, folder)
        os.environ["STRATUM_TEST_BLANK"] = "   "
        self.addCleanup(os.environ.pop, "STRATUM_TEST_BLANK")
        self.assertRaisesRegex(Failed, "^the variable STRATUM_TEST_BLANK is empty", resolve_code, "env:STRATUM_TEST_BLANK", None)
        self.assertRaisesRegex(Failed, "^the install code is empty", resolve_code, "  ", None)
        with open(os.path.join(folder, "binary"), "wb") as f:
            f.write(b"\xff\xfe\x00")
        self.assertRaisesRegex(Failed, "is not text", resolve_code, "file:binary", folder)

    def test_a_code_with_a_character_no_code_has_is_refused_never_sent(self):
        os.environ["STRATUM_TEST_ODD"] = "AB\x01CD"
        for code, named in (("X364\u2013BRCG", "U\\+2013"), ("env:STRATUM_TEST_ODD", "U\\+0001"), ("K\u00d6DE-1234", "U\\+00D6")):
            self.assertRaisesRegex(Failed, "holds the character %s, which no install code has" % named, resolve_code, code, None)
        self.assertEqual(resolve_code("k7qx m2pd\tr4t1", None), "k7qx m2pd\tr4t1")


class _Answers(object):
    """A PinnedClient stand-in: every request gets (status, body), every event stream yields `events` (one that
    starts with a colon is a comment line, given to the stream's `comment`)."""

    def __init__(self, status, body, events=()):
        self.answer = Answer(status, {}, body, None)
        self.stream = events
        self.where = "127.0.0.1:1"
        self.timeout = 30

    def request(self, *args, **kwargs):
        return self.answer

    def events(self, *args, **kwargs):
        for data in self.stream:
            if data.startswith(":"):
                kwargs["comment"](data[1:].lstrip(" "))
            else:
                yield None, data


def _installer(client):
    installer = Installer("https://127.0.0.1:1", "ab" * 32, "abcd-efgh-ijkl", 30)
    installer.client = client
    return installer


class HostileAnswerTest(unittest.TestCase):
    def installer(self, client):
        return _installer(client)

    def test_json_nested_past_what_python_parses_is_a_named_failure_not_a_traceback(self):
        deep = b"[" * 100000 + b"]" * 100000
        self.assertRaisesRegex(Failed, "gave an answer to GET /v1/installer/status that is not its installer's", self.installer(_Answers(200, deep)).status)
        self.assertRaisesRegex(Failed, "^GET /v1/installer/status: HTTP 500: ", self.installer(_Answers(500, deep)).status)
        # Parsed, but deeper than the module's walks of it (printable_tree, the result's JSON) may go.
        parses = b'{"phase": "configuring", "attempt": 0, "blockers": ' + b"[" * 900 + b"]" * 900 + b"}"
        self.assertRaisesRegex(Failed, "that is not its installer's", self.installer(_Answers(200, parses)).status)
        shallow = b'{"phase": "configuring", "attempt": 0, "blockers": [{"code": "X", "detail": [[["deep enough"]]]}]}'
        self.assertEqual(self.installer(_Answers(200, shallow)).status()["blockers"][0]["detail"], [[["deep enough"]]])
        events = self.installer(_Answers(200, b"", [deep.decode()])).events(1, 0, None)
        self.assertRaisesRegex(Failed, "gave an answer to GET /v1/installer/install/events.* that is not its installer's", list, events)


class StoppingTest(unittest.TestCase):
    def test_a_stream_that_ends_with_the_installers_word_that_it_stops_fails_as_passing_saying_so_one_that_ends_otherwise_does_not(self):
        event = '{"seq": 1, "attempt": 1, "type": "step.log", "message": ""}'
        endings = [[": installer stopping"], [": installer stopping", ": heartbeat"], [": installer stopping", event], []]
        said = []
        for ending in endings:
            installer = _installer(_Answers(200, b"", [event] + ending))
            try:
                list(installer.events(1, 0, None))
                said.append(None)
            except Failed as failed:
                said.append((failed.kind, failed.passing(), str(failed)))
        self.assertEqual(said, [("stopping", True, "the installer at https://127.0.0.1:1 is stopping (a restart, or a stop)"), None, None, None])


if __name__ == "__main__":
    unittest.main()
