"""CPU quota groups of the local stack (cli/testbed/cpu/quotas.py) without touching the system's
cgroups: which hierarchy a mount table gives, where a stack's groups go, the files a quota is
written to in a temporary directory laid out like a cgroup v2 hierarchy, and the errors."""
from __future__ import annotations

from pathlib import Path

import pytest

from testbed.cpu import quotas
from testbed.cpu.quotas import Hierarchy, QuotaError, Quotas

V1_SPLIT = """\
25 24 0:22 / /sys/fs/cgroup ro,nosuid - tmpfs tmpfs ro,mode=755
26 25 0:23 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu
27 25 0:24 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct
28 25 0:25 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
29 25 0:26 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
"""
V1_JOINED = """\
30 25 0:27 / /sys/fs/cgroup/cpu,cpuacct rw,nosuid shared:12 - cgroup cgroup rw,cpu,cpuacct
"""
V2 = """\
22 1 0:21 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 rw,nsdelegate
"""


def test_split_v1_cpu_and_cpuacct_are_two_hierarchies_and_v1_wins_over_hybrid_v2():
    h = quotas.find_hierarchy(V1_SPLIT)
    assert h == Hierarchy(1, Path("/sys/fs/cgroup/cpu"), Path("/sys/fs/cgroup/cpuacct"))
    assert h.mounts == [Path("/sys/fs/cgroup/cpu"), Path("/sys/fs/cgroup/cpuacct")]


def test_joined_v1_cpu_cpuacct_is_one_hierarchy():
    h = quotas.find_hierarchy(V1_JOINED)
    assert h.version == 1 and h.mounts == [Path("/sys/fs/cgroup/cpu,cpuacct")]


def test_unified_v2_and_no_cgroup_at_all():
    assert quotas.find_hierarchy(V2) == Hierarchy(2, Path("/sys/fs/cgroup"), Path("/sys/fs/cgroup"))
    assert quotas.find_hierarchy("1 0 0:1 / / rw - ext4 /dev/vda rw\n") is None


def test_cores_reads_compose_knobs_and_refuses_what_compose_would():
    assert quotas.cores({"CPUS_CLONE": "0.5"}, "clone") == 0.5
    assert quotas.cores({"CPUS_CLONE": "0"}, "clone") is None
    assert quotas.cores({}, "clone") is None
    for bad in ("half", "-1", "0.001", "65"):
        with pytest.raises(QuotaError, match=r"CPUS_CLONE=.*expected cores per replica"):
            quotas.cores({"CPUS_CLONE": bad}, "clone")


def test_two_state_dirs_never_share_a_group(tmp_path):
    a, b = quotas.stack_id(tmp_path / "one" / ".testbed"), quotas.stack_id(tmp_path / "two" / ".testbed")
    assert a != b and a.startswith("one-testbed-") and b.startswith("two-testbed-")
    assert quotas.stack_id(tmp_path / "one" / ".testbed") == a          # stable


def test_parent_root_by_default_a_users_delegated_service_otherwise_or_the_knob():
    own = "0::/user.slice/user-1000.slice/user@1000.service/app.slice/run-r1.scope\n"
    assert quotas.default_parent(own, 0) == "/testbed"
    assert quotas.default_parent(own, 1000) == "/user.slice/user-1000.slice/user@1000.service/testbed"
    assert quotas.default_parent("0::/user.slice/user-1000.slice/session-2.scope\n", 1000) == "/testbed"
    q = Quotas(Path("/x/.testbed"), {"TESTBED_CGROUP": "/my/group/"}, own_cgroup=own, uid=1000)
    assert q.parent == "/my/group"


def _v2_tree(root: Path, controllers: str = "cpu memory pids", enabled: str = "memory") -> str:
    """A directory shaped like a cgroup v2 root (the kernel fills a new group's files; here the
    test writes what it needs); the mountinfo line that mounts it."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "cgroup.controllers").write_text(controllers + "\n")
    (root / "cgroup.subtree_control").write_text(enabled + "\n")
    return f"22 1 0:21 / {root} rw,relatime - cgroup2 cgroup2 rw\n"


def test_v2_enables_cpu_down_to_the_stack_and_writes_cpu_max(tmp_path):
    h = _v2_tree(tmp_path / "cg")
    state = tmp_path / "stack" / ".testbed"
    q = Quotas(state, {"CPUS_CLONE": "0.5", "CPUS_AXIS": "2"}, mountinfo=h, own_cgroup="0::/\n", uid=0)
    files = q.place("clone-1", "clone")
    stack = tmp_path / "cg" / "testbed" / quotas.stack_id(state)
    assert files == [str(stack / "clone-1" / "cgroup.procs")]
    # every level from the root hands cpu down: the root (it lacked it), testbed, the stack
    assert (tmp_path / "cg" / "cgroup.subtree_control").read_text() == "+cpu"
    assert (tmp_path / "cg" / "testbed" / "cgroup.subtree_control").read_text() == "+cpu"
    assert (stack / "cgroup.subtree_control").read_text() == "+cpu"
    assert (stack / "clone-1" / "cpu.max").read_text() == "50000 100000"
    assert q.quota("clone-1") == 0.5
    q.place("axis-1", "axis")
    assert (stack / "axis-1" / "cpu.max").read_text() == "200000 100000" and q.quota("axis-1") == 2
    assert q.usage_file("clone-1") is None          # the kernel's cpu.stat: not in a plain directory
    (stack / "clone-1" / "cpu.stat").write_text("usage_usec 5\n")
    assert q.usage_file("clone-1") == str(stack / "clone-1" / "cpu.stat")


def test_v2_leaves_subtree_control_alone_where_cpu_is_on_and_updates_a_quota(tmp_path):
    h = _v2_tree(tmp_path / "cg", enabled="cpu memory")
    q = Quotas(tmp_path / "s", {"CPUS_GSOAP": "0.25"}, mountinfo=h, own_cgroup="0::/\n", uid=0)
    q.place("gsoap-1", "gsoap")
    assert (tmp_path / "cg" / "cgroup.subtree_control").read_text() == "cpu memory\n"
    q.knobs["CPUS_GSOAP"] = "1.5"            # restart with a new knob: the same group, new quota
    q.place("gsoap-1", "gsoap")
    assert q.quota("gsoap-1") == 1.5


def test_v2_no_quota_makes_no_group(tmp_path):
    h = _v2_tree(tmp_path / "cg")
    q = Quotas(tmp_path / "s", {"CPUS_FRONT": "0"}, mountinfo=h, own_cgroup="0::/\n", uid=0)
    assert q.place("front-1", "front") == []
    assert not (tmp_path / "cg" / "testbed").exists() and q.quota("front-1") is None


def test_v2_without_the_cpu_controller_says_so(tmp_path):
    h = _v2_tree(tmp_path / "cg", controllers="hugetlb")
    q = Quotas(tmp_path / "s", {"CPUS_CLONE": "0.5"}, mountinfo=h, own_cgroup="0::/\n", uid=0)
    with pytest.raises(QuotaError, match=r"cgroup.controllers has no cpu controller \(hugetlb\)"):
        q.place("clone-1", "clone")


def test_each_refusal_reads_as_its_fix():
    import errno
    where = Path("/sys/fs/cgroup/testbed")
    assert "cgroup v1 lets root alone make groups): run ./testbed as root" in \
        quotas._why(OSError(errno.EACCES, "x"), where, 1)
    v2 = quotas._why(OSError(errno.EACCES, "x"), where, 2)
    assert "Delegate=cpu" in v2 and "systemd-run --user --scope" in v2 and "TESTBED_CGROUP" in v2
    assert "read-only" in quotas._why(OSError(errno.EROFS, "x"), where, 2)
    assert "holds processes of its own" in quotas._why(OSError(errno.EBUSY, "x"), where, 2)


def test_no_cgroup_hierarchy_names_the_knob(tmp_path):
    q = Quotas(tmp_path / "s", {"CPUS_CLONE": "0.5"}, mountinfo="1 0 0:1 / / rw - ext4 /dev/vda rw\n",
               own_cgroup="", uid=0)
    with pytest.raises(QuotaError, match=r"CPUS_CLONE=0.5 needs the cgroup cpu controller.*CPUS_CLONE=0"):
        q.place("clone-1", "clone")
    assert q.clear() == [] and q.pids() == {}         # nothing to clean: no error either
