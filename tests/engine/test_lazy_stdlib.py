"""``lazy_stdlib.defer``: the module is in ``sys.modules`` unrun, ``import`` of it does not run it,
and the first use of anything in it gets the real, fully run module. Fresh interpreters: deferring
changes ``sys.modules`` for good."""

from __future__ import annotations

import json
import subprocess
import sys

PROBE = """
import json, sys
from fuzzfarm.engine.lazy_stdlib import defer
defer("inspect")
import dataclasses, inspect
out = {"after_import": "signature" in vars(inspect)}

@dataclasses.dataclass
class Documented:
    \"\"\"Has a docstring: dataclasses leaves inspect alone.\"\"\"
    x: int = 1

out["after_documented"] = "signature" in vars(inspect)

@dataclasses.dataclass
class Bare:
    x: int = 1

out["after_bare"] = "signature" in vars(inspect)
out["bare_doc"] = Bare.__doc__
out["real_module"] = type(sys.modules["inspect"]) is type(sys)
out["signature"] = str(inspect.signature(Documented))
print(json.dumps(out))
"""


def test_defer_runs_the_module_at_first_use_only():
    p = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["after_import"] is False and out["after_documented"] is False
    # dataclasses' one use of inspect (a docstring for a class without one) gets the real module
    assert out["after_bare"] is True and out["bare_doc"] == "Bare(x: int = 1)"
    assert out["real_module"] is True and out["signature"] == "(x: int = 1) -> None"


def test_defer_leaves_an_imported_module_alone():
    code = ("import sys, inspect; m = sys.modules['inspect']\n"
            "from fuzzfarm.engine.lazy_stdlib import defer\n"
            "defer('inspect'); defer('no_such_module_xyz'); print(sys.modules['inspect'] is m, 'no_such_module_xyz' in sys.modules)")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert p.stdout.split() == ["True", "False"], p.stderr
