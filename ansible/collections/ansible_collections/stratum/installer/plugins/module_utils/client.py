# -*- coding: utf-8 -*-
"""The collection's one HTTPS client (the Python twin of core/http/client.ts and core/http/sse.ts).

Each request opens a connection of its own and checks the server's certificate against the pinned SHA-256 on
the handshake, before a byte of the request is written; runs under one deadline (connect, handshake, request,
headers, body); and reads at most max_bytes of answer. Event streams (SSE) have line and event caps, resume
with Last-Event-ID and end at the caller's final event. Standard library only; no Ansible import, so that
python3 -m unittest runs it as it is. Every failure is a ClientError whose kind the caller words.
"""

import codecs
import hashlib
import hmac
import ipaddress
import os
import re
import socket
import ssl
import tempfile
import time
from urllib.parse import urlsplit

# unreachable: no connection or handshake (nothing was sent). tls-mismatch: not the pinned certificate (nothing
# was sent). timeout / broken: sent, but no complete answer in time / the connection failed. malformed: the answer
# is not HTTP/1.x as core/http/client.ts's parser reads it (no status line, a header section over MAX_HEAD, a header
# line that is no header, a Content-Length that is not one number, a broken chunked body): no installer answers so.
# too-large: over a cap. status: another status than expected (the answer is kept). not-json / schema: not the
# answer asked for.
KINDS = ("unreachable", "tls-mismatch", "timeout", "broken", "malformed", "too-large", "status", "not-json", "schema")

MAX_HEAD = 64 * 1024
# The most of a status line that is no HTTP said (its start names what answers: another service, a proxy).
STATUS_LINE_SHOWN = 120
_TOKEN = re.compile(rb"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
MAX_REFUSAL = 64 * 1024
SSE_MAX_LINE = 1024 * 1024
SSE_MAX_EVENT = 1024 * 1024


class ClientError(Exception):
    def __init__(self, kind, where, message, presented=None, answer=None):
        super().__init__(message)
        self.kind = kind
        self.where = where
        self.presented = presented
        self.answer = answer


class Answer(object):
    def __init__(self, status, headers, body, certificate):
        self.status = status
        self.headers = headers
        self.body = body
        self.certificate = certificate

    def header(self, name):
        return self.headers.get(name.lower())


def pin_of(fingerprint):
    """A fingerprint as AA:BB:… or 64 hex digits, as lowercase hex; ValueError otherwise."""
    value = re.sub(r"[\s:]", "", fingerprint or "").lower()
    if not re.fullmatch(r"[0-9a-f]{64}", value):
        raise ValueError("the fingerprint is not a SHA-256 (64 hex digits, with or without colons)")
    return value


def colons(hex_digest):
    return ":".join(hex_digest[i:i + 2] for i in range(0, len(hex_digest), 2)).upper()


def seconds(value):
    return "%g s" % round(value, 1)


class _Deadline(object):
    """How long the next wait may last, and the error when it runs out."""

    def __init__(self, clock, end, error):
        self.clock = clock
        self.end = end
        self.error = error

    def wait(self):
        left = self.end - self.clock()
        if left <= 0:
            raise self.error()
        return left, self.error


class _Reader(object):
    """A socket read under a wait policy: `wait()` gives the seconds the next read may take and its error."""

    def __init__(self, sock, where):
        self._sock = sock
        self._where = where
        self._buffer = b""
        self._eof = False
        self.wait = None

    def _recv(self):
        if self._eof:
            return b""
        left, error = self.wait()
        self._sock.settimeout(left)
        try:
            data = self._sock.recv(65536)
        except socket.timeout:
            raise error()
        except OSError as err:
            raise ClientError("broken", self._where, str(err) or err.__class__.__name__)
        if not data:
            self._eof = True
        return data

    def line(self, cap, too_long):
        """One line of an answer's framing without its CRLF; the connection closing first is broken, one over `cap`
        bytes malformed, `too_long` saying what it is."""
        while True:
            end = self._buffer.find(b"\n")
            if end >= 0:
                line, self._buffer = self._buffer[:end], self._buffer[end + 1:]
                if len(line) > cap:
                    raise _malformed(self._where, too_long)
                return line[:-1] if line.endswith(b"\r") else line
            if len(self._buffer) > cap:
                raise _malformed(self._where, too_long)
            data = self._recv()
            if not data:
                raise ClientError("broken", self._where, "the connection closed before the answer was complete")
            self._buffer += data

    def some(self, most):
        """Up to `most` bytes, b"" at the end of the connection."""
        if not self._buffer:
            self._buffer = self._recv()
        piece, self._buffer = self._buffer[:most], self._buffer[most:]
        return piece

    def exactly(self, size):
        """`size` bytes, piece by piece; the connection closing first is broken."""
        while size > 0:
            piece = self.some(min(size, 65536))
            if not piece:
                raise _incomplete(self._where)
            size -= len(piece)
            yield piece


def _incomplete(where):
    return ClientError("broken", where, "the connection closed before the answer was complete")


def _malformed(where, what):
    """An answer that is not HTTP/1.x; `what` says how (the caller makes it printable)."""
    return ClientError("malformed", where, "malformed HTTP (%s)" % what)


def _no_status_line(where, line):
    shown = line.decode("utf-8", "replace")
    more = len(shown) - STATUS_LINE_SHOWN
    return _malformed(where, "the status line is not HTTP/1.x: it begins %s%s" % (shown[:STATUS_LINE_SHOWN], "… (%d more characters)" % more if more > 0 else ""))


class _Response(object):
    """An answer's status and headers, read; its body as chunks on demand (Content-Length, chunked, or to the close)."""

    def __init__(self, reader, where):
        self._reader = reader
        self._where = where
        over = "a header section over %d KiB" % (MAX_HEAD // 1024)
        total = 0
        while True:
            line = reader.line(MAX_HEAD, over)
            total += len(line) + 2
            if total > MAX_HEAD:
                # Its start is not said: a status line this long is no HTTP, and says little read so far.
                raise _malformed(where, over)
            parts = line.split(b" ", 2)
            if len(parts) < 2 or not re.fullmatch(rb"HTTP/1\.[01]", parts[0]) or not re.fullmatch(rb"[1-9][0-9]{2}", parts[1]):
                raise _no_status_line(where, line)
            status = int(parts[1])
            headers = {}
            while True:
                line = reader.line(MAX_HEAD, over)
                total += len(line) + 2
                if total > MAX_HEAD:
                    raise _malformed(where, over)
                if not line:
                    break
                name, colon, value = line.partition(b":")
                if not colon or not _TOKEN.fullmatch(name):
                    raise _malformed(where, "a header line that is no header")
                key, value = name.decode("latin-1").lower(), value.decode("latin-1").strip()
                headers[key] = headers[key] + ", " + value if key in headers else value
            if status >= 200:
                break
        self.status = status
        self.headers = headers

    def chunks(self):
        reader, where = self._reader, self._where
        if self.status in (204, 304):
            return
        if "chunked" in self.headers.get("transfer-encoding", "").lower():
            while True:
                size = reader.line(4096, "a chunk size line over 4 KiB").split(b";")[0].strip()
                if not re.fullmatch(rb"[0-9A-Fa-f]{1,16}", size):
                    raise _malformed(where, "a chunk size that is not hex")
                size = int(size, 16)
                if size == 0:
                    while reader.line(MAX_HEAD, "a trailer over %d KiB" % (MAX_HEAD // 1024)):
                        pass
                    return
                for piece in reader.exactly(size):
                    yield piece
                if reader.line(16, "a chunk not followed by its line end"):
                    raise _malformed(where, "a chunk not followed by its line end")
        elif "content-length" in self.headers:
            # Two of them differing come joined ("2, 3"): not one number, as Node's parser refuses them.
            if not re.fullmatch(r"[0-9]{1,18}", self.headers["content-length"]):
                raise _malformed(where, "a Content-Length that is not one number")
            left = int(self.headers["content-length"])
            for piece in reader.exactly(left):
                yield piece
        else:
            while True:
                piece = reader.some(65536)
                if not piece:
                    return
                yield piece

    def read(self, max_bytes, too_large):
        body = self.start(max_bytes + 1)
        if len(body) > max_bytes:
            raise ClientError("too-large", self._where, too_large)
        return body

    def start(self, max_bytes):
        """The body's first max_bytes; the rest is left unread (the connection is closed after the answer)."""
        pieces, size = [], 0
        for piece in self.chunks():
            pieces.append(piece)
            size += len(piece)
            if size >= max_bytes:
                break
        return b"".join(pieces)[:max_bytes]


class PinnedClient(object):
    """An https://host:port whose certificate must have the SHA-256 `pin` (lowercase hex); `timeout` seconds a request."""

    def __init__(self, url, pin, timeout, clock=time.monotonic):
        parts = urlsplit(url)
        if parts.scheme != "https" or not parts.hostname:
            raise ValueError("the installer URL %s is not https://host:port" % url)
        try:
            self.port = parts.port or 443
        except ValueError:
            raise ValueError("the installer URL %s has no valid port" % url)
        self.url = url
        self.host = parts.hostname
        self.prefix = parts.path.rstrip("/")
        self.where = parts.netloc
        self.pin = pin
        self.timeout = timeout
        self.clock = clock

    def _is_ip(self):
        try:
            ipaddress.ip_address(self.host)
            return True
        except ValueError:
            return False

    def _open(self, end):
        """A TLS connection whose certificate is the pinned one, checked before anything is written."""
        left = end - self.clock()
        if left <= 0:
            raise ClientError("unreachable", self.where, "no TLS handshake within %s" % seconds(self.timeout))
        try:
            raw = socket.create_connection((self.host, self.port), timeout=left)
        except socket.timeout:
            raise ClientError("unreachable", self.where, "no connection within %s" % seconds(left))
        except OSError as err:
            raise ClientError("unreachable", self.where, err.strerror or str(err))
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        context.minimum_version = ssl.TLSVersion.TLSv1_2
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE  # trust comes from the pin, checked below
        try:
            sock = context.wrap_socket(raw, server_hostname=None if self._is_ip() else self.host, do_handshake_on_connect=False)
            sock.settimeout(max(end - self.clock(), 0.001))
            sock.do_handshake()
        except socket.timeout:
            raw.close()
            raise ClientError("unreachable", self.where, "no TLS handshake within %s" % seconds(self.timeout))
        except OSError as err:
            raw.close()
            raise ClientError("unreachable", self.where, "the TLS handshake failed: %s" % (err.strerror or err))
        der = sock.getpeercert(binary_form=True)
        presented = hashlib.sha256(der).hexdigest() if der else None
        if presented is None or not hmac.compare_digest(presented, self.pin):
            sock.close()
            raise ClientError("tls-mismatch", self.where, "presented %s, not the pinned one" % ("a certificate with SHA-256 %s" % presented if presented else "no certificate"), presented=presented)
        return sock, presented

    def _host_header(self):
        host = "[%s]" % self.host if ":" in self.host else self.host
        return host if self.port == 443 else "%s:%d" % (host, self.port)

    def _exchange(self, method, path, headers, body, end):
        """The request written on a checked connection; its answer's head read, all before `end`."""
        sock, certificate = self._open(end)
        timeout = lambda: ClientError("timeout", self.where, "no complete answer within %s" % seconds(self.timeout))
        deadline = _Deadline(self.clock, end, timeout)
        reader = _Reader(sock, self.where)
        reader.wait = deadline.wait
        lines = ["%s %s%s HTTP/1.1" % (method, self.prefix, path), "Host: " + self._host_header(), "Connection: close", "User-Agent: stratum.installer (ansible)"]
        lines += ["%s: %s" % (k, v) for k, v in headers.items()]
        if body is not None:
            lines.append("Content-Length: %d" % len(body))
        try:
            left, _ = deadline.wait()
            sock.settimeout(left)
            sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + (body or b""))
            return sock, certificate, _Response(reader, self.where), reader
        except socket.timeout:
            sock.close()
            raise timeout()
        except OSError as err:
            sock.close()
            raise ClientError("broken", self.where, str(err))
        except ClientError:
            sock.close()
            raise

    def request(self, method, path, headers=None, body=None, max_bytes=16 * 1024 * 1024):
        """One request, its answer read whole (at most max_bytes), whatever its status."""
        sock, certificate, response, _ = self._exchange(method, path, headers or {}, body, self.clock() + self.timeout)
        try:
            data = response.read(max_bytes, "the answer is over %d bytes" % max_bytes)
            return Answer(response.status, response.headers, data, certificate)
        finally:
            sock.close()

    def download(self, path, dest, headers=None, max_bytes=64 * 1024 * 1024, check=None):
        """A 200 answer's body streamed to dest through a 0600 file beside it, renamed over it once whole.

        Another status is a status error with its body (to 64 KiB); over max_bytes a too-large error; `check`, given
        the whole file before it replaces dest, may raise to refuse it; dest is then left as it was. Returns
        dict(size, sha256, filename).
        """
        dest = os.path.abspath(dest)
        sock, certificate, response, _ = self._exchange("GET", path, headers or {}, None, self.clock() + self.timeout)
        try:
            if response.status != 200:
                try:
                    text = response.start(MAX_REFUSAL)  # a longer one is shown by its start, as a shorter one is
                except ClientError:
                    text = b""
                raise ClientError("status", self.where, "HTTP %d, expected 200" % response.status, answer=Answer(response.status, response.headers, text, certificate))
            fd, partial = tempfile.mkstemp(dir=os.path.dirname(dest), prefix=".%s." % os.path.basename(dest), suffix=".partial")
            try:
                digest = hashlib.sha256()
                size = 0
                with os.fdopen(fd, "wb") as f:
                    for piece in response.chunks():
                        size += len(piece)
                        if size > max_bytes:
                            raise ClientError("too-large", self.where, "the answer is over %d bytes" % max_bytes)
                        digest.update(piece)
                        f.write(piece)
                    f.flush()
                    os.fsync(f.fileno())
                if check:
                    check(partial)
                os.replace(partial, dest)
            except BaseException:
                os.unlink(partial)
                raise
            folder = os.open(os.path.dirname(dest), os.O_RDONLY)
            try:
                os.fsync(folder)
            finally:
                os.close(folder)
            named = re.search(r'filename="([^"]*)"', response.headers.get("content-disposition", ""))
            return dict(size=size, sha256=digest.hexdigest(), filename=named.group(1) if named else None)
        finally:
            sock.close()

    def events(self, path, headers=None, last_event_id=None, idle=45, until=None, is_final=None,
               max_line=SSE_MAX_LINE, max_event=SSE_MAX_EVENT, comment=None):
        """One connection's Server-Sent Events as (id, data) pairs, until is_final(data) or the stream ends; each
        comment line's text given to `comment` as it comes.

        `timeout` covers the connection and the answer's head; after it a connection silent for `idle` seconds
        is broken, and none reads past `until` (a clock() value: the caller's own wait). A status other than
        200 is a status error with its body read.
        """
        headers = dict(headers or {}, Accept="text/event-stream")
        if last_event_id is not None:
            headers["Last-Event-ID"] = str(last_event_id)
        end = self.clock() + self.timeout if until is None else min(self.clock() + self.timeout, until)
        sock, certificate, response, reader = self._exchange("GET", path, headers, None, end)
        try:
            if response.status != 200:
                text = response.read(MAX_REFUSAL, "the refusal is over %d bytes" % MAX_REFUSAL)
                raise ClientError("status", self.where, "HTTP %d, expected 200" % response.status, answer=Answer(response.status, response.headers, text, certificate))
            reader.wait = self._stream_wait(idle, until)
            for message in sse_messages(response.chunks(), max_line, max_event, self.where, comment):
                yield message
                if is_final is not None and is_final(message[1]):
                    return
        finally:
            sock.close()

    def _stream_wait(self, idle, until):
        def wait():
            left = idle
            error = lambda: ClientError("broken", self.where, "nothing heard for %s" % seconds(idle))
            if until is not None:
                remaining = until - self.clock()
                if remaining <= 0:
                    raise ClientError("timeout", self.where, "the wait ended")
                if remaining < idle:
                    left = remaining
                    error = lambda: ClientError("timeout", self.where, "the wait ended")
            return left, error
        return wait


def sse_messages(chunks, max_line, max_event, where, comment=None):
    """(id, data) for each message in a stream of byte chunks: data lines joined by LF; comments (heartbeats; each
    given to `comment`, without its colon), other fields and a message cut off at the end skipped. Lines end in LF,
    CRLF or CR. Over a cap: too-large."""
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    buffer = ""
    message_id, data, size = None, [], 0
    skip_lf = False
    for chunk in chunks:
        buffer += decoder.decode(chunk)
        if skip_lf and buffer.startswith("\n"):
            buffer = buffer[1:]
        skip_lf = False
        while True:
            match = re.search(r"[\r\n]", buffer)
            if not match:
                break
            end = match.start()
            if end == len(buffer) - 1 and buffer[end] == "\r":
                skip_lf = True
            line = buffer[:end]
            buffer = buffer[end + (2 if buffer.startswith("\r\n", end) else 1):]
            if len(line) > max_line:
                raise ClientError("too-large", where, "an event stream line is over %d characters" % max_line)
            if line == "":
                if data:
                    yield message_id, "\n".join(data)
                message_id, data, size = None, [], 0
                continue
            field, colon, value = line.partition(":")
            if colon and value.startswith(" "):
                value = value[1:]
            if colon and not field:
                if comment is not None:
                    comment(value)
            elif field == "id":
                message_id = value
            elif field == "data":
                size += len(value) + 1
                if size > max_event:
                    raise ClientError("too-large", where, "an event is over %d characters" % max_event)
                data.append(value)
        if len(buffer) > max_line:
            raise ClientError("too-large", where, "an event stream line is over %d characters" % max_line)
