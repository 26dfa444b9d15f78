"""The ``fuzzfarm`` command.

    fuzzfarm demo                                  # everything on this machine, one command
    fuzzfarm worker -Q fuzz                        # a worker of the fleet (thin over celery)
    fuzzfarm submit checker --jobs 8 --duration 10m --wait
    fuzzfarm status [CAMPAIGN] / crashes [CAMPAIGN] / download BUCKET -o DIR / replay DIR

Every table command takes ``--json``. Errors: one line on stderr that says what to do, exit 2
(``replay`` exits 1 when the reproducer fails as recorded; ``submit --wait`` exits 1 when the
campaign found a bucket).
"""

from fuzzfarm.cli._app import app, main

# Each module adds its commands to ``app`` when imported (``--help`` lists them in this order),
# the older ones by ``register(app)``.
from fuzzfarm.cli import worker, campaigns, bugs, demo  # noqa: E402,F401,I001
from fuzzfarm.cli import local, cancel, ci, new, groups, web, gc, explore, checkport, venv, port  # noqa: E402,I001

for _module in (local, cancel, ci, new, groups, web, gc, explore, checkport, venv, port):
    _module.register(app)

from fuzzfarm.cli.help import whole_sentence_helps  # noqa: E402
whole_sentence_helps(app)  # after every command is on the app

__all__ = ["app", "main"]
