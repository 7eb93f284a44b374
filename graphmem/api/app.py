"""The ASGI application: GraphQL (with GraphiQL) at ``/graphql``, ``/health``, and the compatibility routes.

One process owns the embedded database. Requests run concurrently; their memory calls go to a bounded
worker pool, where reads proceed in parallel and writes are serialised by :class:`~graphmem.Memory`
(concurrent ``recordEvent`` calls share one commit). On shutdown the server stops taking requests, lets the
in-flight ones finish, then closes the database, so nothing acknowledged is lost.

>>> from graphmem import Memory
>>> app = create_app(Memory.in_memory(extract=False))
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Protocol

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from cross_web import HTTPException
from strawberry.asgi import GraphQL

from graphmem.api.access import AccessPolicy, Principal
from graphmem.api.compat import compat_routes
from graphmem.api.context import Context
from graphmem.api.schema import build_schema
from graphmem.api.system import health_data
from graphmem.errors import Forbidden
from graphmem.memory import Memory

__all__ = ["MAX_BODY_BYTES", "WORKERS", "create_app", "principal_of"]

log = logging.getLogger(__name__)

MAX_BODY_BYTES = 1_000_000  # a request body larger than this is refused before it is read
WORKERS = 8  # threads running memory calls; the database serialises writes and reads in parallel

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

_PRINCIPAL = "graphmem.principal"
_PUBLIC = ("/health",)  # answered without a token (no memory content)


def principal_of(request: Request) -> Principal:
    principal: Principal = request.scope[_PRINCIPAL]
    return principal


class Background(Protocol):
    """Work a server runs beside its requests on the same memory (see ``create_app``)."""

    def start(self) -> None: ...

    def stop(self) -> None: ...


class _GraphQLApp(GraphQL[Context, None]):
    def __init__(self, memory: Memory, executor: ThreadPoolExecutor) -> None:
        super().__init__(build_schema(), graphql_ide="graphiql", allow_queries_via_get=False)
        self.memory = memory
        self.executor = executor

    async def get_context(self, request: Any, response: Any) -> Context:
        return Context(memory=self.memory, principal=request.scope[_PRINCIPAL], executor=self.executor)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Like strawberry's, but a request it cannot read is answered in GraphQL's JSON error shape."""
        if scope["type"] != "http":  # no subscriptions: nothing to stream
            return
        try:
            response = await self.run(Request(scope=scope, receive=receive))
        except HTTPException as exc:
            response = JSONResponse({"errors": [{"message": exc.reason, "extensions": {"code": "bad_request"}}]},
                                    status_code=exc.status_code)
        await response(scope, receive, send)


class _Guard:
    """Refuses oversized bodies and unauthenticated callers before any route runs, and says in a
    ``Server-Timing`` header how long the server took (from reading the request to the answer's start: what a
    client waits beyond it is the network and its own scheduling)."""

    def __init__(self, app: ASGIApp, policy: AccessPolicy, max_body: int) -> None:
        self.app = app
        self.policy = policy
        self.max_body = max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started, reply = time.perf_counter(), send

        async def timed(message: Message) -> None:
            if message["type"] == "http.response.start":
                took = f"app;dur={(time.perf_counter() - started) * 1000:.2f}".encode("latin-1")
                message = {**message, "headers": [*message.get("headers", []), (b"server-timing", took)]}
            await reply(message)

        send = timed
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        length = headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > self.max_body):
            await _refuse(scope, receive, send, 413, "request_too_large",
                          f"request body is larger than {self.max_body} bytes; send smaller batches")
            return
        is_ide = scope["method"] == "GET" and scope["path"].rstrip("/") == "/graphql"
        try:
            scope[_PRINCIPAL] = self.policy.authenticate(headers.get("authorization"))
        except Forbidden as exc:
            if not (is_ide or scope["path"] in _PUBLIC):
                await _refuse(scope, receive, send, 401, exc.code, exc.message)
                return
            scope[_PRINCIPAL] = None
        await self.app(scope, _limited(receive, self.max_body), send)


def _limited(receive: Receive, max_body: int) -> Receive:
    """Counts a chunked body as it arrives and cuts it off past ``max_body``."""
    seen = 0

    async def wrapped() -> Message:
        nonlocal seen
        message = await receive()
        if message["type"] == "http.request":
            seen += len(message.get("body", b""))
            if seen > max_body:
                raise _TooLarge
        return message

    return wrapped


class _TooLarge(Exception):
    pass


async def _refuse(scope: Scope, receive: Receive, send: Send, status: int, code: str, message: str) -> None:
    body: dict[str, Any] = {"errors": [{"message": message, "extensions": {"code": code}}]}
    if scope["path"].startswith("/v1/"):
        body = {"ok": False, "error": {"code": code, "message": message}, "items": []}
    response = JSONResponse(body, status_code=status,
                            headers={"WWW-Authenticate": "Bearer"} if status == 401 else None)
    await response(scope, receive, send)


def create_app(
    memory: Memory,
    *,
    access: AccessPolicy | None = None,
    max_body_bytes: int = MAX_BODY_BYTES,
    workers: int = WORKERS,
    close_memory: bool = False,
    freeze_heap: bool = False,
    background: Sequence[Background] = (),
) -> ASGIApp:
    """The server for ``memory``. ``close_memory``: close the database when the server shuts down.
    ``freeze_heap``: the process is this server's alone, and what it built before its first request (modules,
    the extraction pipeline, the search index, the warmed caches) stays until it exits, so the garbage
    collector's full passes leave it out (``gc.freeze``): under load each pass stopped every request for
    0.1-0.4 s at 100k events, growing with the heap. ``background``: work that runs beside the server on
    the same memory (scheduled backups), started once it is ready and stopped before the database closes."""
    policy = access or AccessPolicy.open()
    executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="graphmem")
    graphql = _GraphQLApp(memory, executor)

    async def health(request: Request) -> Response:
        principal = request.scope.get(_PRINCIPAL)
        data = await _in_pool(executor, health_data, memory, policy.enabled, principal)
        return JSONResponse(data)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        if not policy.enabled:
            log.warning("no tokens configured: every caller is the local user; serve on loopback only")
        started = time.perf_counter()
        await _in_pool(executor, memory.warm)  # before the first connection: no request waits for it
        if freeze_heap:
            gc.collect()  # (what is garbage now would otherwise never be freed)
            gc.freeze()
        log.info("ready in %.1f s", time.perf_counter() - started)
        for job in background:
            job.start()
        yield
        for job in background:
            await _in_pool(executor, job.stop)
        executor.shutdown(wait=True)  # in-flight memory calls finish before the database closes
        if close_memory:
            memory.close()
        log.info("stopped: in-flight requests finished%s", ", database closed" if close_memory else "")

    routes = [
        Route("/graphql", graphql, methods=["GET", "POST"]),
        Route("/health", health, methods=["GET"]),
        *compat_routes(memory, executor),
    ]
    app = Starlette(routes=routes, lifespan=lifespan)
    return _Guard(_ErrorsAsJSON(app), policy, max_body_bytes)


class _ErrorsAsJSON:
    """A body cut off for size becomes a 413 answer, not a server error."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await self.app(scope, receive, send)
        except _TooLarge:
            await _refuse(scope, receive, send, 413, "request_too_large", "request body is too large")


async def _in_pool(executor: ThreadPoolExecutor, fn: Callable[..., Any], *args: Any) -> Any:
    return await asyncio.get_running_loop().run_in_executor(executor, fn, *args)
