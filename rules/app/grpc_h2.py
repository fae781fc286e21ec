"""A gRPC server of the policy pack's own: unary calls over HTTP/2, read and written by hand on one thread.

The Pulumi CLI calls the pack twice a resource (``Remediate``, then ``Analyze``), one call at a time. Through
grpcio's server each call wakes grpcio's poll thread and a worker of its pool: 0.35-0.88 ms of the
interpreter's CPU a call beyond the handler (benchmarks/README.md, preview32). This server reads the
client's frames, runs the call's handler and writes its answer on one thread, woken once a call (0.17-0.20 ms
a call, benchmarks/README.md, preview33). A call's constant parts are made once: the header block a client
sends again read from its bytes, the trailers of a status and its details encoded once (a refused method's),
an answer that fits the windows written as one DATA frame with its headers and trailers, in one ``sendall``.
The ``h2`` library did the same in 0.47-0.60 ms a call (its state machine and events); HPACK's Huffman code
and static table are ``hpack``'s (:class:`HeaderDecoder`).

It is a drop-in for what pulumi-policy does with ``grpc.server(...)`` (:class:`Server`:
``add_generic_rpc_handlers``, ``add_registered_method_handlers``, ``add_insecure_port``, ``start``, ``stop``),
and it serves the handlers grpcio's generated code registers (``unary_unary``, ``request_deserializer``,
``response_serializer``), so the pack's servicer answers the same bytes through it. What it does as grpcio does:

- gRPC framing: a request is one length-prefixed message (flag 0: no compression), in as many DATA frames as
  the client sends; the answer is the response headers, the message, then the trailers ``grpc-status`` (and
  ``grpc-message``, percent-encoded); an answer without a message is trailers only.
- A method no handler serves: ``UNIMPLEMENTED``, "Method not found!". A handler that raises: ``UNKNOWN``,
  "Exception calling application: ..." (logged), or the code and details it set on its context
  (``set_code``/``set_details``/``abort``: the generated servicer's "Method not implemented!", logged at debug
  level only: grpcio's logger prints nothing (a NullHandler), and this one's traceback, printed by Python's last
  resort handler, was shown by the CLI under the stack in every preview).
  A request it cannot read: ``INTERNAL``, "Exception deserializing request!"; a response it cannot
  write: ``INTERNAL``, "Failed to serialize response!"; a request over ``grpc.max_receive_message_length``:
  ``RESOURCE_EXHAUSTED``.
- HTTP/2 (RFC 9113) for one client: SETTINGS (the client's window and frame size), PING (its ACK written after
  the next answer's message, or within :data:`PING_ACK_HOLD`: grpc-go's client probes the bandwidth with a PING
  when an answer's DATA arrives and no probe is out, which otherwise wakes the server once more a call), flow
  control both ways (a 4 MiB receive window given back in WINDOW_UPDATEs; an answer larger than the client's
  window waits for its WINDOW_UPDATE), HEADERS with CONTINUATION, padding, several connections and interleaved streams
  (their calls served in turn, as each one ends). A stream the client resets, or a connection it closes,
  mid-call: the answer is dropped; the server keeps listening, as grpcio's does, until :meth:`Server.stop`.
  A client that breaks the protocol gets a GOAWAY and its connection is closed.

Handlers run on the serving thread, one at a time. It imports ``hpack`` and nothing of Pulumi or grpcio
(status codes are read from the ``grpc.StatusCode`` values handlers give: ``(number, name)``).
"""

from __future__ import annotations

import logging
import selectors
import socket
import threading
import time
from collections.abc import Iterable, Sequence
from typing import Any

import hpack.huffman_table  # noqa: F401 - what HeaderDecoder reads: the transport is usable where it imports

_LOGGER = logging.getLogger(__name__)

OK, UNKNOWN, RESOURCE_EXHAUSTED, UNIMPLEMENTED, INTERNAL = 0, 2, 8, 12, 13
#: grpcio's default limit of a received message (4 MiB); pulumi-policy sets its own (``_GRPC_CHANNEL_OPTIONS``)
DEFAULT_MAX_RECEIVE = 4 * 1024 * 1024
#: the receive window the server offers each stream and the connection (HTTP/2's default is 64 KiB - 1):
#: a request up to this size needs no WINDOW_UPDATE before it is whole
RECEIVE_WINDOW = 4 * 1024 * 1024
#: how long the ACK of a client's PING may wait for the next answer's message, after which it is written: a gRPC
#: client's bandwidth probe (grpc-go's BDP ping, sent when an answer's DATA arrives while no probe is out) then
#: comes every other answer, not after each one with a wake-up of its own (:meth:`_Connection.release`)
PING_ACK_HOLD = 0.5



def status_number(code: Any) -> int:
    """A status code as a number: a ``grpc.StatusCode`` (its value is ``(number, name)``) or an int."""
    value = getattr(code, "value", code)
    if isinstance(value, tuple):
        value = value[0]
    return int(value)


def encode_message(details: str | bytes) -> bytes:
    """``grpc-message`` as gRPC's HTTP/2 protocol writes it: UTF-8, percent-encoded outside printable ASCII and
    ``%``."""
    raw = details.encode("utf-8") if isinstance(details, str) else details
    return b"".join(bytes((b,)) if 0x20 <= b <= 0x7E and b != 0x25 else b"%%%02X" % b for b in raw)


class _Details:
    """What grpcio's generic handlers are asked (``grpc.HandlerCallDetails``)."""

    __slots__ = ("method", "invocation_metadata")

    def __init__(self, method: str, metadata: tuple[tuple[str, str], ...]) -> None:
        self.method = method
        self.invocation_metadata = metadata


class _Abort(Exception):
    """Raised by :meth:`_Context.abort`, as grpcio's context raises."""


class _Context:
    """The servicer context a handler gets (the parts of ``grpc.ServicerContext`` a unary handler uses)."""

    def __init__(self, metadata: tuple[tuple[str, str], ...], peer: str) -> None:
        self._metadata = metadata
        self._peer = peer
        self.status: int | None = None
        self.message: bytes | None = None
        self.aborted = False
        self.trailing: tuple[tuple[str, str], ...] = ()
        self.active = True
        self._callbacks: list[Any] | None = None
        self._code: Any = None

    def set_code(self, code: Any) -> None:
        self.status = status_number(code)
        self._code = code

    def code(self) -> Any:
        return self._code

    def set_details(self, details: str) -> None:
        self.message = details.encode("utf-8") if isinstance(details, str) else details

    def details(self) -> bytes | None:
        return self.message

    def abort(self, code: Any, details: str) -> None:
        number = status_number(code)
        if number == OK:  # grpcio: "abort() called with StatusCode.OK; returning UNKNOWN"
            number, details = UNKNOWN, ""
        self.status, self.message, self.aborted = number, details.encode("utf-8"), True
        raise _Abort()

    def abort_with_status(self, status: Any) -> None:
        self.trailing = tuple(status.trailing_metadata or ())
        self.abort(status.code, status.details)

    def set_trailing_metadata(self, metadata: Sequence[tuple[str, str]]) -> None:
        self.trailing = tuple(metadata)

    def invocation_metadata(self) -> tuple[tuple[str, str], ...]:
        return self._metadata

    def peer(self) -> str:
        return self._peer

    def is_active(self) -> bool:
        return self.active

    def time_remaining(self) -> float | None:
        return None

    def add_callback(self, callback: Any) -> bool:
        if self._callbacks is None:
            self._callbacks = []
        self._callbacks.append(callback)
        return True

    def cancel(self) -> None:
        self.active = False

    def send_initial_metadata(self, metadata: Sequence[tuple[str, str]]) -> None:  # noqa: ARG002 - sent with the answer
        return None

    def set_compression(self, compression: Any) -> None:  # noqa: ARG002 - answers are not compressed
        return None

    def disable_next_message_compression(self) -> None:
        return None


#: what one ``recv`` asks for: CPython allocates the whole size and then shrinks it to what came, and from 128 KiB
#: (glibc's mmap threshold) that is an mmap, an mremap and an munmap a call (1 MiB: 16 us against 2.5 us for a
#: 1.6 KB request; preview34); a request larger than this comes in a few reads
_RECV_SIZE = 64 * 1024
_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
#: HTTP/2 frame types and flags (RFC 9113 section 6)
(_DATA, _HEADERS, _PRIORITY, _RST_STREAM, _SETTINGS, _PUSH_PROMISE, _PING, _GOAWAY, _WINDOW_UPDATE,
 _CONTINUATION) = range(10)
_END_STREAM, _ACK, _END_HEADERS, _PADDED, _PRIORITY_FLAG = 0x1, 0x1, 0x4, 0x8, 0x20
_MAX_FRAME = 16384  # the frame size the server accepts (HTTP/2's default; it does not offer a larger one)
_PROTOCOL_ERROR, _FLOW_CONTROL_ERROR, _FRAME_SIZE_ERROR, _COMPRESSION_ERROR = 0x1, 0x3, 0x6, 0x9
#: the server's SETTINGS: MAX_CONCURRENT_STREAMS (0x3) 100, INITIAL_WINDOW_SIZE (0x4) RECEIVE_WINDOW
_SETTINGS_PAYLOAD = (3).to_bytes(2, "big") + (100).to_bytes(4, "big") + (4).to_bytes(2, "big") \
    + RECEIVE_WINDOW.to_bytes(4, "big")


def _frame(kind: int, flags: int, stream: int, payload: bytes = b"") -> bytes:
    return ((len(payload) << 48) | (kind << 40) | (flags << 32) | stream).to_bytes(9, "big") + payload


def _hpack_int(value: int, bits: int, first: int = 0) -> bytes:
    """An HPACK integer (RFC 7541 section 5.1) of an ``bits``-bit prefix, ``first`` the bits above it."""
    limit = (1 << bits) - 1
    if value < limit:
        return bytes((first | value,))
    out = bytearray((first | limit,))
    value -= limit
    while value >= 128:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _literal(name: bytes, value: bytes) -> bytes:
    """A header field as a literal without indexing, of a new name, neither string Huffman-coded."""
    return b"\x00" + _hpack_int(len(name), 7) + name + _hpack_int(len(value), 7) + value


#: ``:status: 200`` (static index 8), ``content-type: application/grpc`` (a literal of static name 31)
_RESPONSE_BLOCK = b"\x88" + _hpack_int(31, 4) + _hpack_int(16, 7) + b"application/grpc"


class HpackError(Exception):
    """A header block the decoder cannot read (a COMPRESSION_ERROR of the connection)."""


class HeaderDecoder:
    """HPACK's decoder (RFC 7541): the static and dynamic tables, integers, Huffman-coded strings (``hpack``'s
    table). A block that neither adds to nor resizes the dynamic table (what a client sends for a call it
    has sent before) is decoded once while the table stays as it is."""

    def __init__(self, max_size: int = 4096) -> None:
        from hpack.huffman_table import decode_huffman
        from hpack.table import HeaderTable

        self._static: tuple[tuple[bytes, bytes], ...] = tuple(HeaderTable.STATIC_TABLE)
        self._huffman = decode_huffman
        self._dynamic: list[tuple[bytes, bytes]] = []  # newest first
        self._size = 0
        self._max_size = self._limit = max_size
        #: blocks decoded while the table is as it is (each one leaves it so): decoded again from here
        self.known: dict[bytes, list[tuple[bytes, bytes]]] = {}

    def decode(self, block: bytes) -> list[tuple[bytes, bytes]]:
        known = self.known.get(block)
        if known is not None:
            return known
        out: list[tuple[bytes, bytes]] = []
        changed = False
        i, n = 0, len(block)
        while i < n:
            b = block[i]
            if b & 0x80:  # indexed
                index, i = self._int(block, i, 7)
                out.append(self._entry(index))
            elif b & 0x40:  # literal with incremental indexing
                name, value, i = self._field(block, i, 6)
                out.append((name, value))
                self._add(name, value)
                changed = True
            elif b & 0x20:  # dynamic table size update
                size, i = self._int(block, i, 5)
                if size > self._limit:
                    raise HpackError(f"table size {size} over {self._limit}")
                self._max_size = size
                self._evict()
                changed = True
            else:  # literal without indexing, or never indexed
                name, value, i = self._field(block, i, 4)
                out.append((name, value))
        if changed:
            self.known.clear()
        elif len(self.known) < 256:
            self.known[block] = out
        return out

    def _int(self, data: bytes, i: int, bits: int) -> tuple[int, int]:
        limit = (1 << bits) - 1
        value = data[i] & limit
        i += 1
        if value < limit:
            return value, i
        shift = 0
        while True:
            if i >= len(data) or shift > 28:
                raise HpackError("an integer runs past the block")
            b = data[i]
            i += 1
            value += (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                return value, i

    def _string(self, data: bytes, i: int) -> tuple[bytes, int]:
        huffman = data[i] & 0x80
        length, i = self._int(data, i, 7)
        if i + length > len(data):
            raise HpackError("a string runs past the block")
        raw = data[i:i + length]
        try:
            return (self._huffman(raw) if huffman else raw), i + length
        except Exception as exc:
            raise HpackError(f"bad Huffman code: {exc}") from exc

    def _field(self, data: bytes, i: int, bits: int) -> tuple[bytes, bytes, int]:
        index, i = self._int(data, i, bits)
        if index:
            name = self._entry(index)[0]
        else:
            name, i = self._string(data, i)
        value, i = self._string(data, i)
        return name, value, i

    def _entry(self, index: int) -> tuple[bytes, bytes]:
        if 0 < index <= len(self._static):
            return self._static[index - 1]
        index -= len(self._static) + 1
        if 0 <= index < len(self._dynamic):
            return self._dynamic[index]
        raise HpackError(f"no table entry {index}")

    def _add(self, name: bytes, value: bytes) -> None:
        size = 32 + len(name) + len(value)
        if size > self._max_size:
            self._dynamic.clear()
            self._size = 0
            return
        self._dynamic.insert(0, (name, value))
        self._size += size
        self._evict()

    def _evict(self) -> None:
        while self._size > self._max_size and self._dynamic:
            name, value = self._dynamic.pop()
            self._size -= 32 + len(name) + len(value)


def _call_of(headers: list[tuple[bytes, bytes]]) -> tuple[str, tuple[tuple[str, Any], ...]]:
    """A request's method (``:path``) and metadata (its headers but the pseudo-headers and gRPC's own)."""
    method = ""
    metadata: list[tuple[str, Any]] = []
    for name, value in headers:
        if name == b":path":
            method = value.decode("utf-8", "replace")
        elif name[:1] != b":" and name not in (b"content-type", b"te", b"grpc-timeout", b"grpc-encoding",
                                               b"grpc-accept-encoding"):
            metadata.append((name.decode("ascii", "replace"),
                             value if name.endswith(b"-bin") else value.decode("utf-8", "replace")))
    return method, tuple(metadata)


class _Stream:
    __slots__ = ("method", "metadata", "chunks", "window", "unacked", "ended")

    def __init__(self, window: int) -> None:
        self.method = ""
        self.metadata: tuple[tuple[str, Any], ...] = ()
        self.chunks: list[bytes] = []
        self.window = window  # what the server may still send on it
        self.unacked = 0  # received and not yet given back in a WINDOW_UPDATE
        self.ended = False


class _ProtocolError(Exception):
    def __init__(self, code: int, why: str) -> None:
        super().__init__(why)
        self.code = code


class _Connection:
    """One client connection: HTTP/2 read and written by hand, its open streams, the answers waiting for window."""

    def __init__(self, server: Server, sock: socket.socket, peer: str) -> None:
        self.server = server
        self.sock = sock
        self.peer = peer
        self.buffer = b""  # the start of a frame not read whole yet
        self.preface = False
        self.decoder = HeaderDecoder()
        #: a header block the decoder knows -> the call's method and metadata (:func:`_call_of`)
        self.calls: dict[bytes, tuple[str, tuple[tuple[str, Any], ...]]] = {}
        self.streams: dict[int, _Stream] = {}
        self.pending: dict[int, list[Any]] = {}  # stream -> [data left to send, trailers block]
        self.headers: tuple[int, int, bytearray] | None = None  # a header block waiting for its CONTINUATION
        self.window = 65535  # what the server may still send on the connection
        self.peer_window = 65535  # the client's INITIAL_WINDOW_SIZE
        self.peer_frame = 16384  # the client's MAX_FRAME_SIZE
        self.unacked = 0
        self.last_stream = 0
        self.held_ack: bytes | None = None  # a PING's ACK frame, written after the next answer's message
        self.held_since = 0.0
        self.data_out = False  # a DATA frame is among the frames not written yet
        self.out = bytearray(_frame(_SETTINGS, 0, 0, _SETTINGS_PAYLOAD)
                             + _frame(_WINDOW_UPDATE, 0, 0, (RECEIVE_WINDOW - 65535).to_bytes(4, "big")))
        self.flush()

    def flush(self) -> None:
        """Write what the frames read so far answer, in one ``sendall``; a held PING ACK after an answer's message
        (:meth:`release`)."""
        out = self.out
        if self.data_out:
            self.data_out = False
            if self.held_ack is not None:
                out += self.held_ack
                self.held_ack = None
                self.server.holding.discard(self)
        if out:
            try:
                self.sock.sendall(out)
            finally:
                out.clear()

    def release(self) -> None:
        """Write the held PING ACK now (no answer's message came within :data:`PING_ACK_HOLD` seconds)."""
        self.server.holding.discard(self)
        if self.held_ack is not None:
            self.out += self.held_ack
            self.held_ack = None
            self.flush()

    def receive(self, data: bytes) -> None:
        """Read what the client sent; the answers of the calls it completes are written before it returns.
        Raises :class:`_ProtocolError` (after writing a GOAWAY) where the client broke the protocol."""
        buffer = self.buffer + data if self.buffer else bytes(data)
        pos = 0
        try:
            if not self.preface:
                if len(buffer) < 24:
                    return
                if buffer[:24] != _PREFACE:
                    raise _ProtocolError(_PROTOCOL_ERROR, "not an HTTP/2 client preface")
                self.preface = True
                pos = 24
            end = len(buffer)
            while end - pos >= 9:
                head = int.from_bytes(buffer[pos:pos + 9], "big")  # length (24 bits), type, flags, stream (32)
                length = head >> 48
                if length > _MAX_FRAME:
                    raise _ProtocolError(_FRAME_SIZE_ERROR, f"a frame of {length} bytes")
                if end - pos - 9 < length:
                    break
                start, pos = pos + 9, pos + 9 + length
                self._frame((head >> 40) & 0xFF, (head >> 32) & 0xFF, head & 0x7FFFFFFF, buffer[start:pos])
        except _ProtocolError as exc:
            self.out += _frame(_GOAWAY, 0, 0, self.last_stream.to_bytes(4, "big") + exc.code.to_bytes(4, "big"))
            self.flush()
            raise
        finally:
            self.buffer = buffer[pos:]
        self.flush()

    def _frame(self, kind: int, flags: int, stream: int, payload: bytes) -> None:
        if self.headers is not None and kind != _CONTINUATION:
            raise _ProtocolError(_PROTOCOL_ERROR, "a frame between HEADERS and its CONTINUATION")
        if kind == _DATA:
            self._data(flags, stream, payload)
        elif kind == _HEADERS:
            if flags & _PADDED:
                payload = payload[1:len(payload) - payload[0]]
            if flags & _PRIORITY_FLAG:
                payload = payload[5:]
            if flags & _END_HEADERS:
                self._request(stream, flags, payload)
            else:
                self.headers = (stream, flags, bytearray(payload))
        elif kind == _CONTINUATION:
            if self.headers is None or self.headers[0] != stream:
                raise _ProtocolError(_PROTOCOL_ERROR, "a CONTINUATION of no HEADERS")
            self.headers[2].extend(payload)
            if flags & _END_HEADERS:
                first, first_flags, block = self.headers
                self.headers = None
                self._request(first, first_flags, bytes(block))
        elif kind == _SETTINGS:
            if not flags & _ACK:
                self._settings(payload)
                self.out += _frame(_SETTINGS, _ACK, 0)
        elif kind == _WINDOW_UPDATE:
            increment = int.from_bytes(payload[:4], "big") & 0x7FFFFFFF
            if stream == 0:
                self.window += increment
            elif stream in self.streams:
                self.streams[stream].window += increment
            if self.pending:
                self._send_pending()
        elif kind == _PING:
            if not flags & _ACK:
                ack = _frame(_PING, _ACK, 0, payload)
                if self.held_ack is not None:  # one held at a time: both written, in turn
                    self.out += self.held_ack + ack
                    self.held_ack = None
                    self.server.holding.discard(self)
                elif self.data_out:  # an answer's message is among this read's answers: the ACK after it
                    self.out += ack
                else:
                    self.held_ack, self.held_since = ack, time.monotonic()
                    self.server.holding.add(self)
        elif kind == _RST_STREAM:
            self.streams.pop(stream, None)
            self.pending.pop(stream, None)
        elif kind == _GOAWAY:
            pass  # the client sends no new call; those it sent are answered
        elif kind == _PUSH_PROMISE:
            raise _ProtocolError(_PROTOCOL_ERROR, "a client's PUSH_PROMISE")
        # PRIORITY and frame types the server does not know are ignored (RFC 9113 section 5.5)

    def _settings(self, payload: bytes) -> None:
        for at in range(0, len(payload) - 5, 6):
            key, value = int.from_bytes(payload[at:at + 2], "big"), int.from_bytes(payload[at + 2:at + 6], "big")
            if key == 0x4:
                if value > 0x7FFFFFFF:
                    raise _ProtocolError(_FLOW_CONTROL_ERROR, "INITIAL_WINDOW_SIZE over 2^31-1")
                delta, self.peer_window = value - self.peer_window, value
                for s in self.streams.values():
                    s.window += delta
            elif key == 0x5:
                self.peer_frame = value
        if self.pending:
            self._send_pending()

    def _request(self, stream_id: int, flags: int, block: bytes) -> None:
        decoder = self.decoder
        call = self.calls.get(block)
        if call is None or block not in decoder.known:  # (a block known to the decoder leaves its table as it is)
            try:
                headers = decoder.decode(block)
            except HpackError as exc:
                raise _ProtocolError(_COMPRESSION_ERROR, str(exc)) from exc
            call = _call_of(headers)
            if block in decoder.known:
                if len(self.calls) >= 256:
                    self.calls.clear()
                self.calls[block] = call
        stream = self.streams.get(stream_id)
        if stream is None:  # a new call
            if stream_id <= self.last_stream or not stream_id & 1:
                raise _ProtocolError(_PROTOCOL_ERROR, f"stream {stream_id} is not a new one")
            self.last_stream = stream_id
            stream = self.streams[stream_id] = _Stream(self.peer_window)
            stream.method, stream.metadata = call
        if flags & _END_STREAM:  # (a client's trailers end its stream too)
            self._ended(stream_id, stream)

    def _data(self, flags: int, stream_id: int, payload: bytes) -> None:
        length = len(payload)
        self.unacked += length
        if self.unacked >= RECEIVE_WINDOW // 2:
            self.out += _frame(_WINDOW_UPDATE, 0, 0, self.unacked.to_bytes(4, "big"))
            self.unacked = 0
        stream = self.streams.get(stream_id)
        if stream is None or stream.ended:
            return  # a stream reset or answered: its data counts for the connection only
        if flags & _PADDED:
            payload = payload[1:len(payload) - payload[0]] if payload else payload
        if payload:
            stream.chunks.append(payload)
        if flags & _END_STREAM:
            self._ended(stream_id, stream)
            return
        stream.unacked += length
        if stream.unacked >= RECEIVE_WINDOW // 2:
            self.out += _frame(_WINDOW_UPDATE, 0, stream_id, stream.unacked.to_bytes(4, "big"))
            stream.unacked = 0

    def _ended(self, stream_id: int, stream: _Stream) -> None:
        stream.ended = True
        message, status, details, trailing = self.server.call(stream, self.peer)
        if self.streams.get(stream_id) is not stream:
            return  # reset by the client meanwhile
        trailers = _status_trailers(status, details, trailing)
        if message is None:
            del self.streams[stream_id]
            self._headers(stream_id, _END_STREAM, _RESPONSE_BLOCK + trailers)
            return
        self._headers(stream_id, 0, _RESPONSE_BLOCK)
        size = len(message) + 5
        if size <= self.window and size <= stream.window and size <= self.peer_frame:
            # the message in one DATA frame, as _send_pending would write it, and the trailers
            out = self.out
            out += ((size << 48) | (_DATA << 40) | stream_id).to_bytes(9, "big")  # the frame's header
            out += len(message).to_bytes(5, "big")  # gRPC's prefix: not compressed, the length
            out += message
            self.data_out = True
            self.window -= size
            stream.window -= size
            del self.streams[stream_id]
            self._headers(stream_id, _END_STREAM, trailers)
            return
        self.pending[stream_id] = [memoryview(len(message).to_bytes(5, "big") + message), trailers]
        self._send_pending(stream_id)

    def _headers(self, stream_id: int, flags: int, block: bytes) -> None:
        size = self.peer_frame
        if len(block) <= size:
            self.out += _frame(_HEADERS, flags | _END_HEADERS, stream_id, block)
            return
        self.out += _frame(_HEADERS, flags, stream_id, block[:size])
        for at in range(size, len(block), size):
            last = at + size >= len(block)
            self.out += _frame(_CONTINUATION, _END_HEADERS if last else 0, stream_id, block[at:at + size])

    def _send_pending(self, only: int | None = None) -> None:
        for stream_id in ([only] if only is not None else list(self.pending)):
            entry = self.pending.get(stream_id)
            stream = self.streams.get(stream_id)
            if entry is None or stream is None:
                self.pending.pop(stream_id, None)
                continue
            data = entry[0]
            while data:
                size = min(len(data), self.window, stream.window, self.peer_frame)
                if size <= 0:
                    break
                self.out += _frame(_DATA, 0, stream_id, data[:size].tobytes())
                self.data_out = True
                self.window -= size
                stream.window -= size
                data = data[size:]
            entry[0] = data
            if not data:
                del self.pending[stream_id]
                del self.streams[stream_id]
                self._headers(stream_id, _END_STREAM, entry[1])


def _status_trailers(status: int, details: bytes | None, trailing: Iterable[tuple[str, Any]]) -> bytes:
    """The trailers' header block: ``grpc-status``, ``grpc-message`` where there are details, then the trailing
    metadata the handler set. Without trailing metadata the block is kept by status and details (a refused
    method's, a failing handler's): each one is encoded once."""
    if not trailing:
        key = (status, details)
        block = _TRAILERS.get(key)
        if block is None:
            block = _trailers_block(status, details, ())
            if len(_TRAILERS) < 64:
                _TRAILERS[key] = block
        return block
    return _trailers_block(status, details, trailing)


def _trailers_block(status: int, details: bytes | None, trailing: Iterable[tuple[str, Any]]) -> bytes:
    out = _literal(b"grpc-status", str(status).encode("ascii"))
    if details:
        out += _literal(b"grpc-message", encode_message(details))
    for name, value in trailing:
        out += _literal(name.encode("ascii"), value if isinstance(value, bytes) else str(value).encode("utf-8"))
    return out


#: trailers blocks without trailing metadata, by ``(status, details)`` (:func:`_status_trailers`)
_TRAILERS: dict[tuple[int, bytes | None], bytes] = {}


class Server:
    """The server pulumi-policy asks ``grpc.server(...)`` for; see the module's docstring."""

    def __init__(self, options: Sequence[tuple[str, Any]] | None = None) -> None:
        self._generic: list[Any] = []
        self._registered: dict[str, Any] = {}
        self._max_receive = DEFAULT_MAX_RECEIVE
        for name, value in options or ():
            if name == "grpc.max_receive_message_length":
                self._max_receive = int(value) if int(value) >= 0 else 1 << 62
        self._listeners: list[socket.socket] = []
        self._selector = selectors.DefaultSelector()
        self._thread: threading.Thread | None = None
        self.holding: set[_Connection] = set()  # the connections holding a PING ACK (_Connection.held_ack)
        self._stopped = False
        self._wake_r, self._wake_w = socket.socketpair()

    # --- what grpc.Server offers ---------------------------------------------------------------------------

    def add_generic_rpc_handlers(self, handlers: Iterable[Any]) -> None:
        self._generic.extend(handlers)

    def add_registered_method_handlers(self, service: str, handlers: dict[str, Any]) -> None:
        for method, handler in handlers.items():
            self._registered[f"/{service}/{method}"] = handler

    def add_insecure_port(self, address: str) -> int:
        host, _, port = address.rpartition(":")
        host = host.strip("[]") or "127.0.0.1"
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, int(port)))
        sock.listen(16)
        sock.setblocking(False)
        self._listeners.append(sock)
        return int(sock.getsockname()[1])

    def start(self) -> None:
        for sock in self._listeners:
            self._selector.register(sock, selectors.EVENT_READ, None)
        self._selector.register(self._wake_r, selectors.EVENT_READ, "wake")
        self._thread = threading.Thread(target=self._serve, name="shardwise-grpc-h2", daemon=True)
        self._thread.start()

    def stop(self, grace: float | None = None) -> threading.Event:  # noqa: ARG002 - calls are served in turn
        self._stopped = True
        try:
            self._wake_w.send(b"x")
        except OSError:
            pass
        done = threading.Event()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(5)
        done.set()
        return done

    def wait_for_termination(self, timeout: float | None = None) -> bool:
        if self._thread is not None:
            self._thread.join(timeout)
        return self._thread is None or not self._thread.is_alive()

    # --- serving -----------------------------------------------------------------------------------------

    def _serve(self) -> None:
        selector = self._selector
        try:
            holding = self.holding
            while not self._stopped:
                for key, _ in selector.select(PING_ACK_HOLD if holding else None):
                    data = key.data
                    if data is None:
                        self._accept(key.fileobj)
                    elif data == "wake":
                        continue
                    else:
                        self._read(data)
                if holding:
                    now = time.monotonic()
                    for connection in [c for c in holding if now - c.held_since >= PING_ACK_HOLD]:
                        try:
                            connection.release()
                        except OSError:
                            self._close(connection)
        finally:
            for key in list(selector.get_map().values()):
                try:
                    key.fileobj.close()  # type: ignore[union-attr]
                except OSError:
                    pass
            selector.close()
            self._wake_w.close()

    def _accept(self, listener: Any) -> None:
        try:
            sock, peer = listener.accept()
        except (BlockingIOError, InterruptedError):
            return
        sock.setblocking(True)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        name = f"ipv4:{peer[0]}:{peer[1]}" if sock.family == socket.AF_INET else f"ipv6:[{peer[0]}]:{peer[1]}"
        try:
            connection = _Connection(self, sock, name)
        except OSError:
            sock.close()
            return
        self._selector.register(sock, selectors.EVENT_READ, connection)

    def _read(self, connection: _Connection) -> None:
        try:
            data = connection.sock.recv(_RECV_SIZE)
        except (ConnectionError, OSError):
            data = b""
        if data:
            try:
                connection.receive(data)
                return
            except (_ProtocolError, ConnectionError, OSError) as exc:
                _LOGGER.debug("closing a connection: %s", exc)
            except Exception:  # noqa: BLE001 - a frame this server misreads closes its connection, not the server
                _LOGGER.exception("closing a connection after an error reading it")
        self._close(connection)

    def _close(self, connection: _Connection) -> None:
        self.holding.discard(connection)
        self._selector.unregister(connection.sock)
        connection.sock.close()

    def handler(self, method: str, metadata: tuple[tuple[str, str], ...]) -> Any:
        """The method handler serving ``method`` (registered first, then the generic handlers in turn), or
        ``None``."""
        handler = self._registered.get(method)
        if handler is not None:
            return handler
        details = _Details(method, metadata)
        for generic in self._generic:
            handler = generic.service(details)
            if handler is not None:
                return handler
        return None

    def call(self, stream: _Stream, peer: str) -> tuple[bytes | None, int, bytes | None, tuple[tuple[str, Any], ...]]:
        """One unary call: ``(message or None, status, details, trailing metadata)``."""
        handler = self.handler(stream.method, stream.metadata)
        behavior = getattr(handler, "unary_unary", None) if handler is not None else None
        if behavior is None:
            return None, UNIMPLEMENTED, b"Method not found!", ()
        body = stream.chunks[0] if len(stream.chunks) == 1 else b"".join(stream.chunks)
        if len(body) < 5 or body[0] != 0 or int.from_bytes(body[1:5], "big") != len(body) - 5:
            if len(body) >= 5 and body[0] != 0:
                return None, UNIMPLEMENTED, b"Compressed messages are not supported", ()
            return None, INTERNAL, b"Exception deserializing request!", ()
        if len(body) - 5 > self._max_receive:
            return None, RESOURCE_EXHAUSTED, b"Received message larger than max (%d vs. %d)" % (
                len(body) - 5, self._max_receive), ()
        payload = body[5:]
        deserialize = handler.request_deserializer
        try:
            request = deserialize(payload) if deserialize is not None else payload
        except Exception:  # noqa: BLE001 - grpcio answers INTERNAL
            _LOGGER.exception("Exception deserializing request!")
            return None, INTERNAL, b"Exception deserializing request!", ()
        context = _Context(stream.metadata, peer)
        try:
            response = behavior(request, context)
        except Exception as exc:  # noqa: BLE001 - the call fails, the server goes on
            if context.aborted:
                return None, context.status or UNKNOWN, context.message, context.trailing
            try:
                details = f"Exception calling application: {exc}"
            except Exception:  # noqa: BLE001
                details = "Calling application raised unprintable Exception!"
            if isinstance(exc, NotImplementedError) and context.status == UNIMPLEMENTED:
                # the generated servicer's refusal of a method it leaves out (pulumi-policy's Handshake and
                # Cancel, which the CLI calls in every preview): an answer, not a failure. grpcio logs it to
                # its "grpc" logger, which has a NullHandler, so nothing is printed; this module's logger has
                # no handler, so Python's last resort printed the traceback to stderr and the CLI showed it
                # under the stack in every preview
                _LOGGER.debug(details)
            else:
                _LOGGER.exception(details)
            status = context.status if context.status is not None else UNKNOWN
            return None, status, context.message if context.message is not None else details.encode("utf-8"), \
                context.trailing
        serialize = handler.response_serializer
        try:
            message = serialize(response) if serialize is not None else response
        except Exception:  # noqa: BLE001 - grpcio answers INTERNAL
            _LOGGER.exception("Failed to serialize response!")
            return None, INTERNAL, b"Failed to serialize response!", ()
        status = context.status if context.status is not None else OK
        return bytes(message), status, context.message, context.trailing
