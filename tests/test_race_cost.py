"""benchmarks/race_cost.py: it measures every mode and keeps its doc section across suite rewrites."""

import json
import subprocess
import sys

from benchmarks import race_cost


def test_race_cost_prints_a_row_per_target_with_all_modes(tmp_path):
    out = subprocess.run([sys.executable, "-m", "benchmarks.race_cost", "--seconds", "0.05", "--inputs", "3",
                          "--targets", "examples:fixed", "--json"], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    res = json.loads(out.stdout.strip().splitlines()[-1])
    (row,) = res["rows"]
    assert row["harness"] == "examples" and set(row["runs_per_s"]) == {"off", "default", "on"}
    assert all(v > 0 for v in row["runs_per_s"].values()) and row["races_on"] == 0


def test_doc_section_replaces_itself_and_survives_the_suite_rewrite(tmp_path):
    from benchmarks import run_all

    doc = tmp_path / "B.md"
    doc.write_text("# x\n\n## Reproduce\n\n    cmd\n")
    row = {"harness": "h", "variant": "v", "inputs": 1, "runs_per_s": {"off": 2.0, "default": 2.0, "on": 1.0},
           "cost_on": 2.0, "cost_default": 1.0, "races_on": 0}
    race_cost.write_doc(race_cost.doc_section([row], 1, 1), str(doc))
    race_cost.write_doc(race_cost.doc_section([dict(row, cost_on=1.5)], 1, 1), str(doc))
    text = doc.read_text()
    assert text.count(race_cost.BEGIN) == 1 and "1.50×" in text and text.index(race_cost.END) < text.index("## Reproduce")
    kept = run_all._kept_sections(str(doc))
    assert kept and "1.50×" in kept[0]
