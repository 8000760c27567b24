"""The gRPC front of `evtsim serve` from Python: DR_EVT's `Session` stream with the
external-decision messages (docs/external-schedulers.md).

Needs grpcio and protobuf (`pip install grpcio protobuf`, or Debian's
`apt-get install python3-grpcio python3-protobuf`) and a protobuf compiler: `protoc` on
the PATH (`apt-get install protobuf-compiler`) or grpcio-tools. The message classes are
generated from the project's `api/service/dr_evt_service.proto` when first needed, into
a temporary folder that is removed again: nothing generated is kept or committed.

    from evtsim.grpc_client import GrpcSession
    with GrpcSession("127.0.0.1:50051") as s:
        s.call("init", total_nodes=8, session_name="py")
        ...

`run_trace("127.0.0.1:50051", ...)` (evtsim.run) uses it.
"""

import importlib.util
import json
import os
import queue
import shutil
import subprocess
import sys
import tempfile

from .client import EvtsimError

__all__ = ["GrpcSession", "load_messages", "grpc_available", "default_proto"]

_HERE = os.path.dirname(os.path.abspath(__file__))
METHOD = "/dr_evt_grpc.SimulationService/Session"
NEEDS = ("evtsim: the gRPC front needs grpcio and protobuf (pip install grpcio protobuf, "
         "or apt-get install python3-grpcio python3-protobuf); use the HTTP address "
         "(http://...) otherwise")


def grpc_available():
    """Whether grpcio and protobuf can be imported."""
    try:
        import grpc  # noqa: F401
        import google.protobuf  # noqa: F401
    except ImportError:
        return False
    return True


def default_proto():
    """The proto of the checkout this package is in (clients/python/evtsim -> api/service),
    or $EVTSIM_PROTO."""
    env = os.environ.get("EVTSIM_PROTO")
    if env:
        return env
    return os.path.normpath(os.path.join(_HERE, "..", "..", "..", "api", "service",
                                         "dr_evt_service.proto"))


_loaded = {}


def load_messages(proto=None):
    """The generated message module of `proto` (ClientMessage, ServerMessage ...), compiled
    with protoc (or grpc_tools) into a temporary folder that is removed afterwards."""
    proto = os.path.abspath(proto or default_proto())
    if proto in _loaded:
        return _loaded[proto]
    if not grpc_available():
        raise ImportError(NEEDS)
    if not os.path.isfile(proto):
        raise FileNotFoundError(
            f"evtsim: no proto at {proto} (give proto=, or set EVTSIM_PROTO to "
            "api/service/dr_evt_service.proto of evtsim)"
        )
    folder, name = os.path.split(proto)
    out = tempfile.mkdtemp(prefix="evtsim-proto-")
    try:
        args = [f"-I{folder}", f"--python_out={out}", name]
        try:
            from grpc_tools import protoc as tools  # grpcio-tools, when installed

            code = tools.main(["protoc", *args])
            err = ""
        except ImportError:
            protoc = shutil.which("protoc")
            if protoc is None:
                raise ImportError(
                    "evtsim: the gRPC front needs protoc to compile the proto (apt-get install "
                    "protobuf-compiler, or pip install grpcio-tools)"
                ) from None
            r = subprocess.run([protoc, *args], capture_output=True, text=True)
            code, err = r.returncode, r.stderr.strip()
        if code != 0:
            raise RuntimeError(f"evtsim: protoc could not compile {proto}: {err}")
        module_name = os.path.splitext(name)[0] + "_pb2"
        spec = importlib.util.spec_from_file_location(module_name,
                                                      os.path.join(out, module_name + ".py"))
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module
        spec.loader.exec_module(module)
    finally:
        shutil.rmtree(out, ignore_errors=True)
    _loaded[proto] = module
    return module


class GrpcSession:
    """One `Session` stream. `call(kind, **fields)` sends one request and returns the
    reply's (kind, message); an ErrorResponse raises EvtsimError (kind "grpc"). `send` and
    `receive` pipeline requests. A reply that is a round (`round_request`) is returned as
    ("round", dict) by `call`; `decide` answers it."""

    def __init__(self, target, token=None, proto=None, timeout=300.0):
        self.pb = load_messages(proto)
        import grpc

        self._grpc = grpc
        self.target = target
        self._channel = grpc.insecure_channel(
            target, options=[("grpc.max_receive_message_length", 64 * 1024 * 1024)]
        )
        stream = self._channel.stream_stream(
            METHOD,
            request_serializer=self.pb.ClientMessage.SerializeToString,
            response_deserializer=self.pb.ServerMessage.FromString,
        )
        token = token if token is not None else os.environ.get("EVTSIM_TOKEN") or None
        metadata = [("authorization", f"Bearer {token}")] if token else None
        self._requests = queue.Queue()
        self._replies = stream(iter(self._requests.get, None), metadata=metadata)
        self._next_id = 0
        self.timeout = timeout
        # The session's onInvalid: with "reask" a refused answer's ErrorResponse is followed by
        # the same round again, which decide reads and attaches to the error (`round`).
        self.on_invalid = "reask"

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def close(self):
        """Ends the stream (a session not finished is dropped by the server) and the channel."""
        self._requests.put(None)
        self._channel.close()

    def send(self, kind, **fields):
        """Queues one request; returns its request_id."""
        self._next_id += 1
        message = self.pb.ClientMessage(request_id=self._next_id, **{kind: fields})
        self._requests.put(message)
        return self._next_id

    def receive(self):
        """The next reply as (kind, message, request_id); an ErrorResponse raises."""
        try:
            reply = next(self._replies)
        except StopIteration:
            raise EvtsimError("gRPC", "Session", None, "connection",
                              "the server ended the stream") from None
        except self._grpc.RpcError as e:
            raise EvtsimError("gRPC", "Session", None, str(e.code().name).lower(),
                              e.details() or str(e)) from None
        kind = reply.WhichOneof("response")
        message = getattr(reply, kind)
        if kind == "error":
            raise EvtsimError("gRPC", "Session", None, "grpc", message.message)
        if kind == "round_request":
            parsed = json.loads(message.round_json)
            round_ = parsed.get("round") if isinstance(parsed.get("round"), dict) else parsed
            return "round", round_, reply.request_id
        return kind, message, reply.request_id

    def call(self, kind, **fields):
        """One request and its reply (kind, message); a round comes back as ("round", dict)."""
        sent = self.send(kind, **fields)
        got, message, request_id = self.receive()
        if request_id != sent:
            raise EvtsimError("gRPC", kind, None, "protocol",
                              f"reply to request {request_id}, expected {sent}")
        return got, message

    def decide(self, round_number, decisions):
        """Answers the awaited round of the last request: the next round, or that request's
        own reply, as call returns them."""
        original = self._next_id
        body = json.dumps({"round": round_number, "decisions": decisions})
        self._requests.put(self.pb.ClientMessage(
            request_id=original, decide={"request_id": original, "decisions_json": body}
        ))
        try:
            got, message, request_id = self.receive()
        except EvtsimError as e:
            if self.on_invalid == "reask" and e.kind == "grpc":
                again = self.receive()
                e.round = again[1] if again[0] == "round" else None
            raise
        if request_id != original:
            raise EvtsimError("gRPC", "decide", None, "protocol",
                              f"reply to request {request_id}, expected {original}")
        return got, message


def _job_message(job):
    m = {"submit_time": job["submit_time"], "num_nodes": job["num_nodes"],
         "limit_time": job["time_limit"]}
    for key, field in (("queue", "queue"), ("user", "user"), ("account", "account"),
                       ("actual_run_time", "actual_run_time")):
        if job.get(key) is not None:
            m[field] = job[key]
    return m


# Requests in flight at once while submitting the stored jobs (DR_EVT's two steps).
PIPELINE = 512


def run_trace_grpc(target, jobs, scheduler, total_nodes, external, options, name, token,
                   counter, proto):
    """run_trace's gRPC path: init (admission external), append_jobs, submit_job for each,
    finish_simulation answering every round; returns (reply dict, session id, None).

    DR_EVT's finish reply has statistics and metrics but no job rows: the reply's `jobs` are
    the schedule as the client dispatched it (each job's begin is the time of the round that
    started it; its end is the begin plus its run time: `actual_run_time` under run time mode
    actual, else its limit). The metrics are the server's."""
    from .protocol import decision_list
    from .run import APPEND_BATCH, drive

    begins = {}

    def deciding(ctx):
        decisions = decision_list(scheduler(ctx))
        for d in decisions:
            if d.get("type") == "DISPATCH":
                begins[d["jobId"]] = ctx.time
        return decisions

    with GrpcSession(target, token=token, proto=proto) as s:
        init = {"total_nodes": total_nodes or 0, "session_name": name, "admission": "external",
                "external_json": json.dumps(external)}
        for key, field in (("run_time_mode", "run_time_mode"), ("picker", "picker"),
                           ("on_node_failure", "on_node_failure"),
                           ("requeue_limit", "requeue_limit")):
            if options.get(key) is not None:
                init[field] = options[key]
        # The queues as HTTP takes them (e.g. {"name": "batch", "preemptMode": "requeue"}).
        if options.get("queues") is not None:
            init["queues_json"] = json.dumps(options["queues"])
        s.on_invalid = external.get("onInvalid", "reask")
        _, created = s.call("init", **init)
        session_id = created.session_id

        def answer(kind_message):
            kind, message = kind_message
            if kind != "round":
                return {"kind": kind, "message": message}
            return {"awaitingDecisions": True, "round": message}

        def decide(round_number, decisions):
            return answer(s.decide(round_number, decisions))

        ids = []
        for i in range(0, len(jobs), APPEND_BATCH):
            batch = [_job_message(j) for j in jobs[i:i + APPEND_BATCH]]
            reply = drive(answer(s.call("append_jobs", requests=batch)), deciding, decide,
                          counter)
            ids.extend(reply["message"].job_idx)
        # Submitting does not move the clock: the requests are pipelined.
        for i in range(0, len(ids), PIPELINE):
            chunk = list(zip(ids[i:i + PIPELINE], jobs[i:i + PIPELINE]))
            for job_id, job in chunk:
                s.send("submit_job", job_idx=job_id, submit_time=job["submit_time"])
            for _ in chunk:
                kind, _, _ = s.receive()
                if kind != "submit_job":
                    raise EvtsimError("gRPC", "submit_job", None, "protocol",
                                      f"a {kind} reply to submit_job")
        reply = drive(answer(s.call("finish_simulation")), deciding, decide, counter)
        finished = reply["message"]
        metrics = json.loads(finished.metrics_json) if finished.metrics_json else {}
        stats = finished.statistics
        result = {
            "metrics": metrics.get("metrics", {}),
            "breakdowns": metrics.get("breakdowns"),
            "fairness": metrics.get("fairness"),
            "statistics": {f.name: v for f, v in stats.ListFields()},
        }
        by_id = dict(zip(ids, jobs))
        limit_mode = options.get("run_time_mode") == "limit"
        rows = []
        for job_id in sorted(begins):
            job = by_id[job_id]
            run = job["time_limit"] if limit_mode else job.get("actual_run_time",
                                                                 job["time_limit"])
            row = {"jobId": job_id, "submitTime": job["submit_time"],
                   "beginTime": begins[job_id], "endTime": begins[job_id] + run,
                   "numNodes": job["num_nodes"], "timeLimit": job["time_limit"]}
            if job.get("queue") is not None:
                row["queue"] = job["queue"]
            rows.append(row)
        result["jobs"] = rows
        return result, session_id, None
