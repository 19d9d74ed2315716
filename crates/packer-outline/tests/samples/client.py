"""A small HTTP client.

It keeps one connection per host and retries idempotent requests.
"""

from __future__ import annotations

import socket
from dataclasses import dataclass, field
from typing import Iterator

try:
    import ssl
except ImportError:  # pragma: no cover
    ssl = None

DEFAULT_TIMEOUT = 10.0
_RETRIES = 3
__all__ = ["Client", "Response", "fetch"]


@dataclass
class Response:
    """One HTTP response."""

    status: int
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""

    def ok(self) -> bool:
        """Whether the status is 2xx.

        Redirects are not followed.
        """
        return 200 <= self.status < 300

    def lines(self) -> Iterator[str]:
        for line in self.body.splitlines():
            yield line.decode()


class Client:
    """Keeps connections and sends requests."""

    user_agent = "client/1.0"

    def __init__(self, timeout: float = DEFAULT_TIMEOUT) -> None:
        self.timeout = timeout
        self._connections: dict[str, socket.socket] = {}

    def get(
        self,
        url: str,
        headers: dict[str, str] | None = None,
    ) -> Response:
        """Sends a GET request."""
        return self._send("GET", url, headers or {})

    def _send(self, method: str, url: str, headers: dict[str, str]) -> Response:
        for attempt in range(_RETRIES):
            try:
                return self._once(method, url, headers)
            except OSError:
                if attempt == _RETRIES - 1:
                    raise
        raise AssertionError("unreachable")

    def _once(self, method, url, headers):
        def parse(raw):
            head, _, body = raw.partition(b"\r\n\r\n")
            return Response(int(head.split()[1]), {}, body)

        conn = self._connections.get(url)
        conn.sendall(f"{method} {url} HTTP/1.1\r\n\r\n".encode())
        return parse(conn.recv(65536))

    class Error(Exception):
        """A request failed."""


def fetch(url: str) -> Response:
    """Fetches a URL with a fresh client."""
    return Client().get(url)


if __name__ == "__main__":
    print(fetch("http://example.com").status)
