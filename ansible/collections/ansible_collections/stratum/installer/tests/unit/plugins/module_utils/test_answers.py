# -*- coding: utf-8 -*-
"""api.py's Installer against a TLS node of the test's own that answers what it is told (a certificate made by
openssl, loopback, port 0): lists that are no lists, refusals that are no JSON.

Run: python3 -m unittest test_answers (from this folder; test/ansible/collection-units.test.ts runs it under npm test)."""

import json
import os
import socket
import sys
import unittest

sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), *([".."] * 7))))
sys.path.insert(0, os.path.dirname(__file__))

from ansible_collections.stratum.installer.plugins.module_utils.api import Failed, Installer  # noqa: E402
from test_client import ClientTest, Server  # noqa: E402

VERDICT = {"attempt": 1, "kind": "install", "outcome": "succeeded", "step": "readiness", "code": None, "message": "installed", "next": "none"}


def routes(table):
    """A node answering each `METHOD PATH` in `table` with (status, body): JSON, or text when bytes; anything else 404."""
    def handler(conn, server):
        method, path = server.head(conn).decode("latin-1").split(" ")[:2]
        status, body = table.get("%s %s" % (method, path.replace("/v1/installer", "")), (404, {"code": "NOT_FOUND"}))
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        kind = "text/plain" if isinstance(body, bytes) else "application/json"
        conn.sendall(("HTTP/1.1 %d X\r\nContent-Type: %s\r\nContent-Length: %d\r\nConnection: close\r\n\r\n" % (status, kind, len(data))).encode() + data)
    return handler


class NodeTest(unittest.TestCase):
    """A node on 127.0.0.1 with ClientTest's certificate, pinned, served by a handler; closed when the test ends."""

    @classmethod
    def setUpClass(cls):
        ClientTest.setUpClass.__func__(cls)  # its certificate and pin

    @classmethod
    def tearDownClass(cls):
        ClientTest.tearDownClass.__func__(cls)

    def served(self, handler):
        server = Server(self.cert, self.key, handler)
        self.addCleanup(server.close)
        return server, Installer("https://127.0.0.1:%d" % server.port, self.pin, "K7QX-M2PD", 10)


class AnswersTest(NodeTest):
    def node(self, table):
        return self.served(routes(table))[1]

    def test_lists_that_are_no_lists_are_an_answer_no_installer_gives_not_a_crash(self):
        status = self.node({"GET /status": (200, {"phase": "configuring", "attempt": 0, "blockers": 5})})
        self.assertRaisesRegex(Failed, "that is not its installer's: .*the answer has no blockers of its type", status.status)
        verdict = self.node({"GET /install/verdict": (200, dict(VERDICT, checks=5))})
        self.assertRaisesRegex(Failed, "that is not its installer's: .*the answer has no checks of its type", verdict.verdict)
        self.assertEqual(self.node({"GET /install/verdict": (200, dict(VERDICT, checks=None))}).verdict()["outcome"], "succeeded")
        problem = self.node({"PUT /config": (422, {"code": "INVALID_CONFIG", "detail": "no", "errors": 5, "blockers": "x"})})
        self.assertRaisesRegex(Failed, r"^PUT /v1/installer/config: INVALID_CONFIG: no$", problem.put_config, {}, None)

    def test_a_status_whose_phase_no_installer_has_is_not_its_installers_answer(self):
        # It was read as configuring: stratum.installer.install sent POST /install to it.
        for phase in ("updating", "done\x1b[2J"):
            installer = self.node({"GET /status": (200, {"phase": phase, "attempt": 0, "blockers": []})})
            with self.assertRaises(Failed) as caught:
                installer.status()
            self.assertRegex(str(caught.exception), r"^the installer at https://127\.0\.0\.1:\d+ gave an answer to GET /v1/installer/status that is not its installer's: "
                             r'HTTP 200: the answer\'s phase is ("updating"|"done\\u001b\[2J"), none of configuring, installing, done, failed$')

    def test_a_refusal_that_is_not_json_says_how_it_begins(self):
        installer = self.node({"GET /status": (500, b"Internal \x1b[2J Server\nError: upstream down" + b" x" * 400)})
        with self.assertRaises(Failed) as caught:
            installer.status()
        self.assertRegex(str(caught.exception), r"^GET /v1/installer/status: HTTP 500: Internal \\x1b\[2J Server Error: upstream down x x .*… \(\d+ more characters\)$")

    def test_a_json_answer_at_a_status_not_expected_that_is_no_problem_says_how_it_begins(self):
        # POST /install answers 202; a 200 holding a status, not a problem (no code, no detail), said nothing after its status.
        installer = self.node({"POST /install": (200, {"phase": "configuring\x1b[2J", "attempt": 0})})
        with self.assertRaises(Failed) as caught:
            installer.start()
        self.assertEqual(str(caught.exception), 'POST /v1/installer/install: HTTP 200: {"phase": "configuring\\u001b[2J", "attempt": 0}')

    def test_a_bundle_refused_at_length_says_how_the_refusal_begins(self):
        # A refusal over 64 KiB (the most the client reads of one) said nothing after its status.
        import tempfile
        installer = self.node({"GET /support-bundle": (500, b"Internal \x1b[2J Error " * 10000)})
        dest = os.path.join(tempfile.mkdtemp(), "bundle.tar.gz")
        with self.assertRaises(Failed) as caught:
            installer.support_bundle(dest, 1 << 20)
        self.assertRegex(str(caught.exception), r"^GET /v1/installer/support-bundle: HTTP 500: Internal \\x1b\[2J Error Internal .*… \(\d+ more characters\)$")
        self.assertFalse(os.path.exists(dest))

    def test_a_200_that_is_no_bundle_a_proxys_page_leaves_dest_as_it_was(self):
        # It was written over dest as a .tar.gz, a bundle fetched before lost, and the task said changed.
        import tempfile
        dest = os.path.join(tempfile.mkdtemp(), "bundle.tar.gz")
        with open(dest, "wb") as f:
            f.write(b"\x1f\x8b a bundle fetched before")
        installer = self.node({"GET /support-bundle": (200, b"<html>\x1b[2Ja proxy's page</html>")})
        with self.assertRaises(Failed) as caught:
            installer.support_bundle(dest, 1 << 20)
        self.assertRegex(str(caught.exception), r"^GET /v1/installer/support-bundle: HTTP 200, but no support bundle \(no gzip; it begins: <html>\\x1b\[2Ja proxy's page</html>\); .*bundle\.tar\.gz is left as it was$")
        with open(dest, "rb") as f:
            self.assertEqual(f.read(), b"\x1f\x8b a bundle fetched before")
        self.assertEqual(os.listdir(os.path.dirname(dest)), ["bundle.tar.gz"])


def raw(data):
    """A node answering every request with these bytes, then closing."""
    def handler(conn, server):
        server.head(conn)
        conn.sendall(data)
    return handler


class MalformedTest(NodeTest):
    """A node answering in malformed HTTP (no installer does): the task fails at once saying so, naming the node;
    never taken for a node out of reach for now (which the install module waits out) nor for a refused connection."""

    def node(self, handler):
        return self.served(handler)

    def failure(self, call):
        with self.assertRaises(Failed) as caught:
            result = call()
            if hasattr(result, "__next__"):
                list(result)
        return caught.exception

    def test_an_answer_in_malformed_http_fails_saying_so_naming_the_node_not_passing(self):
        head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
        cases = [
            ("no HTTP at all (another service on the port)", b"SSH-2.0-OpenSSH_9.6 \x1b[2J\r\n",
             r"the status line is not HTTP/1\.x: it begins SSH-2\.0-OpenSSH_9\.6 \\x1b\[2J"),
            ("a status line past what is shown of it", b"x" * 5000 + b"\r\n", r"the status line is not HTTP/1\.x: it begins x{120}… \(4880 more characters\)"),
            ("a status of no three digits", b"HTTP/1.1 2000 OK\r\n\r\n", r"the status line is not HTTP/1\.x: it begins HTTP/1\.1 2000 OK"),
            ("a header line over the limit", (head + "X-Big: %s\r\n\r\n" % ("a" * 70000)).encode(), r"a header section over 64 KiB"),
            ("a header section over the limit", (head + "X-A: %s\r\n" % ("a" * 1000) * 70 + "\r\n").encode(), r"a header section over 64 KiB"),
            ("a header line with no name", (head + "no colon here\r\nContent-Length: 2\r\n\r\n{}").encode(), r"a header line that is no header"),
            ("two Content-Lengths", (head + "Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}").encode(), r"a Content-Length that is not one number"),
            ("a broken chunked body", (head + "Transfer-Encoding: chunked\r\n\r\nzz\r\n").encode(), r"a chunk size that is not hex"),
            ("a chunk longer than it said", (head + "Transfer-Encoding: chunked\r\n\r\n2\r\n{}}\r\n0\r\n\r\n").encode(), r"a chunk not followed by its line end"),
        ]
        for what, data, said in cases:
            server, installer = self.node(raw(data))
            failed = self.failure(installer.status)
            self.assertEqual((failed.kind, failed.passing()), ("malformed", False), what)
            self.assertRegex(str(failed), r"^the installer at https://127\.0\.0\.1:%d answered GET /v1/installer/status with malformed HTTP \(%s\): is it the installer\?$" % (server.port, said), what)
            self.assertNotIn("\x1b", str(failed), what)
            self.assertEqual(server.connections, 1, what)

    def test_an_event_stream_in_malformed_http_fails_at_once_not_waited_out_as_a_node_out_of_reach(self):
        stream = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"
        server, installer = self.node(raw(stream))
        failed = self.failure(lambda: installer.events(1, 0, None))
        self.assertEqual((failed.kind, failed.passing()), ("malformed", False))
        self.assertRegex(str(failed), r"^the installer at https://127\.0\.0\.1:\d+ answered GET /v1/installer/install/events\?attempt=1 with malformed HTTP \(a chunk size that is not hex\): is it the installer\?$")

    def test_a_support_bundle_in_malformed_http_fails_saying_so(self):
        import tempfile
        dest = os.path.join(tempfile.mkdtemp(), "bundle.tar.gz")
        server, installer = self.node(raw(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n\x1f\x8b"))
        failed = self.failure(lambda: installer.support_bundle(dest, 1 << 20))
        self.assertEqual(failed.kind, "malformed")
        self.assertIn("answered GET /v1/installer/support-bundle with malformed HTTP (a Content-Length that is not one number", str(failed))
        self.assertFalse(os.path.exists(dest))

    def test_a_refused_connection_is_out_of_reach_not_malformed(self):
        listener = socket.create_server(("127.0.0.1", 0))
        port = listener.getsockname()[1]
        listener.close()
        failed = self.failure(Installer("https://127.0.0.1:%d" % port, self.pin, "K7QX-M2PD", 10).status)
        self.assertEqual((failed.kind, failed.passing()), ("unreachable", True))
        self.assertRegex(str(failed), r"^cannot reach the installer at https://127\.0\.0\.1:%d: " % port)
        self.assertNotIn("malformed", str(failed))

    def test_an_answer_cut_off_before_a_byte_is_still_a_node_out_of_reach_for_now(self):
        # A restarting installer closes its connections: waited out, not taken for malformed HTTP.
        server, installer = self.node(raw(b""))
        failed = self.failure(installer.status)
        self.assertEqual((failed.kind, failed.passing()), ("broken", True))


if __name__ == "__main__":
    unittest.main()
