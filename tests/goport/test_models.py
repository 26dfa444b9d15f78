"""The models registry of `fuzzfarm port` (fuzzfarm/goport/models.py, docs/PORT.md#models).

testdata/stubbed calls textproto.CanonicalMIMEHeaderKey; "net/textproto" has no model, so the
port writes a stub the user fills in (and says so on one line), and the generated harness
refuses to load while the stub is unfilled: an unfilled stub must never run and be bucketed as a
bug in the Go. A model registered in the process (models.register) or by an installed package
(the fuzzfarm.gomodels entry point) replaces the stub.
"""

from __future__ import annotations

import os
import sys

import pytest

from fuzzfarm.cli import main as cli_main
from fuzzfarm.goport import models

from tests.go_fixtures import go  # noqa: F401 - the fixture
from tests.goport.test_port import DATA, inputs, load

SRC = os.path.join(DATA, "stubbed")
UPPER = "    return label.upper() if isinstance(label, str) else label\n"


def port(tmp_path, capsys):
    out = tmp_path / "out"
    with pytest.raises(SystemExit) as e:
        cli_main(["port", SRC, "-o", str(out), "--test", "TestScenario"])
    assert e.value.code == 0
    return out, capsys.readouterr().out.strip().splitlines()


def fill(stub_file):
    """What a user does: replace the stub's body with the function, drop its @rt.stub line."""
    text = stub_file.read_text()
    text = text.replace('@rt.stub("net/textproto.CanonicalMIMEHeaderKey", "out_port")\n', "")
    text = text.replace("def CanonicalMIMEHeaderKey(*args):", "def CanonicalMIMEHeaderKey(label):")
    text = text.replace('    raise rt.StubNotFilled("net/textproto.CanonicalMIMEHeaderKey", "out_port")\n', UPPER)
    stub_file.write_text(text)


def test_an_unmodelled_import_is_a_stub_listed_and_refused_until_filled(go, tmp_path, capsys):
    out, lines = port(tmp_path, capsys)
    stub = out / "out_port" / "stub_net_textproto.py"
    assert lines[-1] == (f'stub to fill in: {stub}: import "net/textproto" has no gosim model; '
                         'it calls net/textproto.CanonicalMIMEHeaderKey'), lines
    assert "fill in the stubs below" in lines[0]
    with pytest.raises(ImportError, match=r"stub\(s\) not filled in yet \(net/textproto.CanonicalMIMEHeaderKey\)"):
        load(out, "harness")
    # called directly (not through the harness), the stub says what it is
    mod = load(out, "port")
    with pytest.raises(Exception, match="net/textproto.CanonicalMIMEHeaderKey is a stub written by fuzzfarm port"):
        mod.stub_net_textproto.CanonicalMIMEHeaderKey("a")
    fill(stub)
    h = load(out, "harness")
    failures = [h.execute(d, "port").failure for d in inputs(30)]
    # both goroutines write the same key: with the stub filled in the program is correct, and
    # the run never fails (an unfilled stub would have failed every run)
    assert failures == [None] * 30, [f for f in failures if f][:1]


@pytest.fixture
def strings_model(tmp_path):
    """A user's model of textproto.CanonicalMIMEHeaderKey (upper-casing is enough for one letter), as an importable module."""
    d = tmp_path / "usermodels"
    d.mkdir()
    (d / "my_strings_model.py").write_text("def to_upper(s):\n    return s.upper()\n\n"
                                           "from fuzzfarm.goport.models import Model\n"
                                           "MODELS = [Model('net/textproto', funcs={'CanonicalMIMEHeaderKey': 'my_strings_model.to_upper'},"
                                           " imports=('import my_strings_model',))]\n")
    sys.path.insert(0, str(d))
    yield d
    sys.path.remove(str(d))
    sys.modules.pop("my_strings_model", None)


def _runs_clean_with_the_model(out):
    src = (out / "out_port" / "port.py").read_text()
    assert "my_strings_model.to_upper(label)" in src and "import my_strings_model" in src, src
    assert not (out / "out_port" / "stub_net_textproto.py").exists()
    h = load(out, "harness")
    assert [h.execute(d, "port").failure for d in inputs(20)] == [None] * 20


def test_a_registered_model_replaces_the_stub(go, tmp_path, capsys, strings_model, monkeypatch):
    import my_strings_model
    monkeypatch.setattr(models, "_registered", [])
    models.register(my_strings_model.MODELS[0])
    out, lines = port(tmp_path, capsys)
    assert not any(ln.startswith("stub to fill in") for ln in lines), lines
    _runs_clean_with_the_model(out)


def test_an_installed_package_s_entry_point_registers_a_model(go, tmp_path, capsys, strings_model):
    """The fuzzfarm.gomodels entry point of an installed distribution (its dist-info on sys.path)."""
    info = strings_model / "my_strings_model-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: my-strings-model\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[fuzzfarm.gomodels]\ntextproto = my_strings_model:MODELS\n")
    assert "net/textproto" in models.registry()
    out, lines = port(tmp_path, capsys)
    assert not any(ln.startswith("stub to fill in") for ln in lines), lines
    _runs_clean_with_the_model(out)


def test_a_broken_model_entry_point_is_one_line(tmp_path, strings_model):
    info = strings_model / "bad_models-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: bad-models\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[fuzzfarm.gomodels]\nbad = my_strings_model:to_upper\n")
    with pytest.raises(models.ModelError, match="is a function, not a fuzzfarm.goport.models.Model"):
        models.registry()
