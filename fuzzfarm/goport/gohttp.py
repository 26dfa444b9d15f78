"""The gosim model of the part of Go's ``net/http`` that client setup code touches without a
network: the ``Client`` and ``Transport`` structs (zero values, composite literals, field reads
and writes), registered in :mod:`fuzzfarm.goport.models`.

What matters for concurrency, from Go's net/http documentation and source:

* ``http.Client`` is a plain struct (client.go: ``Transport RoundTripper``, ``CheckRedirect``,
  ``Jar CookieJar``, ``Timeout time.Duration``). "Clients are safe for concurrent use by multiple
  goroutines" because its methods only *read* those fields; a goroutine that writes a field while
  another uses the client races, and ``-race`` reports it. Here each field is a race-checked
  ``gosim.Shared``, so a write and an unordered read of one ``Client`` are a data race, as under
  ``-race``, and reads among themselves are not.
* ``http.Transport``'s zero value is ready to use (transport.go: "The zero value for each field
  is equivalent to the default"); it holds its own mutexes and connection pools, which only its
  methods touch (``RoundTrip``, ``CloseIdleConnections``: network, not modelled). It must not be
  copied (``go vet`` copylocks: it holds ``sync.Mutex`` fields), so the model has no ``_copy_``:
  a port that copies one fails loudly instead of sharing state Go would not share. Its exported
  fields are not modelled: a composite literal that sets one is a Python ``TypeError`` naming it,
  never a silently dropped setting.
* ``http.RoundTripper`` is an interface: a ``*Transport`` put in it is the object itself (a
  pointer to a struct), a nil one a typed nil, as the translator does for every pointer.

Nothing here blocks or is a scheduling point except the race-checked field accesses, which stand
for the memory accesses ``-race`` instruments.
"""

from __future__ import annotations

from fuzzfarm import gosim
from fuzzfarm.gosim import not_ported

_STD = "Go's standard library net/http package: the ports pin no Go release, so no file.go:line"


class Client:
    """``http.Client``: its four fields, race-checked (Go's are plain fields)."""

    transport = gosim.Shared()
    check_redirect = gosim.Shared()
    jar = gosim.Shared()
    timeout = gosim.Shared()
    _go_fields_ = ("transport", "check_redirect", "jar", "timeout")

    @not_ported(f"an http.Client composite literal, {_STD}")
    def __init__(self, *, transport=None, check_redirect=None, jar=None, timeout=0):
        # Go writes every field of a composite literal (the unnamed ones with their zero value)
        self.transport, self.check_redirect, self.jar, self.timeout = transport, check_redirect, jar, timeout

    def _copy_(self) -> Client:
        c = Client.__new__(Client)
        c.transport, c.check_redirect, c.jar, c.timeout = self.transport, self.check_redirect, self.jar, self.timeout
        return c

    def _set_(self, v: Client) -> None:
        self.transport, self.check_redirect, self.jar, self.timeout = v.transport, v.check_redirect, v.jar, v.timeout


class Transport:
    """``http.Transport``: the zero value (Go's default settings); no exported field is modelled
    and it cannot be copied (see the module docstring)."""

    __slots__ = ()

    @not_ported(f"an http.Transport composite literal, {_STD}")
    def __init__(self):
        pass

    def _copy_(self):
        raise TypeError("http.Transport copied by value: go vet rejects it (copylocks); pass a *http.Transport")

    def _set_(self, v):
        raise TypeError("http.Transport assigned by value: go vet rejects it (copylocks); pass a *http.Transport")
