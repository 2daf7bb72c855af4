"""CPU per node of a cluster (analysis/measure/nodes.py): the node rows of cpu.csv kept apart from the
tiers, and each node's CPU at the max-throughput step beside its quota and its replicas."""
from types import SimpleNamespace

from analysis import steps
from analysis.load import cpu
from analysis.load.settings import Settings
from analysis.measure import nodes
from analysis.measure.maxima import RunMaximum

CSV = """timestamp,tier,replica,pid,cpu_percent
10.5,clone,1,4242,40.0
10.5,node,node-3,900,55.0
10.5,node,node-2,800,20.0
10.5,host,all,,120.0
11.5,clone,1,4242,42.0
11.5,node,node-3,900,57.0
11.5,node,node-2,800,22.0
"""


def test_node_rows_are_kept_apart_from_the_tiers_of_a_step():
    samples = cpu.parse(CSV.splitlines(True)).samples
    s = steps.StepSample("r", 0, 8, 10.0, 10.0, 12.0, 2.0)
    steps._cpu_sample(s, samples, 10.0, 12.0, Settings())
    assert s.cpu == {"clone": 41.0} and "node" not in s.cpu
    assert s.nodes == {"node-3": 56.0, "node-2": 21.0}


def test_each_node_is_set_beside_its_quota_and_the_replicas_it_ran():
    at = steps.StepSample("r1", 2, 32, 0.0, 0.0, 1.0, 1.0, throughput=40.0)
    at.nodes = {"node-10": 30.0, "node-3": 95.0, "node-2": 20.0}
    run = SimpleNamespace(id="r1", meta={"notes": {"stack": {"clone-1": {"node": "node-3"},
                                                              "front-1": {"node": "node-2"}}}})
    m = RunMaximum(max_throughput=40.0, critical_users=32, step=2, valid_steps=3, excluded_steps=0, reason=None)
    exp = {"host": {"cores": 2}, "stack": {"cluster": {"nodes": {"node-2": {"cpus": 1.0, "role": "worker"},
                                                                  "node-3": {"cpus": 0.5, "role": "worker"}}}}}
    rows = nodes.rows([run], {"r1": [at]}, {"r1": m}, exp)
    assert [r["node"] for r in rows] == ["node-2", "node-3", "node-10"]      # in natural order
    three = rows[1]
    assert (three["replicas"], three["cpus"], round(three["utilisation"], 2)) == (["clone-1"], 0.5, 1.9)
    assert rows[2]["cpus"] is None and rows[2]["utilisation"] == 30.0 / 200   # no quota: the host's cores
    assert nodes.rows([run], {"r1": []}, {"r1": m}, exp) == []
