"""``fuzzfarm port``: generate the gosim port of Go source (docs/PORT.md).

``goast.go`` reads the Go (go/parser + go/types), :mod:`.translate` writes the Python,
:mod:`.rt` is what generated ports call besides ``fuzzfarm.gosim``, :mod:`.package` lays out the
harness plugin package. Nothing here is imported by the layers below the CLI except :mod:`.rt`,
which imports only ``fuzzfarm.gosim``.
"""
