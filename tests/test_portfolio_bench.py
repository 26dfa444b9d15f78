"""benchmarks.portfolio's launch -> verified figure: the median over seeds, where a seed whose
input did not replay N/N (e.g. 9 of 10 fresh replays) counts as not verified, like a seed that
found nothing. Synthetic per-seed records: the measured run is in the slow tier."""

from __future__ import annotations

from benchmarks import portfolio


def _seed(seed, verified_s, reproducible):
    # verify_time reports reproducible=False unless all n replays failed with the signature
    return {"seed": seed, "found": True, "seconds": 1.0, "verified_s": verified_s,
            "verify": {"minimize_s": 1.0, "verify_s": verified_s - 2.0, "reproducible": reproducible, "n": 10,
                       "size": "9 -> 3"}}


def _row(r, found=3):
    x = {"first_failure_s": 1.0, "first_failure_censored": False, "found": found, "of": 3, **r}
    data = {"cases": [{"case": "checker", "strategies": {"mix": x},
                       "stress": {"first_failure_s": 0.5, "first_failure_censored": False, "found": 3, "of": 3}}],
            "distinct": []}
    return portfolio.rows(data)[0][2]


def test_a_seed_replaying_9_of_10_is_not_verified_and_is_ordered_last():
    # the fastest seed (3.0 s) replayed 9/10: ordered after 4.0 and 5.0, the median is 5.0, not 4.0
    r = portfolio.verified_over_seeds([_seed(1, 3.0, False), _seed(2, 4.0, True), _seed(3, 5.0, True)])
    assert r["verified_s"] == 5.0
    assert r["reproducible"] == 2
    assert "verified 5 s (" in _row(r) and "2/3 seeds' inputs reproducible" in _row(r)


def test_a_median_seed_not_replaying_n_of_n_leaves_no_verified_time():
    # two of three seeds not reproducible: the median is not verified, so no time is quoted
    r = portfolio.verified_over_seeds([_seed(1, 3.0, False), _seed(2, 4.0, False), _seed(3, 5.0, True)])
    assert r["verified_s"] is None
    assert r["reproducible"] == 1
    assert "verified - s" in _row(r) and "1/3 seeds' inputs reproducible" in _row(r)


def test_seeds_all_replaying_n_of_n_give_the_plain_median_and_a_seed_that_found_nothing_counts_last():
    nothing = {"seed": 3, "found": False, "seconds": 20.0}
    r = portfolio.verified_over_seeds([_seed(1, 6.0, True), _seed(2, 4.0, True), nothing])
    assert r["verified_s"] == 6.0 and r["reproducible"] == 2 and r["verify"]["verify_s"] == 4.0
    assert "2/2 seeds' inputs reproducible" in _row(r, found=2)
    r = portfolio.verified_over_seeds([_seed(1, 3.0, True), _seed(2, 4.0, True), _seed(3, 5.0, True)])
    assert r["verified_s"] == 4.0 and "3/3 seeds' inputs reproducible" in _row(r)
