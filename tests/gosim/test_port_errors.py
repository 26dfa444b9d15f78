"""A Python error no Go program has (a name the port never defined: a translator's or a hand
port's slip) is reported as the port's, not as a Go panic: no Go first line, and the message says
so (it read like a bug of the user's Go: a generated port's missing package init gave every run
``goroutine panic: NameError`` with a Go crash state)."""

from __future__ import annotations

from fuzzfarm import gosim
from fuzzfarm.strategies import RandomStrategy


def test_a_name_the_port_never_defined_is_the_ports_error_not_a_go_panic():
    def program():
        return undefined_in_this_port  # noqa: F821 - the slip under test

    f = gosim.run(program, strategy=RandomStrategy(0)).failure
    assert f is not None and f.kind == "goroutine panic" and f.exc_class == "NameError"
    assert f.go_says is None, f.go_says
    assert "a Python error of the port's own code, no Go panic" in f.detail, f.detail
    assert not f.render().startswith("panic:"), f.render()


def test_a_nil_call_is_still_go_s_panic():
    def program():
        cancel = None
        cancel()

    f = gosim.run(program, strategy=RandomStrategy(0)).failure
    assert f.go_says == "panic: runtime error: invalid memory address or nil pointer dereference", f.go_says
    assert "port's own code" not in f.detail
