#!/usr/bin/env python3
"""ff-env (test only): on inputs starting with ``C`` it fails with its whole environment in the
panic message, so the message travels wherever a crash goes (fuzzer log tail, crash record,
bucket, artifact). The security tests check no Redis URL or password is in there: harness
processes must not be given the farm's credentials."""

import os

import atheris  # noqa: F401

from fuzzfarm.harness import atheris_main, execute_scenario

NAME = "ff-env"
VARIANTS = ("buggy",)
DESCRIPTION = "test only: fails with its environment in the message"


def _leak():
    raise ValueError("ff-env: environment " + repr(sorted(os.environ.items())))


def execute(data: bytes, variant: str, *, trace: bool = False, log_schedule: bool = False):
    from fuzzfarm import gosim

    def main():
        wg = gosim.WaitGroup(name="wg")
        wg.add(1)

        def worker():
            if data[:1] == b"C":
                _leak()
            wg.done()

        gosim.go(worker)
        wg.wait()

    return execute_scenario(main, data, min(1, len(data)), "envdump", trace=trace, log_schedule=log_schedule)


def TestOneInput(data: bytes) -> None:
    print("ff-env environment:", sorted(os.environ.items()), flush=True)  # into the fuzzer's log
    if data[:1] == b"C":
        _leak()


if __name__ == "__main__":
    atheris_main(TestOneInput, __file__)
