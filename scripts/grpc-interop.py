#!/usr/bin/env python3
"""gRPC interop with Python grpcio, for examples/grpc/tests/interop.rs.

    grpc-interop.py client <port> <stubs dir>   runs the cases against our server on <port>
    grpc-interop.py server <stubs dir>          serves Echo; prints `PORT <n>`, then waits

<stubs dir> holds services_pb2.py and services_pb2_grpc.py (grpcio-tools, from
proto/test/services.proto). The client prints `ok <case>` per case and exits non-zero on the
first failure, naming it.
"""
import sys
import time
from concurrent import futures


def load(stubs):
    sys.path.insert(0, stubs)
    from test import services_pb2, services_pb2_grpc  # noqa: E402

    return services_pb2, services_pb2_grpc


def payload(pb, body, label="héllo"):
    p = pb.Payload(body=body, label=label)
    p.counts["a"] = -1
    p.counts["b"] = 2**63 - 1
    p.at.seconds = 1_700_000_000
    p.at.nanos = 5
    return p


def client(port, stubs):
    import grpc
    from google.protobuf import empty_pb2
    from grpc_health.v1 import health_pb2, health_pb2_grpc
    from grpc_reflection.v1alpha.proto_reflection_descriptor_database import (
        ProtoReflectionDescriptorDatabase,
    )

    pb, pb_grpc = load(stubs)
    target = f"127.0.0.1:{port}"
    channel = grpc.insecure_channel(target)
    stub = pb_grpc.EchoStub(channel)

    def case(name, f):
        try:
            f()
        except Exception as e:  # noqa: BLE001 - report any failure by case
            print(f"FAIL {name}: {type(e).__name__}: {e}", flush=True)
            sys.exit(1)
        print(f"ok {name}", flush=True)

    def empty_unary():
        assert stub.Ping(empty_pb2.Empty()) == empty_pb2.Empty()

    def large_unary():
        req = pb.EchoRequest(payload=pb.Payload(body=bytes(271_828)), response_size=314_159)
        resp = stub.Unary(req)
        assert resp.payload.body == bytes(314_159)

    def same_bytes():
        # The response's bytes are those Python's own protobuf writes for the same value
        # (no map: its order is free).
        p = pb.Payload(body=b"\x00\x01xyz", label="snow ☃")
        p.at.seconds = -62_135_596_800
        raw = channel.unary_unary(
            "/vt.test.services.Echo/Unary",
            request_serializer=lambda m: m.SerializeToString(),
            response_deserializer=lambda b: b,
        )(pb.EchoRequest(payload=p))
        assert raw == pb.EchoResponse(payload=p).SerializeToString(), raw.hex()
        # With a map: the same value.
        full = payload(pb, b"m")
        assert stub.Unary(pb.EchoRequest(payload=full)).payload == full

    def client_streaming():
        sizes = [27_182, 8, 1_828, 45_904]
        resp = stub.ClientStream(
            iter([pb.EchoRequest(payload=pb.Payload(body=bytes([i]) * n)) for i, n in enumerate(sizes)])
        )
        assert resp.payload.body == b"".join(bytes([i]) * n for i, n in enumerate(sizes))

    def server_streaming():
        got = [r.payload.body for r in stub.ServerStream(pb.EchoRequest(payload=pb.Payload(body=b"\x09\x08\x07")))]
        assert got == [b"\x09", b"\x08", b"\x07"], got

    def ping_pong():
        sizes = [31_415, 9, 2_653, 58_979]
        replies = stub.Bidi(iter([pb.EchoRequest(payload=pb.Payload(body=bytes(n))) for n in sizes]))
        assert [len(r.payload.body) for r in replies] == sizes

    def empty_stream():
        assert list(stub.Bidi(iter([]))) == []

    def status(message):
        def run():
            req = pb.EchoRequest(fail_with=2, fail_message=message)
            try:
                stub.Unary(req)
            except grpc.RpcError as e:
                assert e.code() == grpc.StatusCode.UNKNOWN, e.code()
                assert e.details() == message, repr(e.details())
            else:
                raise AssertionError("no error")
        return run

    def custom_metadata():
        value = "test_initial_metadata_value"
        resp, call = stub.Unary.with_call(
            pb.EchoRequest(payload=pb.Payload(body=b"x")),
            metadata=(("x-grpc-test-echo-initial", value),),
        )
        initial = dict(call.initial_metadata())
        assert initial.get("x-grpc-test-echo-initial") == value, initial

    def unimplemented(path):
        def run():
            try:
                channel.unary_unary(path)(b"")
            except grpc.RpcError as e:
                assert e.code() == grpc.StatusCode.UNIMPLEMENTED, e.code()
            else:
                raise AssertionError("no error")
        return run

    def deadline():
        def slow():
            time.sleep(2)
            yield pb.EchoRequest()
        try:
            list(stub.Bidi(slow(), timeout=0.2))
        except grpc.RpcError as e:
            assert e.code() == grpc.StatusCode.DEADLINE_EXCEEDED, e.code()
        else:
            raise AssertionError("no error")

    def gzip():
        compressed = pb_grpc.EchoStub(grpc.insecure_channel(target, compression=grpc.Compression.Gzip))
        req = pb.EchoRequest(payload=pb.Payload(body=bytes(50_000)))
        assert compressed.Unary(req, compression=grpc.Compression.Gzip).payload.body == bytes(50_000)

    def over_limit():
        # Over the server's 4 MiB default limit: gRPC's RESOURCE_EXHAUSTED.
        try:
            stub.Unary(pb.EchoRequest(payload=pb.Payload(body=bytes(5 << 20))))
        except grpc.RpcError as e:
            assert e.code() == grpc.StatusCode.RESOURCE_EXHAUSTED, (e.code(), e.details())
        else:
            raise AssertionError("a request over the limit was accepted")

    def health():
        h = health_pb2_grpc.HealthStub(channel)
        for service in ["", "vt.test.services.Echo"]:
            r = h.Check(health_pb2.HealthCheckRequest(service=service))
            assert r.status == health_pb2.HealthCheckResponse.SERVING, (service, r)

    def reflection():
        db = ProtoReflectionDescriptorDatabase(channel)
        services = db.get_services()
        assert "vt.test.services.Echo" in services, services
        f = db.FindFileContainingSymbol("vt.test.services.Echo")
        assert f.name == "test/services.proto", f.name
        assert [m.name for m in f.service[0].method][:2] == ["Unary", "ClientStream"]

    for name, f in [
        ("empty_unary", empty_unary),
        ("large_unary", large_unary),
        ("same_bytes", same_bytes),
        ("client_streaming", client_streaming),
        ("server_streaming", server_streaming),
        ("ping_pong", ping_pong),
        ("empty_stream", empty_stream),
        ("status_code_and_message", status("test status message")),
        ("special_status_message", status("\t\ntest with whitespace\r\nand Unicode BMP ☺ and non-BMP 😈\t\n")),
        ("custom_metadata", custom_metadata),
        ("unimplemented_method", unimplemented("/vt.test.services.Echo/NoSuchMethod")),
        ("unimplemented_service", unimplemented("/vt.test.services.NoSuchService/Unary")),
        ("timeout_on_sleeping_server", deadline),
        ("gzip", gzip),
        ("over_limit", over_limit),
        ("health", health),
        ("reflection", reflection),
    ]:
        case(name, f)


def server(stubs):
    import grpc

    pb, pb_grpc = load(stubs)
    from google.protobuf import empty_pb2

    def answer(req, context):
        if req.fail_with:
            context.abort(grpc.StatusCode(next(c for c in grpc.StatusCode if c.value[0] == req.fail_with)), req.fail_message)
        p = pb.Payload()
        p.CopyFrom(req.payload)
        if req.response_size:
            p.body = bytes(req.response_size)
        return pb.EchoResponse(payload=p)

    class Echo(pb_grpc.EchoServicer):
        def Unary(self, req, context):
            return answer(req, context)

        def ClientStream(self, reqs, context):
            return pb.EchoResponse(payload=pb.Payload(body=b"".join(r.payload.body for r in reqs)))

        def ServerStream(self, req, context):
            for b in req.payload.body:
                yield pb.EchoResponse(payload=pb.Payload(body=bytes([b])))

        def Bidi(self, reqs, context):
            for r in reqs:
                yield answer(r, context)

        def Ping(self, req, context):
            return empty_pb2.Empty()

        def Type(self, req, context):
            return answer(req, context)

    srv = grpc.server(futures.ThreadPoolExecutor(max_workers=4), compression=grpc.Compression.Gzip)
    pb_grpc.add_EchoServicer_to_server(Echo(), srv)
    port = srv.add_insecure_port("127.0.0.1:0")
    srv.start()
    print(f"PORT {port}", flush=True)
    # Until stdin closes (the test ends).
    sys.stdin.read()
    srv.stop(0)


if __name__ == "__main__":
    if sys.argv[1] == "client":
        client(int(sys.argv[2]), sys.argv[3])
    else:
        server(sys.argv[2])
