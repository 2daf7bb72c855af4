"""The readiness gate of the haproxy container (cli/testbed/haproxy/gate.py): what it sets
for each kind of slot, from `show servers state` text as HAProxy 2.6 prints it."""
from __future__ import annotations

from testbed.haproxy.gate import CMAINT, FMAINT, RMAINT, Gate, parse_state

HEAD = ("1\n# be_id be_name srv_id srv_name srv_addr srv_op_state srv_admin_state srv_uweight srv_iweight "
        "srv_time_since_last_change srv_check_status srv_check_result srv_check_health srv_check_state "
        "srv_agent_state bk_f_forced_id srv_f_forced_id srv_fqdn srv_port srvrecord\n")


def row(server: str, addr: str, op: int, admin: int, port: int = 8080) -> str:
    return f"3 clone {server[-1]} {server} {addr} {op} {admin} 1 1 5 1 0 0 6 0 0 0 clone {port} -\n"


def test_state_rows_are_parsed_with_address_states_and_port():
    rows = parse_state(HEAD + row("clone1", "172.18.0.5", 2, 0) + row("clone2", "-", 0, RMAINT | CMAINT, 0))
    assert rows[0] == {"backend": "clone", "server": "clone1", "addr": "172.18.0.5", "op": 2, "admin": 0,
                       "port": 8080}
    assert rows[1]["addr"] == "-" and rows[1]["admin"] & RMAINT


def test_a_starting_replica_is_put_in_rotation_only_once_healthy():
    healthy = {"172.18.0.5": False}
    gate = Gate(lambda addr, port: healthy[addr])
    rows = parse_state(HEAD + row("clone1", "172.18.0.5", 0, CMAINT))
    assert gate.decide(rows) == []                       # still starting: stays in maintenance
    healthy["172.18.0.5"] = True
    assert gate.decide(rows) == [("clone", "clone1", "ready")]
    # HAProxy keeps the config bit after ready; a DOWN replica is not readied again and again
    assert gate.decide(parse_state(HEAD + row("clone1", "172.18.0.5", 0, CMAINT))) == []


def test_an_emptied_slot_goes_back_to_maintenance_for_the_next_replica():
    gate = Gate(lambda addr, port: True)
    assert gate.decide(parse_state(HEAD + row("clone2", "-", 0, RMAINT))) == [("clone", "clone2", "maint")]
    # a new replica takes the slot: the gate's own maintenance is lifted once it is healthy
    assert gate.decide(parse_state(HEAD + row("clone2", "172.18.0.9", 0, FMAINT))) == [("clone", "clone2", "ready")]


def test_a_slot_someone_else_put_in_maintenance_or_drain_is_left_alone():
    gate = Gate(lambda addr, port: True)
    drained = 0x08
    rows = parse_state(HEAD + row("clone1", "172.18.0.5", 0, FMAINT) + row("clone3", "172.18.0.7", 2, drained))
    assert gate.decide(rows) == []
