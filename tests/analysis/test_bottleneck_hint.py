"""Bottleneck hints: software/lock when CPU idles at a plateau, otherwise the saturated tier."""
from analysis.measure import bottleneck
from analysis.steps import LOADGEN_SATURATED

CAPS = bottleneck.Capacities(host_cores=2)


def plateau_steps(step, cpu, host):
    return [step(0, 1, 50, cpu=cpu, host=host), step(1, 4, 100, cpu=cpu, host=host),
            step(2, 16, 99, cpu=cpu, host=host)]


def test_plateau_with_idle_cpu_is_a_software_bottleneck(step):
    h = bottleneck.hint(plateau_steps(step, {"front": 20.0, "clone": 10.0}, 40.0), CAPS)
    assert h.kind == bottleneck.SOFTWARE and h.plateaued and "software/lock bottleneck (CPU idle)" in h.text


def test_plateau_with_a_busy_tier_names_that_tier(step):
    h = bottleneck.hint(plateau_steps(step, {"front": 20.0, "clone": 170.0}, 195.0), CAPS)
    assert h.kind == bottleneck.CPU and h.saturated[0] == "clone" and "clone" in h.text


def test_busy_host_without_a_busy_tier_is_cpu_bound(step):
    h = bottleneck.hint(plateau_steps(step, {"front": 70.0, "clone": 70.0, "axis": 30.0}, 190.0), CAPS)
    assert h.kind == bottleneck.CPU and not h.saturated and "host" in h.text


def test_rising_throughput_names_no_bottleneck(step):
    steps = [step(0, 1, 50, cpu={"front": 5.0}, host=10.0), step(1, 2, 100, cpu={"front": 9.0}, host=20.0)]
    assert bottleneck.hint(steps, CAPS).kind == bottleneck.RISING


def test_plateau_within_tolerance_counts_as_plateau_even_if_last_step_is_highest(step):
    steps = [step(0, 1, 50, host=10.0, cpu={"front": 5.0}), step(1, 4, 100, host=10.0, cpu={"front": 5.0}),
             step(2, 16, 101, host=10.0, cpu={"front": 5.0})]
    assert bottleneck.hint(steps, CAPS, tolerance=0.03).plateaued


def test_excluded_steps_do_not_make_a_plateau(step):
    steps = [step(0, 1, 50, host=10.0, cpu={"front": 5.0}), step(1, 4, 100, host=10.0, cpu={"front": 5.0}),
             step(2, 16, 90, {LOADGEN_SATURATED: "x"}, host=10.0, cpu={"front": 5.0})]
    assert bottleneck.hint(steps, CAPS).kind == bottleneck.RISING


def test_quota_times_replicas_is_the_tier_capacity(step):
    caps = bottleneck.Capacities.from_experiment({"host": {"cores": 8}, "cpu_quotas": {"clone": 0.5}})
    h = bottleneck.hint(plateau_steps(step, {"clone": 45.0}, 100.0), caps)   # 0.5 core × 1 replica
    assert h.utilisation["clone"] == 0.9 and h.kind == bottleneck.CPU


def test_pinned_stack_is_judged_against_its_own_cores(step):
    caps = bottleneck.Capacities.from_experiment({"host": {"cores": 2}, "cpu_affinity": {"loadgen": "0", "stack": "1"}})
    h = bottleneck.hint(plateau_steps(step, {"front": 50.0, "clone": 40.0}, 110.0), caps)
    assert h.utilisation["stack"] == 0.9 and h.saturated == ["stack"]


def test_no_cpu_samples_gives_no_verdict(step):
    h = bottleneck.hint(plateau_steps(step, {}, None), CAPS)
    assert h.kind == bottleneck.UNKNOWN and "no CPU samples" in h.text


def test_thread_dump_is_added_to_the_hint(step, data):
    dump = (data / "threaddump-contended.txt").read_text()
    h = bottleneck.hint(plateau_steps(step, {"clone": 10.0}, 20.0), CAPS, dumps={("clone", "1"): dump})
    assert "Contended$SingletonClient" in h.text and h.threaddumps[0]["blocked"] == 7


def test_busy_loadgen_core_does_not_make_a_pinned_stack_cpu_bound(step):
    caps = bottleneck.Capacities.from_experiment({"host": {"cores": 2}, "cpu_affinity": {"loadgen": "0", "stack": "1"}})
    h = bottleneck.hint(plateau_steps(step, {"front": 20.0, "loadgen": 95.0}, 170.0), caps)
    assert h.kind == bottleneck.SOFTWARE


def test_a_plateau_that_held_while_other_programs_paused_is_read_at_its_quietest_step(step):
    """Other programs' load came and went: at the max step the host was full, at another step
    of the same plateau it had room and throughput stayed: the host did not make the plateau."""
    cpu = {"front": 10.0, "clone": 5.0}
    steps = [step(0, 4, 50, cpu=cpu, host=30.0), step(1, 12, 100, cpu=cpu, host=196.0),
             step(2, 32, 99, cpu=cpu, host=40.0), step(3, 64, 98, cpu=cpu, host=190.0)]
    h = bottleneck.hint(steps, CAPS, tolerance=0.05)
    assert h.kind == bottleneck.SOFTWARE and h.step == 2 and h.host_utilisation == 0.2
    assert "plateau at 100/s from 12 users (CPU read at 32 users" in h.text
    # every plateau step with the host full: CPU-bound, read at the least busy of them
    busy = [step(0, 4, 50, cpu=cpu, host=30.0), step(1, 12, 100, cpu=cpu, host=196.0),
            step(2, 32, 99, cpu=cpu, host=180.0)]
    h = bottleneck.hint(busy, CAPS, tolerance=0.05)
    assert h.kind == bottleneck.CPU and h.step == 2 and h.host_utilisation == 0.9


CLUSTER = {"host": {"cores": 2}, "stack": {"cluster": {"nodes": {
    "node-1": {"role": "manager", "cpus": 1.0}, "node-2": {"role": "worker", "cpus": 1.0},
    "node-3": {"role": "worker", "cpus": 1.0}}}}}
PLACED = {"notes": {"stack": {"front-1": {"node": "node-2"}, "clone-1": {"node": "node-3"},
                              "clone-2": {"node": "node-3"}}}}


def _on_nodes(steps, nodes):
    for s in steps:
        s.nodes = dict(nodes)
    return steps


def test_on_a_cluster_a_tier_is_judged_against_its_nodes_quota_and_named_with_its_node(step):
    caps = bottleneck.Capacities.from_experiment(CLUSTER).for_run(PLACED)
    assert caps.tier_nodes == {"front": ("node-2",), "clone": ("node-3",)}
    steps = _on_nodes(plateau_steps(step, {"front": 20.0, "clone": 92.0}, 130.0),
                      {"node-1": 10.0, "node-2": 25.0, "node-3": 97.0})
    h = bottleneck.hint(steps, caps)
    assert h.utilisation["clone"] == 0.92 and h.kind == bottleneck.CPU
    assert "tier clone on node-3 at 92% of capacity" in h.text
    assert h.nodes["node-3"] == 0.97


def test_a_saturated_node_is_named_with_its_tiers_when_no_tier_alone_is(step):
    caps = bottleneck.Capacities.from_experiment(CLUSTER).for_run(PLACED)
    steps = _on_nodes(plateau_steps(step, {"front": 20.0, "clone": 60.0}, 130.0),
                      {"node-1": 10.0, "node-2": 25.0, "node-3": 90.0})     # the node's engine, JIT ...
    h = bottleneck.hint(steps, caps)
    assert h.kind == bottleneck.CPU and "node node-3 (clone) at 90% of its 1 CPU" in h.text


def test_on_a_cluster_idle_nodes_keep_the_software_verdict(step):
    caps = bottleneck.Capacities.from_experiment(CLUSTER).for_run(PLACED)
    steps = _on_nodes(plateau_steps(step, {"front": 20.0, "clone": 15.0}, 60.0),
                      {"node-1": 10.0, "node-2": 25.0, "node-3": 20.0})
    h = bottleneck.hint(steps, caps)
    assert h.kind == bottleneck.SOFTWARE and "no tier or node above 80%" in h.text
