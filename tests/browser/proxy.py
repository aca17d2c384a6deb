"""A sign-in proxy for the browser tests: a real reverse proxy on 127.0.0.1 that forwards every
request — pages, assets and the app's WebSocket — to the Streamlit server and adds the header
that names the signed-in user, as oauth2-proxy or a company gateway does.

(A browser context's own extra headers do not reach the WebSocket handshake in today's
Chromium, and Streamlit reads ``st.context.headers`` from that handshake: so the proxy is real.)
Built from what Streamlit itself runs on (starlette, uvicorn, websockets) and httpx.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Iterator

import httpx
import uvicorn
import websockets
from harness import free_port
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

#: request headers not passed on (hop by hop, or made again by the client)
_DROP_REQUEST = {"host", "content-length", "connection", "upgrade", "sec-websocket-key",
                 "sec-websocket-version", "sec-websocket-extensions", "sec-websocket-protocol"}
_DROP_REPLY = {"content-encoding", "transfer-encoding", "connection", "content-length"}


def _app(upstream: str, header: str, user: str) -> Starlette:
    ws_upstream = "ws" + upstream.removeprefix("http")
    client = httpx.AsyncClient(timeout=60)

    async def forward(request: Request) -> Response:
        headers = {k: v for k, v in request.headers.items() if k.lower() not in _DROP_REQUEST}
        headers[header] = user
        reply = await client.request(request.method, upstream + request.url.path,
                                     params=request.url.query, headers=headers,
                                     content=await request.body())
        return Response(reply.content, reply.status_code,
                        {k: v for k, v in reply.headers.items()
                         if k.lower() not in _DROP_REPLY})

    async def tunnel(socket: WebSocket) -> None:
        headers = {k: v for k, v in socket.headers.items() if k.lower() not in _DROP_REQUEST}
        headers[header] = user
        headers["origin"] = upstream
        target = ws_upstream + socket.url.path + (f"?{socket.url.query}" if socket.url.query
                                                   else "")
        async with websockets.connect(target, additional_headers=headers,
                                      subprotocols=socket.scope.get("subprotocols") or None,
                                      max_size=None) as up:
            await socket.accept(subprotocol=up.subprotocol)

            async def down() -> None:
                async for message in up:
                    if isinstance(message, bytes):
                        await socket.send_bytes(message)
                    else:
                        await socket.send_text(message)

            async def upward() -> None:
                with contextlib.suppress(WebSocketDisconnect):
                    while True:
                        message = await socket.receive()
                        if message["type"] == "websocket.disconnect":
                            return
                        data = message.get("bytes")
                        await up.send(data if data is not None else message.get("text", ""))

            tasks = [asyncio.create_task(down()), asyncio.create_task(upward())]
            _, pending = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
            for task in pending:
                task.cancel()

    methods = ["GET", "POST", "PUT", "DELETE", "HEAD", "OPTIONS", "PATCH"]
    return Starlette(routes=[WebSocketRoute("/{path:path}", tunnel),
                             Route("/{path:path}", forward, methods=methods)])


@contextlib.contextmanager
def sign_in_proxy(upstream: str, *, header: str, user: str) -> Iterator[str]:
    """A proxy to ``upstream`` that names ``user`` in ``header``; yields its URL."""
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(_app(upstream, header, user), host="127.0.0.1",
                                           port=port, log_level="warning", lifespan="off",
                                           ws="websockets"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline:
            raise AssertionError("the sign-in proxy did not start")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
