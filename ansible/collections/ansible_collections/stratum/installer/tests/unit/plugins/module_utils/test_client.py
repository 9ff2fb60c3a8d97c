# -*- coding: utf-8 -*-
"""client.py against TLS servers of the test's own (a certificate made by openssl, loopback, port 0).

Run: python3 -m unittest test_client (from this folder; test/ansible/collection-units.test.ts runs it under npm test)."""

import hashlib
import os
import shutil
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import unittest

COLLECTIONS = os.path.abspath(os.path.join(os.path.dirname(__file__), *([".."] * 7)))
sys.path.insert(0, COLLECTIONS)

from ansible_collections.stratum.installer.plugins.module_utils.client import ClientError, PinnedClient, pin_of, sse_messages  # noqa: E402


class Server(object):
    """A TLS server on 127.0.0.1:0 that hands each connection to `handler(conn, server)` and counts what it hears."""

    def __init__(self, cert, key, handler):
        self.context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self.context.load_cert_chain(cert, key)
        self.handler = handler
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.connections = 0
        self.bytes = 0
        self.requests = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        while not self.stop.is_set():
            try:
                raw, _ = self.listener.accept()
            except OSError:
                return
            self.connections += 1
            threading.Thread(target=self._one, args=(raw,), daemon=True).start()

    def _one(self, raw):
        conn = raw
        try:
            conn = self.context.wrap_socket(raw, server_side=True)
            self.handler(conn, self)
        except OSError:
            pass
        finally:
            conn.close()

    def head(self, conn):
        """The request's head, counted; b"" when the client sent nothing."""
        data = b""
        while b"\r\n\r\n" not in data:
            piece = conn.recv(65536)
            if not piece:
                break
            self.bytes += len(piece)
            data += piece
        if data:
            self.requests.append(data.decode("latin-1"))
        return data

    def close(self):
        self.stop.set()
        self.listener.close()


def answer(body, status="200 OK", headers=()):
    def handler(conn, server):
        server.head(conn)
        lines = ["HTTP/1.1 " + status, "Content-Length: %d" % len(body)] + list(headers)
        conn.sendall(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
    return handler


class ClientTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not shutil.which("openssl"):
            raise unittest.SkipTest("openssl is not installed: no certificate for the test servers")
        cls.folder = tempfile.mkdtemp(prefix="stratum-client-test-")
        cls.cert, cls.key = os.path.join(cls.folder, "cert.pem"), os.path.join(cls.folder, "key.pem")
        subprocess.run(
            ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
             "-subj", "/CN=stratum-client-test", "-keyout", cls.key, "-out", cls.cert],
            check=True, capture_output=True,
        )
        with open(cls.cert) as f:
            cls.pin = hashlib.sha256(ssl.PEM_cert_to_DER_cert(f.read())).hexdigest()

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.folder, ignore_errors=True)

    def serve(self, handler):
        server = Server(self.cert, self.key, handler)
        self.addCleanup(server.close)
        return server

    def serve_held(self, writes, drip=None):
        """A server that answers with `writes` (one send each) and holds the connection open until the test ends, sending `drip` every 0.05 s if given."""
        done = threading.Event()
        self.addCleanup(done.set)

        def handler(conn, server):
            server.head(conn)
            for data in writes:
                conn.sendall(data)
            while not done.wait(0.05):
                if drip:
                    conn.sendall(drip)
        return self.serve(handler)

    def client(self, server, pin=None, timeout=10):
        return PinnedClient("https://127.0.0.1:%d" % server.port, pin or self.pin, timeout)

    def error(self, call):
        with self.assertRaises(ClientError) as caught:
            result = call()
            if hasattr(result, "__next__"):
                list(result)
        return caught.exception

    def test_another_certificate_is_refused_on_the_handshake_before_a_byte_is_written(self):
        heard = threading.Event()

        def handler(conn, server):
            server.head(conn)
            heard.set()
        server = self.serve(handler)
        err = self.error(lambda: self.client(server, pin="ab" * 32).request("GET", "/v1/installer/status", {"Authorization": "Bearer SECRET"}))
        self.assertEqual((err.kind, err.presented), ("tls-mismatch", self.pin))
        heard.wait(10)
        self.assertEqual((server.connections, server.bytes, server.requests), (1, 0, []))

    def test_the_pinned_certificate_gets_the_request_and_its_json_answer(self):
        server = self.serve(answer(b'{"phase":"configuring"}', headers=["ETag: \"e1\"", "Content-Type: application/json"]))
        got = self.client(server).request("PUT", "/v1/installer/config", {"If-Match": '"e0"'}, b'{"a":1}')
        self.assertEqual((got.status, got.body, got.header("etag"), got.certificate), (200, b'{"phase":"configuring"}', '"e1"', self.pin))
        self.assertTrue(server.requests[0].startswith("PUT /v1/installer/config HTTP/1.1\r\n"))
        self.assertIn("If-Match: \"e0\"\r\n", server.requests[0])
        self.assertIn("Content-Length: 7\r\n", server.requests[0])

    def test_a_fingerprint_with_colons_or_without(self):
        self.assertEqual(pin_of(":".join(self.pin[i:i + 2] for i in range(0, 64, 2)).upper()), self.pin)
        self.assertRaises(ValueError, pin_of, "AB:CD")

    def test_a_chunked_answer_is_read_whole(self):
        def handler(conn, server):
            server.head(conn)
            conn.sendall(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;x=y\r\nhello\r\n6\r\n world\r\n0\r\n\r\n")
        self.assertEqual(self.client(self.serve(handler)).request("GET", "/").body, b"hello world")

    def test_an_answer_over_the_cap_is_too_large(self):
        server = self.serve(answer(b"x" * 100000))
        self.assertEqual(self.error(lambda: self.client(server).request("GET", "/", max_bytes=1000)).kind, "too-large")

    def test_an_answer_cut_short_is_broken(self):
        def handler(conn, server):
            server.head(conn)
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly ten..")
        server = self.serve(handler)
        self.assertEqual(self.error(lambda: self.client(server).request("GET", "/")).kind, "broken")

    def test_one_deadline_covers_the_whole_answer_even_one_that_trickles(self):
        server = self.serve_held([b"HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\n\r\n"], drip=b"x")
        err = self.error(lambda: self.client(server, timeout=1).request("GET", "/"))
        self.assertEqual(err.kind, "timeout")
        self.assertIn("no complete answer within 1 s", str(err))

    def test_nothing_listening_is_unreachable(self):
        s = socket.create_server(("127.0.0.1", 0))
        port = s.getsockname()[1]
        s.close()
        err = self.error(lambda: PinnedClient("https://127.0.0.1:%d" % port, self.pin, 5).request("GET", "/"))
        self.assertEqual(err.kind, "unreachable")

    def test_download_writes_0600_once_whole_and_nothing_when_refused_or_over_the_cap(self):
        folder = tempfile.mkdtemp(dir=self.folder)
        dest = os.path.join(folder, "bundle.tar.gz")
        saved = self.client(self.serve(answer(b"bundle-bytes", headers=['Content-Disposition: attachment; filename="b.tar.gz"']))).download("/b", dest)
        self.assertEqual(saved, dict(size=12, sha256=hashlib.sha256(b"bundle-bytes").hexdigest(), filename="b.tar.gz"))
        self.assertEqual(os.stat(dest).st_mode & 0o777, 0o600)
        refused = self.error(lambda: self.client(self.serve(answer(b'{"code":"UNAUTHORIZED"}', "401 Unauthorized"))).download("/b", dest))
        self.assertEqual((refused.kind, refused.answer.status, refused.answer.body), ("status", 401, b'{"code":"UNAUTHORIZED"}'))
        over = self.error(lambda: self.client(self.serve(answer(b"y" * 5000))).download("/b", dest, max_bytes=1000))
        self.assertEqual(over.kind, "too-large")
        self.assertEqual(os.listdir(folder), ["bundle.tar.gz"])
        with open(dest, "rb") as f:
            self.assertEqual(f.read(), b"bundle-bytes")

    def test_events_resume_with_last_event_id_and_end_at_the_final_event_on_an_open_stream(self):
        parts = [b": heartbeat\n\n", b"id: 8\r\ndata: {\"type\":\"step.log\"}\r\n\r\n", b"id: 9\rdata: {\"type\":\"attempt.finished\"}\r\r"]
        chunks = [b"%x\r\n%s\r\n" % (len(part), part) for part in parts]
        # The stream stays open: reading must end at the final event.
        server = self.serve_held([b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"] + chunks)
        got = list(self.client(server).events("/events", last_event_id=7, is_final=lambda data: "attempt.finished" in data))
        self.assertEqual(got, [("8", '{"type":"step.log"}'), ("9", '{"type":"attempt.finished"}')])
        self.assertIn("Last-Event-ID: 7\r\n", server.requests[0])
        self.assertIn("Accept: text/event-stream\r\n", server.requests[0])

    def test_a_silent_stream_is_broken_after_idle_and_none_reads_past_until(self):
        server = self.serve_held([b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n"])
        client = self.client(server)
        self.assertEqual(self.error(lambda: client.events("/events", idle=0.5)).kind, "broken")
        self.assertEqual(self.error(lambda: client.events("/events", idle=30, until=client.clock() + 0.5)).kind, "timeout")

    def test_sse_comment_lines_are_given_to_comment_without_their_colon(self):
        said = []
        got = list(sse_messages([b": heartbeat\n\ndata: a\n\n:installer stopping\r\n\r\n"], 100, 100, "w", comment=said.append))
        self.assertEqual((got, said), ([(None, "a")], ["heartbeat", "installer stopping"]))

    def test_sse_caps_and_line_ends(self):
        self.assertEqual(list(sse_messages([b"data: a\r", b"\ndata: b\r\n", b"\r\n", b"data: c"], 100, 100, "w")), [(None, "a\nb")])
        self.assertEqual(list(sse_messages(["data: é\n\n".encode()[:7], "data: é\n\n".encode()[7:]], 100, 100, "w")), [(None, "é")])
        with self.assertRaises(ClientError) as line:
            list(sse_messages([b"data: " + b"x" * 200], 100, 1000, "w"))
        self.assertEqual(line.exception.kind, "too-large")
        with self.assertRaises(ClientError) as event:
            list(sse_messages([b"data: xxxxxxxx\n" * 20], 100, 100, "w"))
        self.assertEqual(event.exception.kind, "too-large")


if __name__ == "__main__":
    unittest.main()
