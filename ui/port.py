"""The port of ``roundtable serve``, checked before anything is printed.

A busy port used to surface as uvicorn's ``ERROR: [Errno 98] … address already in use`` after
the URL had been printed; :func:`usable_port` binds first, as uvicorn will, and says what to do
(``--port``); ``--port 0`` lets the system pick a free port, whose real number the URL then
shows. The socket is closed again and uvicorn binds the port itself (so that another program
could take it in between is the price of keeping uvicorn's own start).
"""

from __future__ import annotations

import errno
import socket


def usable_port(host: str, port: int) -> int:
    """``port`` once a socket could bind it on ``host`` as uvicorn will (``port`` 0: the free
    port the system picked); a port in use or not allowed is a ``ValueError`` naming
    ``--port``."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0]
    except socket.gaierror as err:
        raise ValueError(f"cannot listen on {host!r}: {err.strerror}; give --host an address "
                         "of this machine (default 127.0.0.1)") from None
    sock = socket.socket(family, kind, proto)
    try:
        if hasattr(socket, "SO_REUSEADDR"):  # as uvicorn does: a port left in TIME_WAIT is free
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        return int(sock.getsockname()[1])
    except OSError as err:
        if err.errno == errno.EADDRINUSE:
            raise ValueError(f"port {port} on {host} is already in use (another roundtable serve, "
                             "or another program): choose another with --port N, or --port 0 "
                             "for any free port") from None
        if err.errno == errno.EACCES:
            raise ValueError(f"port {port} on {host} is not allowed for this user (ports below "
                             "1024 need privileges): choose another with --port N, or --port 0 "
                             "for any free port") from None
        raise
    finally:
        sock.close()
