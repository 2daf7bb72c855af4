"""Cross-check against LINE's layered-network solver (docs/predict.md, "A maintained solver"):
the same small model solved by LINE's LN (MVA per layer), by this package's exact solution and
by its simulation, with LINE's solve time. LINE is not a dependency of the testbed; in a
throwaway environment:

    python3 -m venv /tmp/line && /tmp/line/bin/pip install line-solver==3.0.8.0 simpy
    PYTHONPATH=. /tmp/line/bin/python -m analysis.predict.line_check -o line-check.md
"""
from __future__ import annotations

import argparse
import time

from analysis.predict.model import Model, solve_model
from analysis.predict.simulate import simulate

INF = float("inf")
OUTSIDE, CLONE, SERVICE, WAIT = 0.003, 0.001, 0.001, 0.005    # s per request; 2 cores
CASES = ((1, 4), (1, 16), (4, 4), (4, 16))                     # clones, users


def line_lqn(users: int, clones: int):
    from line_solver.constants import SchedStrategy
    from line_solver.distributions import Exp
    from line_solver.layered import Activity, Entry, LayeredNetwork, Processor, Task
    m = LayeredNetwork("stack")
    users_p = Processor(m, "UsersP", INF, SchedStrategy.INF)
    host = Processor(m, "Host", 2, SchedStrategy.PS)
    delay_p = Processor(m, "DelayP", INF, SchedStrategy.INF)
    u = Task(m, "Users", users, SchedStrategy.REF).on(users_p)
    front = Task(m, "Front", INF, SchedStrategy.INF).on(host)
    svc = Task(m, "Service", INF, SchedStrategy.INF).on(host)
    wait = Task(m, "Wait", INF, SchedStrategy.INF).on(delay_p)
    eu, ef, es, ew = (Entry(m, n).on(t) for n, t in (("EU", u), ("EF", front), ("ES", svc), ("EW", wait)))
    Activity(m, "AU", Exp.fit_mean(1e-6)).on(u).bound_to(eu).synch_call(ef, 1)
    af = Activity(m, "AF", Exp.fit_mean(OUTSIDE)).on(front)
    af.bound_to(ef)
    for k in range(clones):
        c = Task(m, f"Clone{k}", 1, SchedStrategy.FCFS).on(host)
        ec = Entry(m, f"EC{k}").on(c)
        ac = Activity(m, f"AC{k}", Exp.fit_mean(CLONE)).on(c)
        ac.bound_to(ec)
        ac.synch_call(es, 1)
        ac.replies_to(ec)
        af.synch_call(ec, 1.0 / clones)
    af.replies_to(ef)
    a_s = Activity(m, "AS", Exp.fit_mean(SERVICE)).on(svc)
    a_s.bound_to(es)
    a_s.synch_call(ew, 1)
    a_s.replies_to(es)
    Activity(m, "AW", Exp.fit_mean(WAIT)).on(wait).bound_to(ew).replies_to(ew)
    return m


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("-o", "--output", required=True, help="markdown table to write")
    args = p.parse_args(argv)
    from line_solver.solvers import LN, MVA
    rows = ["| clones × users | simulation (/s) | exact chain (/s) | LINE LN (/s) | LINE vs simulation | LINE time (s) |",
            "|---|---|---|---|---|---|"]
    for clones, users in CASES:
        m = Model({"host": 2.0}, {"host": OUTSIDE}, {"host": CLONE + SERVICE}, delay_inside=WAIT,
                  lock_servers=clones, clones=clones)
        exact = solve_model(m, users).throughput
        sim = simulate(m, users, min_requests=40000)
        t0 = time.monotonic()
        table = LN(line_lqn(users, clones), lambda x: MVA(x), verbose=False).avg_table()
        line_x = float(table[table["Node"] == "Users"]["Tput"].iloc[0])
        rows.append(f"| {clones} × {users} | {sim.throughput:.1f} ± {sim.throughput_ci:.1f} | {exact:.1f} | "
                    f"{line_x:.1f} | {line_x / sim.throughput - 1:+.1%} | {time.monotonic() - t0:.1f} |")
    with open(args.output, "w") as f:
        f.write("\n".join(rows) + "\n")
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
