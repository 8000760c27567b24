"""A client of `evtsim serve`'s HTTP/JSON front, in standard-library Python.

Create a session, append jobs, move its clock, read its monitors and
statistics, give it live events, and finish it for the schedule and the
metric set; every route of the README's "HTTP/JSON" table has a method.

    from evtsim import Client

    client = Client("http://127.0.0.1:8787")        # token: EVTSIM_TOKEN or token=
    with client.create_session(total_nodes=128, backfill_policy="easy") as session:
        session.append_jobs([{"submit_time": 0, "num_nodes": 4, "time_limit": 600}])
        session.run_until(3600)
        print(session.statistics()["averageWait"])
        result = session.finish()                   # jobs, resources, statistics, metrics
    print(result["metrics"]["wait_mean_s"])

Keyword arguments and job fields may be given in Python's snake_case
(`total_nodes`, `submit_time`) or in the API's camelCase (`totalNodes`); the
replies are the server's JSON as it is (camelCase keys, metric names as in the
README's metrics glossary). Any refused call raises `EvtsimError` with the
HTTP status, the server's error kind and its one-line message; a server that
cannot be reached raises `EvtsimConnectionError`. Needs Python 3.8 or later
and nothing outside the standard library.

A session created with `admission="external"` asks its client for the
decisions of each scheduling round: a call that reaches a round answers
`{"awaitingDecisions": true, "round": {...}}` instead of its own reply, and
`Session.decide(round, decisions)` answers it (the reply is the next round or,
at last, the original call's own reply). `run_trace` (evtsim.run) drives such
a session with a `Scheduler`.
"""

import http.client
import json
import os
import socket
import time
import urllib.error
import urllib.parse
import urllib.request

__all__ = ["Client", "Session", "EvtsimError", "EvtsimConnectionError"]


class EvtsimError(Exception):
    """A call the server refused: `status` (HTTP), `kind` (the server's error kind), `message`.

    `str()` of it is one line: `POST /sessions/ID/advance: 409 time: cannot advance ...`.
    """

    def __init__(self, method, path, status, kind, message):
        self.method = method
        self.path = path
        self.status = status
        self.kind = kind
        self.message = message
        super().__init__(f"{method} {path}: {status} {kind}: {message}")


class EvtsimConnectionError(EvtsimError):
    """The server could not be reached, or its reply was cut off or was not JSON
    (`status` None, `kind` "connection")."""

    def __init__(self, method, path, message):
        super().__init__(method, path, None, "connection", message)
        self.args = (f"{method} {path}: {message}",)


def _camel(name):
    """`submit_time` -> `submitTime`; a name without underscores is kept as it is."""
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def _camel_keys(mapping):
    return {_camel(k): v for k, v in mapping.items() if v is not None}


class Client:
    """The server at `base_url` (as `evtsim serve` prints it: `HTTP: http://127.0.0.1:8787`).

    `token` is sent as `Authorization: Bearer TOKEN`; by default the
    `EVTSIM_TOKEN` environment variable's, as the server reads it. `timeout`
    is each request's, in seconds (a long `finish` may need more than the
    default).
    """

    def __init__(self, base_url="http://127.0.0.1:8787", token=None, timeout=300.0):
        parsed = urllib.parse.urlsplit(base_url)
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            raise ValueError(f"not an http:// URL: {base_url!r}")
        self.base_url = base_url.rstrip("/")
        self.token = token if token is not None else os.environ.get("EVTSIM_TOKEN") or None
        self.timeout = timeout
        host = parsed.hostname or ""
        loopback = host == "localhost" or host == "::1" or host.startswith("127.")
        # An http_proxy of the environment cannot reach a server on this machine's loopback.
        self._opener = urllib.request.build_opener(
            *([urllib.request.ProxyHandler({})] if loopback else [])
        )
        self._keep_alive = loopback and parsed.scheme == "http"
        self._host, self._port = host, parsed.port or 80
        self._prefix = parsed.path.rstrip("/")
        self._conn = None
        self._conn_used = 0.0

    def request(self, method, path, body=None):
        """Sends one request (`body` JSON-encoded) and returns the parsed JSON reply."""
        data = None if body is None else json.dumps(body).encode("utf-8")
        headers = {}
        if data is not None:
            headers["Content-Type"] = "application/json"
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        try:
            if self._keep_alive:
                status, reason, raw = self._send_kept(method, path, data, headers)
            else:
                status, reason, raw = self._send_urllib(method, path, data, headers)
        except urllib.error.URLError as e:
            raise self._unreachable(method, path, e.reason) from None
        except (socket.timeout, TimeoutError):
            self._drop_connection()
            raise EvtsimConnectionError(
                method, path, f"no reply from {self.base_url} within {self.timeout:g} s"
            ) from None
        except (ConnectionRefusedError, socket.gaierror) as e:
            self._drop_connection()
            raise self._unreachable(method, path, e) from None
        except (http.client.HTTPException, ConnectionError, OSError) as e:
            self._drop_connection()
            raise EvtsimConnectionError(
                method, path, f"the connection to {self.base_url} broke ({e})"
            ) from None
        text = raw.decode("utf-8", "replace")
        if status >= 400:
            try:
                refusal = json.loads(text)
                kind, message = refusal.get("kind", "error"), refusal.get("error", text)
            except (ValueError, AttributeError):
                kind, message = "error", text.strip() or reason
            raise EvtsimError(method, path, status, kind, message)
        try:
            return json.loads(text)
        except ValueError:
            raise EvtsimConnectionError(
                method, path, f"the reply is not JSON: {text[:80]!r}"
            ) from None

    def _unreachable(self, method, path, reason):
        reason = getattr(reason, "strerror", None) or str(reason)
        return EvtsimConnectionError(
            method,
            path,
            f"cannot reach evtsim serve at {self.base_url} ({reason}); "
            "is it running, and on this address?",
        )

    def _send_urllib(self, method, path, data, headers):
        req = urllib.request.Request(self.base_url + path, data=data, method=method)
        for k, v in headers.items():
            req.add_header(k, v)
        try:
            with self._opener.open(req, timeout=self.timeout) as reply:
                return reply.status, reply.reason, reply.read()
        except urllib.error.HTTPError as e:
            return e.code, e.reason, e.read()

    # A session's rounds are many small requests: on loopback one connection is kept open
    # (a new one per request costs more than the request). A connection idle for a while
    # is not reused, since the server may have closed it and a POST is not sent twice.
    _IDLE_REUSE_S = 2.0

    def _send_kept(self, method, path, data, headers):
        now = time.monotonic()
        if self._conn is not None and now - self._conn_used > self._IDLE_REUSE_S:
            self._drop_connection()
        if self._conn is None:
            self._conn = http.client.HTTPConnection(
                self._host, self._port, timeout=self.timeout
            )
            self._conn.connect()
            # Small requests answered at once: no waiting to coalesce them (Nagle).
            self._conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._conn.request(method, self._prefix + path, body=data, headers=headers)
        reply = self._conn.getresponse()
        raw = reply.read()
        self._conn_used = time.monotonic()
        if reply.will_close:
            self._drop_connection()
        return reply.status, reply.reason, raw

    def _drop_connection(self):
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def close(self):
        """Closes the kept connection (a later request opens a new one)."""
        self._drop_connection()

    def health(self):
        """`GET /health`: `{ok, sessions, spareWorkers}`."""
        return self.request("GET", "/health")

    def openapi(self):
        """`GET /openapi.json`: the OpenAPI 3.1 document of the routes."""
        return self.request("GET", "/openapi.json")

    def sessions(self):
        """`GET /sessions`: the open sessions."""
        return self.request("GET", "/sessions")["sessions"]

    def create_session(self, total_nodes, **options):
        """`POST /sessions`: a new session of `total_nodes` nodes; `options` as the route takes
        them (`backfill_policy`, `admission`, `priority_policy`, `picker`, `queues`,
        `run_time_mode`, `seed`, `decisions`, `name` ...)."""
        created = self.request(
            "POST", "/sessions", _camel_keys({"total_nodes": total_nodes, **options})
        )
        return Session(self, created["sessionId"], created.get("recording"))


class Session:
    """One session of the server. As a context manager it is deleted on leaving the block
    unless it was finished (a session holds a server slot until then)."""

    def __init__(self, client, session_id, recording=None):
        self.client = client
        self.id = session_id
        self.recording = recording
        self.finished = False

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if not self.finished:
            try:
                self.delete()
            except EvtsimError:
                pass  # gone already (ended by the server, or the server stopped)
        return False

    def _call(self, method, route="", body=None):
        return self.client.request(method, f"/sessions/{self.id}{route}", body)

    # Jobs
    def append_jobs(self, jobs, submit=True):
        """Appends a batch (all or nothing), each job a dict with `submit_time`, `num_nodes`,
        `time_limit` and optionally `actual_run_time`, `queue`, `priority`, `user`,
        `account`; returns the new ids. With `submit=False` they are only stored."""
        body = {"jobs": [_camel_keys(j) for j in jobs]}
        if not submit:
            body["submit"] = False
        return self._call("POST", "/jobs", body)["ids"]

    def append_job(self, job, submit=True):
        """Appends one job; returns its id."""
        body = {"job": _camel_keys(job)}
        if not submit:
            body["submit"] = False
        return self._call("POST", "/job", body)["ids"][0]

    def submit(self, job_id, time):
        """Submits a stored job at `time`."""
        return self._call("POST", f"/jobs/{job_id}/submit", {"time": time})

    # The clock: each returns the call's decisions, notices and the monitors after it.
    def advance(self, time):
        """Processes every event at or before `time` (inclusive) and sets the clock to it."""
        return self._call("POST", "/advance", {"time": time})

    def run_until(self, time):
        """Processes the events strictly before `time` (exclusive): jobs submitted at `time`
        appended afterwards still join the scheduling pass at `time`."""
        return self._call("POST", "/run_until", {"time": time})

    # Live events
    def cancel(self, job_id, time=None):
        return self._call("POST", f"/jobs/{job_id}/cancel", _camel_keys({"time": time}))

    def end(self, job_id, time=None, outcome=None, exit_status=None):
        body = _camel_keys({"time": time, "outcome": outcome, "exit_status": exit_status})
        return self._call("POST", f"/jobs/{job_id}/end", body)

    def update(self, job_id, time=None, priority=None, queue=None):
        body = _camel_keys({"time": time, "priority": priority, "queue": queue})
        return self._call("POST", f"/jobs/{job_id}/update", body)

    def set_queue(self, queue, time=None):
        """Adds or changes a queue: `queue` a dict with `name` and optionally `priority`,
        `picker`, `project`, `max_running`, `open`."""
        return self._call("POST", "/queues", _camel_keys({"queue": _camel_keys(queue), "time": time}))

    def set_capacity(self, capacity, time=None):
        """Changes the usable node count."""
        return self._call("POST", "/capacity", _camel_keys({"capacity": capacity, "time": time}))

    # Monitors
    def monitors(self):
        """`currentTime`, `nodesInUse`, `availableNodes`, `activeJobCount`, `headShadowTime`,
        `totalJobs`."""
        return self._call("GET")

    def statistics(self):
        """The statistics block so far (`averageWait`, `utilization` ...)."""
        return self._call("GET", "/statistics")

    def backfill_window(self):
        return self._call("GET", "/backfill_window")

    def pending_reason(self, job_id):
        return self._call("GET", f"/jobs/{job_id}/pending_reason")

    # Recording (the server needs --record_dir)
    def start_recording(self):
        return self._call("POST", "/recording")

    def stop_recording(self):
        return self._call("DELETE", "/recording")

    def recording_status(self):
        return self._call("GET", "/recording")

    # The end
    def finish(self, run_to_completion=True):
        """Runs to completion (or stops at the clock) and returns `jobs`, `resources`,
        `notices`, `decisions`, `statistics` and `metrics`; the session ends (in an
        external session: once the rounds it reaches were answered)."""
        body = {} if run_to_completion else {"runToCompletion": False}
        result = self._call("POST", "/finish", body)
        if not result.get("awaitingDecisions"):
            self.finished = True
        return result

    def delete(self):
        """Drops the session without finishing it."""
        self.finished = True
        return self._call("DELETE")

    # External decisions (a session created with admission="external")
    def decide(self, round_number, decisions):
        """`POST /sessions/{id}/decisions`: answers the awaited round `round_number` with
        `decisions` (dicts `{"type": "DISPATCH", "jobId": 4}` ..., applied in order). The
        reply is the next round (`awaitingDecisions`) or the original call's own reply."""
        return self._call("POST", "/decisions", {"round": round_number, "decisions": decisions})
