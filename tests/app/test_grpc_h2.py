"""The pack's own gRPC transport (:mod:`shardwise.rules.app.grpc_h2`), on its own.

Each test that a grpcio client can drive runs against grpcio's server too, with the same handlers and the
same expected answers: what the pack's transport answers is what grpcio's answers. The HTTP/2 shapes a
grpcio client does not choose (a message split across DATA frames, interleaved streams, a small receive
window, a reset or a closed connection mid-call) are written by a raw ``h2`` client.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from concurrent import futures
from typing import Any

import grpc
import h2.config
import h2.connection
import h2.events
import h2.settings
import pytest
from shardwise.rules.app import grpc_h2

SERVICE = "test.Echo"
BIG = 9 * 1024 * 1024  # over the server's receive window (grpc_h2.RECEIVE_WINDOW) and grpcio's default limit
LIMITS = [("grpc.max_receive_message_length", 16 * 1024 * 1024), ("grpc.max_send_message_length", 16 * 1024 * 1024)]


class Handlers:
    def __init__(self) -> None:
        self.started = threading.Event()
        self.gate = threading.Event()

    def echo(self, request: bytes, context: Any) -> bytes:
        return request

    def sized(self, request: bytes, context: Any) -> bytes:
        return bytes(i % 251 for i in range(int(request)))

    def boom(self, request: bytes, context: Any) -> bytes:
        raise ValueError("boom")

    def unimplemented(self, request: bytes, context: Any) -> bytes:  # what grpcio's generated servicer does
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details("Method not implemented!")
        raise NotImplementedError("Method not implemented!")

    def aborts(self, request: bytes, context: Any) -> bytes:
        context.abort(grpc.StatusCode.INVALID_ARGUMENT, "bad 100% ünïcode\nline")
        return b""

    def waits(self, request: bytes, context: Any) -> bytes:
        self.started.set()
        self.gate.wait(30)
        return b"late"


def _generic(handlers: Handlers) -> Any:
    names = ("echo", "sized", "boom", "unimplemented", "aborts", "waits")
    return grpc.method_handlers_generic_handler(
        SERVICE, {n: grpc.unary_unary_rpc_method_handler(getattr(handlers, n)) for n in names})


def _start(kind: str, handlers: Handlers) -> tuple[Any, int]:
    server: Any = grpc_h2.Server(LIMITS) if kind == "h2" else grpc.server(
        futures.ThreadPoolExecutor(max_workers=2), options=LIMITS)
    server.add_generic_rpc_handlers((_generic(handlers),))
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    return server, port


@pytest.fixture(params=["h2", "grpcio"])
def served(request) -> Iterator[tuple[str, Handlers, int]]:
    handlers = Handlers()
    server, port = _start(request.param, handlers)
    try:
        yield request.param, handlers, port
    finally:
        handlers.gate.set()
        server.stop(0)


@pytest.fixture
def own() -> Iterator[tuple[Handlers, int]]:
    handlers = Handlers()
    server, port = _start("h2", handlers)
    try:
        yield handlers, port
    finally:
        handlers.gate.set()
        server.stop(0)


def _channel(port: int) -> grpc.Channel:
    return grpc.insecure_channel(f"127.0.0.1:{port}", options=LIMITS)


def _call(channel: grpc.Channel, method: str, request: bytes, timeout: float = 30) -> bytes:
    answer: bytes = channel.unary_unary(f"/{SERVICE}/{method}")(request, timeout=timeout)
    return answer


def _failure(channel: grpc.Channel, path: str) -> tuple[grpc.StatusCode, str]:
    with pytest.raises(grpc.RpcError) as e:
        channel.unary_unary(path)(b"x", timeout=30)
    return e.value.code(), e.value.details()


# --- through a grpcio client: the same answers from both servers ---------------------------------------------


def test_several_calls_on_one_connection(served):
    _, _, port = served
    with _channel(port) as channel:
        answers = [_call(channel, "echo", b"call %d" % i) for i in range(200)]
        assert answers == [b"call %d" % i for i in range(200)]
        assert _call(channel, "echo", b"") == b""


def test_concurrent_calls_from_threads_get_their_own_answers(served):
    _, _, port = served
    with _channel(port) as channel, futures.ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(lambda i: _call(channel, "echo", b"%d" % i * (i + 1)), range(64)))
    assert answers == [b"%d" % i * (i + 1) for i in range(64)]


def test_messages_larger_than_the_flow_control_windows_both_ways(served):
    _, _, port = served
    request = bytes(i % 253 for i in range(BIG))
    with _channel(port) as channel:
        assert _call(channel, "echo", request) == request
        assert _call(channel, "sized", str(BIG).encode()) == bytes(i % 251 for i in range(BIG))


def test_an_unknown_method_is_unimplemented(served):
    _, _, port = served
    with _channel(port) as channel:
        assert _failure(channel, "/test.Echo/Nope") == (grpc.StatusCode.UNIMPLEMENTED, "Method not found!")
        assert _failure(channel, "/other.Service/echo") == (grpc.StatusCode.UNIMPLEMENTED, "Method not found!")
        assert _call(channel, "echo", b"after") == b"after"


def test_a_handlers_failure_is_answered_as_grpcio_answers_it(served):
    _, _, port = served
    with _channel(port) as channel:
        assert _failure(channel, f"/{SERVICE}/boom") == (grpc.StatusCode.UNKNOWN,
                                                         "Exception calling application: boom")
        assert _failure(channel, f"/{SERVICE}/unimplemented") == (grpc.StatusCode.UNIMPLEMENTED,
                                                                  "Method not implemented!")
        assert _failure(channel, f"/{SERVICE}/aborts") == (grpc.StatusCode.INVALID_ARGUMENT,
                                                           "bad 100% ünïcode\nline")
        assert _call(channel, "echo", b"still serving") == b"still serving"


def test_the_generated_servicers_refusal_is_not_logged_as_an_error_but_a_failure_is(own, caplog):
    """pulumi-policy's servicer leaves ``Handshake`` and ``Cancel`` to the generated base class, which sets
    UNIMPLEMENTED and raises NotImplementedError; the CLI calls both in every preview and showed the traceback
    this module logged (Python's last-resort handler printed it; grpcio's logger has a NullHandler) under the
    stack ("Exception calling application: Method not implemented!", four times in a preview of one component,
    adopt17). That refusal is answered as grpcio answers it and logged at debug level; a handler that fails is
    still logged with its traceback."""
    _, port = own
    caplog.set_level("DEBUG", logger=grpc_h2.__name__)
    with _channel(port) as channel:
        assert _failure(channel, f"/{SERVICE}/unimplemented") == (grpc.StatusCode.UNIMPLEMENTED,
                                                                  "Method not implemented!")
        assert _call(channel, "echo", b"x") == b"x"
        refused = [(r.levelname, r.getMessage(), r.exc_info is not None) for r in caplog.records
                   if r.name == grpc_h2.__name__]
        assert refused == [("DEBUG", "Exception calling application: Method not implemented!", False)]
        caplog.clear()
        assert _failure(channel, f"/{SERVICE}/boom") == (grpc.StatusCode.UNKNOWN,
                                                         "Exception calling application: boom")
        assert _call(channel, "echo", b"y") == b"y"
        failed = [(r.levelname, r.getMessage(), r.exc_info is not None) for r in caplog.records
                  if r.name == grpc_h2.__name__]
        assert failed == [("ERROR", "Exception calling application: boom", True)]


# --- through a raw HTTP/2 client: shapes of frames ----------------------------------------------------------


def _frame(message: bytes) -> bytes:
    return b"\x00" + len(message).to_bytes(4, "big") + message


class RawClient:
    """An HTTP/2 client written with ``h2``: it sends what it is told, frame by frame, and reads the answers of
    each stream (headers, data, trailers), acknowledging the data it reads."""

    def __init__(self, port: int, window: int | None = None) -> None:
        self.conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
        if window is not None:
            self.conn.local_settings = h2.settings.Settings(client=True, initial_values={
                h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: window})
        self.conn.initiate_connection()
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=30)
        self.answers: dict[int, dict[str, Any]] = {}
        self.order: list[tuple[str, Any]] = []  # what was read, in turn: ("data", stream), ("ping-ack", payload)
        self.flush()

    def flush(self) -> None:
        out = self.conn.data_to_send()
        if out:
            self.sock.sendall(out)

    def open(self, method: str) -> int:
        stream = self.conn.get_next_available_stream_id()
        self.conn.send_headers(stream, [(":method", "POST"), (":scheme", "http"), (":path", f"/{SERVICE}/{method}"),
                                        (":authority", "localhost"), ("content-type", "application/grpc"),
                                        ("te", "trailers")])
        self.answers[stream] = {"headers": None, "data": bytearray(), "trailers": None, "ended": False}
        self.flush()
        return stream

    def send(self, stream: int, data: bytes, end: bool = False) -> None:
        self.conn.send_data(stream, data, end_stream=end)
        self.flush()

    def read_until_ended(self, *streams: int) -> None:
        self.read_until(lambda: all(self.answers[s]["ended"] for s in streams))

    def read_until(self, done: Any) -> None:
        while not done():
            data = self.sock.recv(65536)
            assert data, "the server closed the connection"
            for event in self.conn.receive_data(data):
                if isinstance(event, h2.events.PingAckReceived):
                    self.order.append(("ping-ack", event.ping_data))
                elif isinstance(event, h2.events.ResponseReceived):
                    self.answers[event.stream_id]["headers"] = dict(event.headers)
                elif isinstance(event, h2.events.TrailersReceived):
                    self.answers[event.stream_id]["trailers"] = dict(event.headers)
                elif isinstance(event, h2.events.DataReceived):
                    self.order.append(("data", event.stream_id))
                    self.answers[event.stream_id]["data"] += event.data
                    self.conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
                elif isinstance(event, h2.events.StreamEnded):
                    self.answers[event.stream_id]["ended"] = True
            self.flush()

    def close(self) -> None:
        self.sock.close()


_OK = {":status": "200", "content-type": "application/grpc"}


def test_a_message_split_across_data_frames(own):
    _, port = own
    client = RawClient(port)
    body = _frame(b"split message " * 300)
    stream = client.open("echo")
    for start, end in ((0, 2), (2, 5), (5, 6), (6, 2000)):  # the 5-byte prefix itself in three frames
        client.send(stream, body[start:end])
    client.send(stream, body[2000:], end=True)
    client.read_until_ended(stream)
    answer = client.answers[stream]
    assert (answer["headers"], bytes(answer["data"]), answer["trailers"]) == (_OK, body, {"grpc-status": "0"})
    client.close()


def test_interleaved_streams_each_get_their_own_answer(own):
    _, port = own
    client = RawClient(port)
    streams = [client.open("echo") for _ in range(3)]
    bodies = {s: _frame(b"stream %d " % s * (100 * (i + 1))) for i, s in enumerate(streams)}
    for s in streams:
        client.send(s, bodies[s][:7])
    for s in reversed(streams):
        client.send(s, bodies[s][7:], end=True)
    client.read_until_ended(*streams)
    assert {s: (client.answers[s]["headers"], bytes(client.answers[s]["data"]), client.answers[s]["trailers"])
            for s in streams} == {s: (_OK, bodies[s], {"grpc-status": "0"}) for s in streams}
    client.close()


def test_an_answer_over_the_clients_window_waits_for_its_window_updates(own):
    """The client offers 1,000 bytes a stream: h2 fails the connection on any DATA past the window (a
    FlowControlError), so the answer arriving whole shows the server waited for each WINDOW_UPDATE."""
    _, port = own
    client = RawClient(port, window=1000)
    stream = client.open("sized")
    client.send(stream, _frame(b"50000"), end=True)
    client.read_until_ended(stream)
    answer = client.answers[stream]
    assert (answer["headers"], bytes(answer["data"]), answer["trailers"]) == (
        _OK, _frame(bytes(i % 251 for i in range(50000))), {"grpc-status": "0"})
    client.close()


def test_an_unknown_method_and_a_bad_frame_are_trailers_only(own):
    _, port = own
    client = RawClient(port)
    unknown = client.open("nope")
    client.send(unknown, _frame(b"x"), end=True)
    short = client.open("echo")
    client.send(short, b"\x00\x00\x00\x00\x09abc", end=True)  # says 9 bytes, holds 3
    compressed = client.open("echo")
    client.send(compressed, b"\x01\x00\x00\x00\x01x", end=True)
    client.read_until_ended(unknown, short, compressed)
    assert [(client.answers[s]["headers"], bytes(client.answers[s]["data"]), client.answers[s]["trailers"])
            for s in (unknown, short, compressed)] == [
        ({**_OK, "grpc-status": "12", "grpc-message": "Method not found!"}, b"", None),
        ({**_OK, "grpc-status": "13", "grpc-message": "Exception deserializing request!"}, b"", None),
        ({**_OK, "grpc-status": "12", "grpc-message": "Compressed messages are not supported"}, b"", None),
    ]
    client.close()


def test_a_pings_ack_is_written_after_the_next_answers_message(own):
    """grpc-go's client sends a bandwidth probe (a PING) when an answer's DATA arrives and none is out, so a PING
    acknowledged at once brings one after every answer, each a wake-up of the server of its own; acknowledged after
    the next answer's message, the probe that message would bring is not sent. Each PING is acknowledged, in turn.
    Each step's frames go in one write, so that the order read does not hang on how soon the server reads them."""
    _, port = own
    client = RawClient(port)

    def call(method: str, body: bytes) -> int:  # queued, not written
        stream = client.conn.get_next_available_stream_id()
        client.conn.send_headers(stream, [(":method", "POST"), (":scheme", "http"), (":path", f"/{SERVICE}/{method}"),
                                          (":authority", "localhost"), ("content-type", "application/grpc"),
                                          ("te", "trailers")])
        client.conn.send_data(stream, _frame(body), end_stream=True)
        client.answers[stream] = {"headers": None, "data": bytearray(), "trailers": None, "ended": False}
        return stream

    client.conn.ping(b"bdp-ping")
    stream = call("echo", b"answer")
    client.flush()
    client.read_until(lambda: len(client.order) == 2 and client.answers[stream]["ended"])
    assert client.order == [("data", stream), ("ping-ack", b"bdp-ping")]
    assert (bytes(client.answers[stream]["data"]), client.answers[stream]["trailers"]) == (
        _frame(b"answer"), {"grpc-status": "0"})
    # a refused call (no message) does not take it: the ACK waits for an answer with a message
    client.conn.ping(b"refused.")
    unknown, echo = call("nope", b"x"), call("echo", b"y")
    client.flush()
    client.read_until(lambda: len(client.order) == 4 and client.answers[unknown]["ended"])
    assert client.order[2:] == [("data", echo), ("ping-ack", b"refused.")]
    assert client.answers[unknown]["headers"]["grpc-status"] == "12"
    # two PINGs and no answer: both acknowledged, in turn (the second with the first); one alone, with no answer
    # to follow, within grpc_h2.PING_ACK_HOLD
    client.conn.ping(b"first...")
    client.conn.ping(b"second..")
    client.flush()
    client.read_until(lambda: len(client.order) == 6)
    client.conn.ping(b"alone...")
    client.flush()
    client.read_until(lambda: len(client.order) == 7)
    assert client.order[4:] == [("ping-ack", b"first..."), ("ping-ack", b"second.."), ("ping-ack", b"alone...")]
    client.close()


def test_a_stream_reset_mid_call_leaves_the_connection_serving(own):
    handlers, port = own
    client = RawClient(port)
    stream = client.open("waits")
    client.send(stream, _frame(b""), end=True)
    assert handlers.started.wait(30)
    client.conn.reset_stream(stream)
    client.flush()
    handlers.gate.set()
    after = client.open("echo")
    client.send(after, _frame(b"after the reset"), end=True)
    client.read_until_ended(after)
    assert (bytes(client.answers[after]["data"]), client.answers[after]["trailers"]) == (
        _frame(b"after the reset"), {"grpc-status": "0"})
    assert client.answers[stream]["ended"] is False
    client.close()


def test_the_client_closing_mid_call_leaves_the_server_serving(own):
    handlers, port = own
    client = RawClient(port)
    stream = client.open("waits")
    client.send(stream, _frame(b""), end=True)
    assert handlers.started.wait(30)
    client.close()
    handlers.gate.set()
    with _channel(port) as channel:
        assert _call(channel, "echo", b"next client") == b"next client"


def test_stop_ends_the_serving_thread():
    handlers = Handlers()
    server, port = _start("h2", handlers)
    with _channel(port) as channel:
        assert _call(channel, "echo", b"x") == b"x"
    server.stop(0)
    assert server.wait_for_termination(5) is True
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=5).recv(1)


def test_grpc_message_is_percent_encoded_as_grpc_writes_it():
    assert grpc_h2.encode_message("a b%c\né") == b"a b%25c%0A%C3%A9"
    assert grpc_h2.status_number(grpc.StatusCode.UNIMPLEMENTED) == 12
    assert grpc_h2.status_number(13) == 13


def test_the_header_decoder_reads_what_an_hpack_encoder_writes():
    """Huffman-coded strings, the dynamic table filled, evicted (a 256-byte table) and resized, blocks sent again
    once the table has changed: each block decodes to what was encoded (``hpack``'s encoder, as a client's)."""
    import hpack

    encoder, decoder = hpack.Encoder(), grpc_h2.HeaderDecoder()
    calls = [[(":method", "POST"), (":scheme", "http"), (":path", f"/pulumirpc.Analyzer/{m}"),
              (":authority", "127.0.0.1:40123"), ("content-type", "application/grpc"), ("te", "trailers"),
              ("user-agent", "grpc-go/1.72.0"), ("x-id", str(i))]
             for i, m in enumerate(["Remediate", "Analyze"] * 6 + ["AnalyzeStack"])]
    for i, headers in enumerate(calls):
        if i == 7:
            encoder.header_table_size = 256  # a size update in the next block, and evictions
        block = encoder.encode(headers)
        assert [(n.decode(), v.decode()) for n, v in decoder.decode(block)] == headers
        assert [(n.decode(), v.decode()) for n, v in decoder.decode(encoder.encode(headers))] == headers
    with pytest.raises(grpc_h2.HpackError):
        grpc_h2.HeaderDecoder().decode(b"\xff\x00")  # index 127 + 0: past both tables


def test_a_client_breaking_the_protocol_gets_a_goaway_and_the_server_goes_on(own):
    _, port = own
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    # the server's SETTINGS and WINDOW_UPDATE, then a GOAWAY (type 7) of PROTOCOL_ERROR (1), last stream 0
    assert data.endswith(b"\x00\x00\x08\x07\x00\x00\x00\x00\x00" + b"\x00\x00\x00\x00" + b"\x00\x00\x00\x01")
    with _channel(port) as channel:
        assert _call(channel, "echo", b"still here") == b"still here"
