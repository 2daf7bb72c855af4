"""The prediction model's solvers against answers known in closed form or published
(analysis/predict: network, chain, model, surrogate, simulate)."""
import math

import pytest

from analysis.predict.model import Model, solve_model
from analysis.predict.network import INF, Station, solve
from analysis.predict.simulate import simulate
from analysis.predict import surrogate


def repairman(n: int, z: float, s: float, c: int = 1) -> float:
    """Throughput of the finite-source queue M/M/c//n (n users thinking z, c servers of mean
    service s): the textbook birth-death solution."""
    p = [1.0]
    for k in range(1, n + 1):
        p.append(p[-1] * (n - k + 1) / z * s / min(k, c))
    total = sum(p)
    return sum(pk * min(k, c) / s for k, pk in enumerate(p)) / total


def test_a_single_queue_with_many_sources_is_the_open_mm1():
    # 2000 users each requesting every 40 s: arrivals 50/s nearly Poisson; service 10 ms
    sol = solve([Station("think", 40.0, INF), Station("cpu", 0.010)], 2000)
    assert sol.throughput == pytest.approx(50.0, rel=1e-3)
    # M/M/1: R = S / (1 - rho) = 0.010 / 0.5
    assert sol.residence["cpu"] == pytest.approx(0.020, rel=2e-3)


@pytest.mark.parametrize("n,c", [(1, 1), (5, 1), (40, 1), (5, 2), (40, 2), (40, 3)])
def test_finite_source_queue_matches_its_birth_death_solution(n, c):
    sol = solve([Station("think", 0.5, INF), Station("cpu", 0.04, c)], n)
    assert sol.throughput == pytest.approx(repairman(n, 0.5, 0.04, c), rel=1e-9)


def test_lazowska_chapter_6_terminal_system_published_mva_figures():
    # Lazowska et al., Quantitative System Performance (1984), ch. 6, p. 117: N = 3 terminals,
    # Z = 15 s, CPU 121 visits x 5 ms, disk 1 70 x 30 ms, disk 2 50 x 27 ms; exact MVA gives the
    # queue lengths 0.0976, 0.3947, 0.2350 (the LQNS libmva regression uses the same case)
    sol = solve([Station("think", 15.0, INF), Station("cpu", 121 * 0.005), Station("disk1", 70 * 0.030),
                 Station("disk2", 50 * 0.027)], 3)
    assert sol.queue["cpu"] == pytest.approx(0.0976, abs=1e-3)
    assert sol.queue["disk1"] == pytest.approx(0.3947, abs=1e-3)
    assert sol.queue["disk2"] == pytest.approx(0.2350, abs=1e-3)
    assert sol.throughput == pytest.approx(0.152, abs=1e-3)
    assert sol.response_time + 15.0 == pytest.approx(3 / sol.throughput)


def test_a_lock_bound_singleton_serves_one_over_its_holding_time():
    # plenty of CPU; each call holds the lock 10 ms (a wait) after 1 ms of CPU outside it
    m = Model({"host": 64.0}, {"host": 0.001}, {}, delay_inside=0.010, lock_servers=1)
    for n in (2, 8, 64):
        p = solve_model(m, n)
        assert p.method == "Markov chain (exact)"
        # the lock is a single exponential server fed by n users "thinking" 1 ms: M/M/1//n
        assert p.throughput == pytest.approx(repairman(n, 0.001, 0.010), rel=1e-6)
        assert p.bottleneck == "lock"
    assert solve_model(m, 64).throughput == pytest.approx(100.0, rel=1e-3)


def test_more_lock_servers_than_users_is_solved_in_product_form_and_agrees_with_the_chain():
    m = Model({"host": 2.0}, {"host": 0.003}, {"host": 0.001}, delay_inside=0.005, lock_servers=8)
    pf = solve_model(m, 8)
    assert pf.method == "product form (exact)"
    # one user more than lock servers: the chain; it cannot be faster than 8 users without the lock
    ch = solve_model(m, 9)
    assert ch.method == "Markov chain (exact)"
    assert pf.throughput < ch.throughput <= solve_model(Model({"host": 2.0}, {"host": 0.004}, {},
                                                              delay_inside=0.005), 9).throughput


@pytest.mark.parametrize("lock,clones,users", [(1, 1, 16), (2, 2, 16), (4, 4, 64), (8, 1, 16), (INF, 1, 16)])
def test_simulation_agrees_with_the_analytic_solution_within_two_percent(lock, clones, users):
    m = Model({"host": 2.0}, {"host": 0.0028}, {"host": 0.00145}, delay_inside=0.0053, lock_servers=lock,
              clones=clones)
    p = solve_model(m, users)
    s = simulate(m, users, min_requests=20000)
    assert p.throughput == pytest.approx(s.throughput, rel=0.02)
    assert p.response_time == pytest.approx(s.response_time, rel=0.02)


def test_a_crowded_demand_grows_with_the_requests_per_clone_in_the_solution_and_the_simulation():
    """Model.crowded / crowding: the per-request clone's build at 1 at 2 requests a clone, 1.5 at
    64, linear between and held beyond; the model at n users is solved with the demand at n / clones
    (CPU-bound: 2 cores over it), and the simulation, drawing each build at the requests present
    when it starts, agrees within 2 %."""
    m = Model({"host": 2.0}, {"host": 0.003}, delay_outside=0.001, crowded={"host": 0.001},
              crowding=[(64, 1.5), (2, 1.0)], clones=2)
    assert m.crowding == ((2.0, 1.0), (64.0, 1.5))
    assert [m.factor(n) for n in (1, 4, 66, 128, 400)] == pytest.approx([1.0, 1.0, 1.25, 1.5, 1.5])
    assert m.at(66).outside == pytest.approx({"host": 0.00325}) and m.at(66).crowded == {}
    for users in (4, 66, 128):
        p = solve_model(m, users)
        assert p.throughput == pytest.approx(solve_model(m.at(users), users).throughput)
        assert p.throughput < 2 / 0.003 and p.utilisation["cpu:host"] <= 1 + 1e-9
        s = simulate(m, users, min_requests=20000)
        assert p.throughput == pytest.approx(s.throughput, rel=0.02)
    assert solve_model(m, 128).throughput == pytest.approx(2 / 0.0035, rel=0.01)
    with pytest.raises(ValueError, match="within its outside demand"):
        Model({"host": 2.0}, {"host": 0.001}, crowded={"host": 0.002}, crowding=[(2, 1.0), (64, 1.2)])


def test_the_check_simulates_the_models_one_lock_queue_and_leastconn_is_what_it_leaves_out():
    # the model of a quick run's 2 singleton clones where the check once read 2.4 % (its
    # simulation gave each clone its own queue): the exact chain and the simulation of the same
    # model agree well within 2 %; per-clone queues chosen by least connections serve less,
    # since a freed clone can idle while the other still has a request waiting
    m = Model({"host": 1.8033}, {"host": 0.009941}, {"host": 0.0037242}, delay_inside=0.064989,
              delay_outside=0.182434, lock_servers=2, clones=2, concurrency=200)
    p = solve_model(m, 8)
    shared = simulate(m, 8)
    leastconn = simulate(m, 8, dispatch="leastconn")
    assert p.method == "Markov chain (exact)" and p.throughput == pytest.approx(shared.throughput, rel=0.01)
    assert leastconn.throughput < shared.throughput - shared.throughput_ci - leastconn.throughput_ci
    with pytest.raises(ValueError, match="shared or leastconn"):
        simulate(m, 8, dispatch="random")


def test_the_checks_side_by_side_answer_what_one_process_answers():
    from analysis.predict.check import check_all
    points = [(Model({"host": 2.0}, {"host": 0.0028}, {"host": 0.00145}, delay_inside=0.0053, lock_servers=lock), users)
              for lock, users in ((1, 4), (2, 8), (INF, 16))]
    points = [(m, solve_model(m, u).to_json()) for m, u in points]
    alone = check_all(points, processes=1, requests=3000)
    assert check_all(points, processes=2, requests=3000) == alone       # in order, the same seeds
    assert [c["requests"] >= 3000 for c in alone] == [True] * 3


def test_think_time_goes_through_a_flow_equivalent_station():
    m = Model({"host": 2.0}, {"host": 0.003}, {"host": 0.001}, delay_inside=0.005, lock_servers=1, think_time=0.5)
    low = solve_model(m, 2)
    assert "flow-equivalent" in low.method
    assert low.throughput == pytest.approx(2 / (0.5 + 0.009), rel=0.02)    # nobody waits
    high = solve_model(m, 400)
    assert high.throughput == pytest.approx(solve_model(Model(**{**m.__dict__, "think_time": 0.0}), 64).throughput,
                                            rel=1e-3)
    assert high.response_time == pytest.approx(400 / high.throughput - 0.5)


def test_surrogate_delays_stay_near_the_exact_chain():
    m = Model({"host": 2.0}, {"host": 0.0028}, {"host": 0.00145}, delay_inside=0.0053, lock_servers=2, clones=2)
    x, hold, wait = surrogate.solve(m, 16)
    exact = solve_model(m, 16)
    assert x == pytest.approx(exact.throughput, rel=0.05)
    assert hold == pytest.approx(exact.lock_hold, rel=0.10)


def test_bad_models_are_refused_with_the_reason():
    with pytest.raises(ValueError, match="pool 'disk'"):
        Model({"host": 2.0}, {"disk": 0.001})
    with pytest.raises(ValueError, match="users must be >= 1"):
        solve_model(Model({"host": 2.0}, {"host": 0.001}), 0)
    assert math.isinf(Model({"host": 1.0}, {"host": 0.001}).lock_servers)
