"""benchmarks/window_probe.py counts what it says: a hit is the timer firing between Y's two
non-blocking receives, the walks respect the farm's starvation bound, and the stress rows run.
Figures are not checked (``python -m benchmarks.window_probe`` measures them)."""

from benchmarks import window_probe as WP


def test_walks_land_the_timer_inside_the_window_when_the_bound_allows_it():
    (r,) = WP.walks(0.05, 200, names=("random",))
    assert r["runs"] == 200 and 0 < r["hits"] < 200


def test_a_timer_due_beyond_the_starvation_bound_never_lands_in_the_window():
    # Y is runnable between S1 and S2: firing T 0.5 s early would starve it past 0.1 s
    (r,) = WP.walks(0.5, 200, names=("random",))
    assert r["hits"] == 0


def test_stress_rows_run_on_threads():
    (r,) = WP.stress(0.05, 0.3, settings=[(1e-5, 1.0, 1e-4)])
    assert r["runs"] > 0 and 0 <= r["hits"] <= r["runs"] and "scale=0.0001" in r["who"]


def test_bad_eps_is_one_line_and_exit_2(capsys):
    assert WP.main(["--eps", "x"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--eps" in err


class _FireAtOffer:
    """Fires the pending timer at its k-th offer, else keeps the current goroutine running."""

    def __init__(self, k):
        self.k, self.offers = k, 0

    def begin(self, rt):
        pass

    def pick(self, runnable, current, timer):
        if timer:
            self.offers += 1
            if self.offers == self.k:
                return len(runnable)
        return next((i for i, g in enumerate(runnable) if g is current), 0)

    def pick_index(self, n, what):
        return 0


def test_a_hit_is_exactly_the_timer_firing_between_the_two_receives():
    # after Y's sleep fires, the timer is offered as Y resumes, at S1's scheduling point, at S2's,
    # then at Y's send: only the third lands between the two receives
    run = lambda k: WP._hit(WP.gosim.run(WP.scenario(0.05), strategy=_FireAtOffer(k), max_starvation_s=0.1))
    assert [run(k) for k in (1, 2, 3, 4, 99)] == [False, False, True, False, False]


def test_another_failure_is_not_a_hit():
    from fuzzfarm.strategies import make
    r = WP.gosim.run(lambda: WP.gosim.Chan().recv(), strategy=make("random", seed=1))
    assert r.failure is not None and r.failure.kind == "deadlock" and not WP._hit(r)
