"""``python -m fuzzfarm.cli``: the ``fuzzfarm`` command."""

from fuzzfarm.cli import main

main()
