"""docker-compose.yml and its override, checked against the rest of the project without
Docker: every knob has its one home in .env, each tier's container gets the environment
./testbed's local mode gives it (tiers.process_env), images listen where HAProxy looks
and run what local mode runs, and the base file stays a valid Swarm stack. The docker
mode of the HAProxy config: test_haproxy_docker_mode.py; the live checks: check_stack.py."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from testbed import ROOT, tiers
from testbed.haproxy import config as haproxy
from testbed.observe import tracing
from testbed.config import read_env_file

yaml = pytest.importorskip("yaml", reason="PyYAML is not installed (pip install pyyaml); "
                                          "these checks read docker-compose.yml with it")

BASE = ROOT / "docker-compose.yml"
OVERRIDE = ROOT / "docker-compose.override.yml"
MONITORING = ROOT / "docker-compose.monitoring.yml"
TRACING = ROOT / "docker-compose.tracing.yml"
KNOBS = read_env_file(ROOT / ".env")
BASE_IMAGE = "debian:bookworm-slim"
SCALED = ("front", "clone", "axis", "gsoap", "locust-worker")
# where each tier reaches the tiers it calls: HAProxy's entry points, by service name
# ... and Zipkin, by its service's name: resolvable only while the tracing profile runs
WIRING = {"front": {"CLONES_URL": f"http://haproxy:{haproxy.DOCKER_PORTS['clones_port']}"},
          "clone": {"SOAP_URL": f"http://haproxy:{haproxy.DOCKER_PORTS['soap_port']}"}}
WIRING = {t: {**WIRING.get(t, {}), "ZIPKIN_URL": tracing.DOCKER_ZIPKIN_URL} for t in tiers.TIERS}
# ... and the stack's admin token, for the tiers with admin endpoints: `up` hands it to compose
# (ComposeStack.env), .env holds it empty
WIRING = {t: {**w, **({tiers.ADMIN_ENV: KNOBS[tiers.ADMIN_ENV]} if t in tiers.ADMIN_TIERS else {})} for t, w in WIRING.items()}


class _Loader(yaml.SafeLoader):
    """Reads compose's merge tags (!override, !reset) as the plain values they carry."""


for _tag in ("!override", "!reset"):
    _Loader.add_constructor(_tag, lambda loader, node: (
        loader.construct_sequence(node, deep=True) if isinstance(node, yaml.SequenceNode) else
        loader.construct_mapping(node, deep=True) if isinstance(node, yaml.MappingNode) else
        loader.construct_scalar(node)))


def load(path: Path) -> dict:
    return yaml.load(path.read_text(), Loader=_Loader)


_VAR = re.compile(r"\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)((?::?[-?])[^}]*)?\}")


def interpolate(value, env: dict[str, str]):
    """Compose's ${VAR}, ${VAR:-default} and $$, on a string (other values unchanged)."""
    if not isinstance(value, str):
        return value

    def sub(m: re.Match) -> str:
        if m.group(0) == "$$":
            return "$"
        name, rest = m.group(1), m.group(2) or ""
        if name in env and (env[name] or not rest.startswith(":")):
            return env[name]
        if rest[1:2] == "-" or rest[:1] == "-":
            return rest.split("-", 1)[1]
        raise KeyError(name)
    return _VAR.sub(sub, value)


BASE_DOC, OVERRIDE_DOC, MONITORING_DOC, TRACING_DOC = load(BASE), load(OVERRIDE), load(MONITORING), load(TRACING)
SERVICES = BASE_DOC["services"]
MONITORING_SERVICES = MONITORING_DOC["services"]
TRACING_SERVICES = TRACING_DOC["services"]
ALL_SERVICES = {**SERVICES, **MONITORING_SERVICES, **TRACING_SERVICES}


def dockerfile(service: str) -> Path:
    """The Dockerfile of a service, or of the service that builds the image it runs."""
    spec = ALL_SERVICES[service]
    build = spec.get("build") or next(s["build"] for s in ALL_SERVICES.values()
                                      if s.get("build") and s["image"] == spec["image"])
    return ROOT / build["context"] / build["dockerfile"]


def instructions(path: Path) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) of a Dockerfile, continuation lines joined."""
    out, pending = [], ""
    for line in path.read_text().splitlines():
        if not pending and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        text = (pending + line).strip()
        pending = ""
        word, _, rest = text.partition(" ")
        out.append((word.upper(), rest.strip()))
    return out


def stages(path: Path) -> dict[str, list[tuple[str, str]]]:
    """Each stage's instructions by its name (FROM ... AS name; unnamed: its index), in order."""
    out: dict[str, list[tuple[str, str]]] = {}
    for word, rest in instructions(path):
        if word == "FROM":
            name = rest.partition(" AS ")[2].strip() or str(len(out))
            out[name] = []
        out[name].append((word, rest))
    return out


def image_instructions(service: str) -> list[tuple[str, str]]:
    """The instructions that make the service's image: its build target's stage (the last stage
    without one), after those of the stages it starts FROM (e.g. jre, then front)."""
    all_stages = stages(dockerfile(service))
    spec = ALL_SERVICES[service]
    build = spec.get("build") or next(s["build"] for s in ALL_SERVICES.values()
                                      if s.get("build") and s["image"] == spec["image"])
    name = build.get("target") or list(all_stages)[-1]
    chain = []
    while name in all_stages:
        chain = all_stages[name] + chain
        name = all_stages[name][0][1].partition(" AS ")[0].strip()
    return chain


def runtime_env(service: str) -> dict[str, str]:
    """ENV of the image that runs."""
    env = {}
    for word, rest in image_instructions(service):
        if word == "ENV":
            env.update(dict(pair.split("=", 1) for pair in rest.split()))
    return env


def test_every_variable_the_compose_files_use_has_its_one_home_in_env():
    for path in (BASE, OVERRIDE, MONITORING):
        text = path.read_text()
        names = {m.group(1) for m in _VAR.finditer(text) if m.group(1)}
        assert names, path
        assert not names - KNOBS.keys(), f"{path.name}: not in .env: {sorted(names - KNOBS.keys())}"
        defaults = [m.group(0) for m in _VAR.finditer(text) if m.group(2)]
        assert not defaults, f"{path.name}: defaults belong in .env, not here: {defaults}"


@pytest.mark.parametrize("tier", sorted(tiers.TIERS))
def test_each_tier_container_gets_the_environment_local_mode_gives_it(tier):
    image_env = runtime_env(tier)
    image_env.pop("TESTBED_AGENTS_DIR", None)        # where the image keeps the JVM agents: no knob
    compose_env = {k: interpolate(str(v), KNOBS) for k, v in SERVICES[tier].get("environment", {}).items()}
    expected = tiers.process_env(tiers.TIERS[tier], haproxy.DOCKER_TIER_PORT, KNOBS, bind="0.0.0.0",
                                 extra=WIRING.get(tier), metrics_port=tiers.DOCKER_METRICS_PORT)
    assert {**image_env, **compose_env} == expected


def test_haproxy_container_renders_the_config_the_env_file_gives():
    # compose: the base file's environment with the override's on top (PUBLISHED_ON)
    merged = {**SERVICES["haproxy"]["environment"], **OVERRIDE_DOC["services"]["haproxy"]["environment"]}
    env = {k: interpolate(str(v), KNOBS) for k, v in merged.items()}
    assert env["PUBLISHED_ON"] == KNOBS["BIND_ADDRESS"] == "127.0.0.1"
    assert haproxy.render_docker(env) == haproxy.render_docker({**KNOBS, "PUBLISHED_ON": "127.0.0.1"})


def test_swarm_publishes_everywhere_so_its_haproxy_wants_a_ui_password():
    env = {k: interpolate(str(v), KNOBS) for k, v in SERVICES["haproxy"]["environment"].items()}
    assert env["PUBLISHED_ON"] == "0.0.0.0" and not env["UI_PASSWORD"]
    with pytest.raises(haproxy.HaproxyError, match="set UI_PASSWORD"):
        haproxy.render_docker(env)
    text = haproxy.render_docker({**env, "UI_PASSWORD": "s3cret"})
    assert "userlist ui_users" in text and "user testbed insecure-password s3cret" in text


@pytest.mark.parametrize("tier", sorted(n for n, t in tiers.TIERS.items() if t.java_jar))
def test_java_images_run_the_jar_with_the_launcher_of_local_mode(tier):
    """One home for the JVM's flags and agents: java-common/bin/java-tier, here and in the image."""
    cmd = [json.loads(rest) for word, rest in image_instructions(tier) if word == "CMD"][-1]
    local = tiers.TIERS[tier].argv()
    assert local[0] == str(tiers.JAVA_LAUNCHER) and Path(local[1]).name == Path(tiers.TIERS[tier].java_jar).name
    assert cmd == ["/app/bin/java-tier", Path(tiers.TIERS[tier].java_jar).name]
    copies = [rest for word, rest in image_instructions(tier) if word == "COPY"]
    assert "java-common/bin/java-tier bin/" in copies and "--from=build /src/java-common/target/agents agents/" in copies
    assert runtime_env(tier)["METRICS_PORT"] == str(tiers.DOCKER_METRICS_PORT)


@pytest.mark.parametrize("tier", sorted(tiers.TIERS))
def test_every_tier_image_listens_where_haproxy_looks_for_it(tier):
    env = runtime_env(tier)
    assert env["PORT"] == str(haproxy.DOCKER_TIER_PORT) and env["BIND"] == "0.0.0.0"


@pytest.mark.parametrize("service", sorted(ALL_SERVICES))
def test_every_dockerfile_builds_from_the_one_base_image_in_stages(service):
    stages, froms = [], []
    for word, rest in instructions(dockerfile(service)):
        if word == "FROM":
            image, _, alias = rest.partition(" AS ")
            froms.append(image.strip())
            stages.append(alias.strip())
    assert len(froms) >= 2, "multi-stage: the runtime stage carries no build tools"
    assert all(f == BASE_IMAGE or f in stages for f in froms), froms


JAVA_TIERS = ("front", "clone", "axis")
JAVA_IMAGES = (*JAVA_TIERS, "zipkin")    # the images java-common/Dockerfile builds


@pytest.mark.parametrize("service", sorted(ALL_SERVICES))
def test_each_service_is_built_from_the_folder_of_its_code(service):
    """Each image's Dockerfile is in the folder of its code, except the Java images': one
    Dockerfile (java-common's, what they share) builds them, and each Java image is its stage,
    named like the service, that copies its module's build output (the tiers' from the one
    reactor build, Zipkin's server jar from a Maven stage of its own)."""
    folders = {"front": "services/front", "clone": "client-clones", "axis": "services/axis",
               "gsoap": "services/gsoap", "haproxy": "services/haproxy",
               "locust-master": "loadgen", "locust-worker": "loadgen",
               "prometheus": "services/prometheus", "cpu-exporter": "services/prometheus",
               "zipkin": "services/zipkin"}
    if service not in JAVA_IMAGES:
        assert dockerfile(service).parent == ROOT / folders[service]
        return
    assert dockerfile(service) == ROOT / "java-common" / "Dockerfile"
    assert ALL_SERVICES[service]["build"]["target"] == service
    own = stages(dockerfile(service))[service]
    copies = [rest.split()[1] for word, rest in own if word == "COPY"]
    assert copies and all(c.startswith(f"/src/{folders[service]}/target/") for c in copies), copies


def test_the_java_tiers_share_one_build_stage_that_runs_maven_once_for_all_three():
    """`duplicates` found the Java Dockerfiles' first 33 lines three times; now one build stage
    builds the three tiers' modules in one Maven run, and every tier's image copies from it."""
    all_stages = stages(ROOT / "java-common" / "Dockerfile")
    mvn = [rest for word, rest in all_stages["build"] if word == "RUN" and " mvn " in f" {rest}"]
    assert len(mvn) == 1
    built = re.search(r"-pl (\S+)", mvn[0]).group(1).split(",")
    assert sorted(built) == sorted(tiers.TIERS[t].java_jar.split("/target/")[0] for t in JAVA_TIERS)
    for tier in JAVA_TIERS:
        sources = {rest.split()[0] for word, rest in all_stages[tier] if word == "COPY"}
        assert sources == {"--from=build"}, (tier, sources)


@pytest.mark.parametrize("service", SCALED)
def test_scaled_services_have_no_container_name_and_publish_no_port(service):
    for doc in (BASE_DOC, OVERRIDE_DOC):
        spec = doc["services"].get(service, {})
        assert "container_name" not in spec and "ports" not in spec


def test_compose_publishes_only_haproxy_entry_points_stats_and_the_ui_on_bind_address():
    published = {n: s["ports"] for n, s in OVERRIDE_DOC["services"].items() if "ports" in s}
    assert sorted(published) == ["haproxy"]           # the Locust UI too, through HAProxy
    for name, ports in published.items():
        assert all(p.startswith("${BIND_ADDRESS}:") for p in ports), ports
        swarm = {(p["published"], p["target"]) for p in SERVICES[name]["ports"]}
        compose = {(p.split(":")[1], int(p.split(":")[2])) for p in ports}
        assert compose == swarm, f"{name}: compose and Swarm publish different ports"
    assert KNOBS["BIND_ADDRESS"] == "127.0.0.1"


def test_every_service_has_a_healthcheck_and_callers_wait_for_healthy_callees():
    for name, spec in ALL_SERVICES.items():
        assert spec.get("healthcheck", {}).get("test"), f"{name}: no healthcheck"
    deps = {n: s.get("depends_on", {}) for n, s in OVERRIDE_DOC["services"].items()}
    assert all(d["condition"] == "service_healthy" for ds in deps.values() for d in ds.values())
    # zipkin first when the tracing profile runs, and waited for by nobody when it does not
    assert all(ds["zipkin"].get("required") is False for n, ds in deps.items() if "zipkin" in ds)
    assert {n for n, ds in deps.items() if "zipkin" in ds} == set(SERVICES)
    order = list(tiers.START_ORDER)
    calls = {"clone": {"axis", "gsoap"}, "front": {"clone"}}
    for tier in order:
        assert "haproxy" in deps[tier]
        assert set(deps[tier]) - {"haproxy", "zipkin"} == calls.get(tier, set())
        assert all(order.index(callee) < order.index(tier) for callee in calls.get(tier, ()))


def test_base_file_holds_only_what_docker_stack_deploy_accepts():
    for doc in (BASE_DOC, MONITORING_DOC, TRACING_DOC):
        assert set(doc) <= {"services", "networks", "volumes", "configs", "secrets"} | {
            k for k in doc if k.startswith("x-")}
    for name, spec in ALL_SERVICES.items():
        assert "profiles" not in spec, f"{name}: profiles are compose's (the override), not Swarm's"
        assert "depends_on" not in spec and "container_name" not in spec, name
        assert spec["image"].startswith("${IMAGE_PREFIX}/") and spec["image"].endswith(":${IMAGE_TAG}")
        assert spec["deploy"]["endpoint_mode"] == "dnsrr", f"{name}: Swarm DNS must name the tasks"
        assert spec["deploy"]["resources"]["limits"]["cpus"].startswith("${CPUS_")
        for port in spec.get("ports", []):
            assert isinstance(port, dict) and port["mode"] == "host" and "host_ip" not in port


def test_compose_builds_every_image_from_source_and_pulls_none():
    assert sorted(OVERRIDE_DOC["services"]) == sorted(ALL_SERVICES)
    assert all(s.get("pull_policy") == "never" for s in OVERRIDE_DOC["services"].values())
    built = {ALL_SERVICES[n]["image"] for n in ALL_SERVICES if "build" in ALL_SERVICES[n]}
    assert {s["image"] for s in ALL_SERVICES.values()} == built


def test_monitoring_runs_under_compose_profile_and_is_the_swarm_file_s_services():
    """`docker compose --profile monitoring up` starts exactly docker-compose.monitoring.yml's
    services (extended, not copied); plain `up` none of them."""
    for name in MONITORING_SERVICES:
        spec = OVERRIDE_DOC["services"][name]
        assert spec["profiles"] == ["monitoring"]
        assert spec["extends"] == {"file": MONITORING.name, "service": name}
    assert not any("profiles" in OVERRIDE_DOC["services"][n] for n in SERVICES)


def test_tracing_runs_under_compose_profile_and_every_service_knows_where_zipkin_would_be():
    """`docker compose --profile tracing up` adds docker-compose.tracing.yml's zipkin (extended);
    every service of the stack is told ZIPKIN_URL (it traces while that name resolves) and
    TRACING, HAProxy publishes Zipkin's UI."""
    assert set(TRACING_SERVICES) == {"zipkin"}
    spec = OVERRIDE_DOC["services"]["zipkin"]
    assert spec["profiles"] == ["tracing"] and spec["extends"] == {"file": TRACING.name, "service": "zipkin"}
    for name, svc in SERVICES.items():
        env = svc.get("environment", {})
        assert env.get("TRACING") == "${TRACING}", name
        assert name == "haproxy" or env.get("ZIPKIN_URL") == tracing.DOCKER_ZIPKIN_URL, name
    assert "${BIND_ADDRESS}:${ZIPKIN_PORT}:8091" in OVERRIDE_DOC["services"]["haproxy"]["ports"]


def test_zipkin_is_started_again_when_it_exits_and_keeps_as_many_spans_as_its_heap_holds():
    """Out of heap Zipkin exits (-XX:+ExitOnOutOfMemoryError): its restart policy (compose maps
    deploy.restart_policy to the container's, Swarm restarts the task) starts it again. The image's
    MEM_MAX_SPANS, .env's ZIPKIN_MAX_SPANS and local mode's default are one figure, and spans of
    the largest size our producers send fit in 60 % of its heap at that count (docs/tracing.md)."""
    assert TRACING_SERVICES["zipkin"]["deploy"]["restart_policy"]["condition"] == "on-failure"
    image = (ROOT / "java-common" / "Dockerfile").read_text()
    image_env = re.search(r"^ENV STORAGE_TYPE=mem MEM_MAX_SPANS=(\d+)$", image, re.M)
    assert int(image_env.group(1)) == int(KNOBS["ZIPKIN_MAX_SPANS"]) == tracing.DEFAULT_MAX_SPANS
    assert f'"-Xmx{tracing.ZIPKIN_HEAP_MIB}m"' in image
    heap = tracing.ZIPKIN_HEAP_MIB * 1024 * 1024
    assert tracing.DEFAULT_MAX_SPANS * tracing.ZIPKIN_HEAP_BYTES_PER_SPAN <= 0.6 * heap


def test_haproxy_is_told_the_trace_rate_and_takes_it_from_env():
    assert SERVICES["haproxy"]["environment"]["TRACE_MAX_RATE"] == "${TRACE_MAX_RATE}"
    assert tracing.trace_max_rate({"TRACE_MAX_RATE": KNOBS["TRACE_MAX_RATE"]}) == tracing.DEFAULT_TRACE_MAX_RATE
    text = haproxy.render_docker({"UI_PASSWORD": "x", "TRACE_MAX_RATE": "7"}, tracing=True)
    assert "acl tp_within sc2_http_req_rate le 7\n" in text and tracing.RELAY_SOCKET_IN_CONTAINER in text


def _cgroup_mount(spec: dict) -> dict:
    return next(v for v in spec.get("volumes", []) if v["source"] == "/sys/fs/cgroup")


@pytest.mark.parametrize("service", ["locust-master", "cpu-exporter"])
def test_only_the_cpu_readers_get_the_hosts_cgroup_tree_and_only_read_only(service):
    mount = _cgroup_mount(ALL_SERVICES[service])
    assert mount == {"type": "bind", "source": "/sys/fs/cgroup", "target": "/host/sys/fs/cgroup", "read_only": True}
    others = [n for n, s in ALL_SERVICES.items() if n not in ("locust-master", "cpu-exporter") and s.get("volumes")]
    assert not others, f"no other service mounts anything of the host: {others}"
    assert not any("docker.sock" in str(v) for s in ALL_SERVICES.values() for v in s.get("volumes", []))


def test_the_locust_master_reads_haproxy_stats_over_the_network_with_the_ui_credentials():
    env = SERVICES["locust-master"]["environment"]
    assert env["TESTBED_STATS_URL"] == f"http://haproxy:{haproxy.DOCKER_PORTS['stats_port']}/"
    assert env["UI_USER"] == "${UI_USER}" and env["UI_PASSWORD"] == "${UI_PASSWORD}"


@pytest.mark.parametrize("service", ["front", "clone", "axis"])
def test_every_maven_module_pom_is_copied_into_the_java_build_stage(service):
    """Maven reads every <module>'s pom of the reactor, even with -pl: a module added to the
    root pom.xml but not copied into a Java image's build stage breaks `docker compose build`
    (it did: studies/servers and studies/serialization)."""
    modules = re.findall(r"<module>([^<]+)</module>", (ROOT / "pom.xml").read_text())
    copied = {rest.split()[0] for word, rest in instructions(dockerfile(service)) if word == "COPY"}
    missing = [m for m in modules if f"{m}/pom.xml" not in copied and m not in copied]
    assert not missing, f"{dockerfile(service)}: add COPY <module>/pom.xml for {missing}"


def test_the_profile_checks_can_share_one_stack_with_both_profiles(monkeypatch):
    """CI runs check_monitoring.py --keep then check_tracing.py --reuse on one stack: each
    check's compose commands then name both profiles (a `down` with one profile alone would
    leave the other profile's containers behind)."""
    import importlib.util
    import sys
    here = Path(__file__).resolve().parent
    monkeypatch.syspath_prepend(str(here))
    spec = importlib.util.spec_from_file_location("profilecheck_for_test", here / "profilecheck.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    monkeypatch.delenv("TESTBED_CHECK_PROFILES", raising=False)
    assert mod.check_profiles("tracing") == ["--profile", "tracing"]
    monkeypatch.setenv("TESTBED_CHECK_PROFILES", "monitoring tracing")
    assert mod.check_profiles("tracing") == ["--profile", "tracing", "--profile", "monitoring"]
    assert mod.check_profiles("monitoring") == ["--profile", "monitoring", "--profile", "tracing"]
    args, _, _ = mod.profile_options("doc", ["--no-build", "--reuse"])
    assert args.reuse and args.no_build and not args.keep
    sys.modules.pop("profilecheck_for_test", None)


# The Python each image runs, and why: its entry scripts and the modules started in it by name.
IMAGE_ENTRIES = {
    "haproxy": ["services/haproxy/entrypoint.py",          # renders the config, becomes HAProxy
                "testbed.haproxy.gate",                     # `program readiness-gate` in the config
                "testbed.haproxy.spans",                    # the span relay's `program` (tracing on)
                "testbed.haproxy.keeper",                   # ... which runs the relay and starts it again
                "testbed.haproxy.runtime"],                 # ComposeStack's `docker compose exec ... python3 -c`
    "prometheus": ["services/prometheus/entrypoint.py",    # renders Prometheus' configuration
                   "testbed.live.exporter"],             # the cpu-exporter service's command
    "locust-master": ["loadgen/locustfile.py", "loadgen/shapes.py", "loadgen/testbed_tab.py",
                      "loadgen/trace_context.py", "loadgen/ui_guard.py"],    # Locust's -f files and theirs
}


def _python_closure(entries: list[str]) -> set[Path]:
    """Every file of cli/testbed and analysis that the entries import, at any depth, imports
    inside functions included (a branch that never runs in the container still counts)."""
    from test_import_graph import PACKAGES, imports, modules
    known = modules(PACKAGES)
    todo = [e for e in entries if not e.endswith(".py")]
    todo_files = [ROOT / e for e in entries if e.endswith(".py")]
    found: set[str] = set()
    for f in todo_files:
        todo += imports("__entry__", f, known)
    while todo:
        m = todo.pop()
        if m in found:
            continue
        found.add(m)
        parts = m.split(".")
        todo += [".".join(parts[:i]) for i in range(1, len(parts)) if ".".join(parts[:i]) in known]
        todo += sorted(imports(m, known[m], known))
    return {known[m] for m in found if not m.startswith("loadgen")}


def _copied(path: Path) -> set[Path]:
    """The repository files a Dockerfile's COPY instructions take from the build context (not
    --from another stage), folders expanded."""
    out: set[Path] = set()
    for word, rest in instructions(path):
        if word != "COPY" or rest.startswith("--from"):
            continue
        for src in rest.split()[:-1]:
            p = ROOT / src
            out |= set(p.rglob("*.py")) if p.is_dir() else {p}
    return out


@pytest.mark.parametrize("service", sorted(IMAGE_ENTRIES))
def test_an_image_copies_exactly_the_python_it_runs(service):
    """An image that runs the testbed's own Python copies each module its entries import (so
    none fails at start with an ImportError), and no other module of the CLI or the analysis."""
    copied = {p for p in _copied(dockerfile(service)) if p.suffix == ".py"
              and (ROOT / "cli" / "testbed" in p.parents or ROOT / "analysis" in p.parents)}
    needed = _python_closure(IMAGE_ENTRIES[service])
    assert needed - copied == set(), f"{service}: imported but not copied: {sorted(map(str, needed - copied))}"
    assert copied - needed == set(), f"{service}: copied but never imported: {sorted(map(str, copied - needed))}"
    assert ROOT / "cli" / "testbed" / "stack.py" in needed          # reached through imports of imports
