"""Figures are functions of data returning matplotlib Figures."""
from analysis.render import plots
def texts(fig):
    return [t.get_text() for ax in fig.axes for t in ax.texts]


def test_not_measurable_segment_is_labelled_not_drawn_as_zero():
    rows = [{"series": "", "segment": 1, "throughput": 3000.0}, {"series": "", "segment": 2, "throughput": None},
            {"series": "", "segment": 3, "throughput": 60000.0}]
    fig = plots.segment_bars(rows)
    assert len(fig.axes[0].patches) == 2 and "not\nmeasurable" in texts(fig)


def test_excluded_steps_are_drawn_hollow():
    fig = plots.throughput_vs_users({"path 1..1": [(1, 10.0, False), (2, 20.0, True)]})
    hollow = [line for line in fig.axes[0].lines if line.get_markerfacecolor() == "none"]
    assert len(hollow) == 1 and list(hollow[0].get_xdata()) == [2]


def test_clone_scaling_has_client_and_service_panels_with_ideal_line():
    fig = plots.clone_scaling({"client tier": [(1, 1.0, "clone"), (2, 1.9, "clone")]})
    assert [ax.get_title() for ax in fig.axes] == ["client tier scaling", "service tier scaling"]
    assert all(any(line.get_label() == "ideal (linear)" for line in ax.lines) for ax in fig.axes)


def test_cpu_figure_puts_tiers_beside_throughput():
    steps = [{"users": 1, "throughput": 10.0, "excluded": False, "cpu": {"front": 5.0}, "host_cpu": 9.0},
             {"users": 2, "throughput": 20.0, "excluded": False, "cpu": {"front": 9.0}, "host_cpu": 15.0}]
    fig = plots.cpu_beside_throughput(steps, "r")
    assert len(fig.axes) == 2 and {"front", "host (all cores)"} <= {l.get_label() for l in fig.axes[1].lines}


def test_save_writes_png_and_svg(tmp_path):
    png, svg = plots.save(plots.throughput_vs_users({}), tmp_path, "t")
    assert png.read_bytes()[:4] == b"\x89PNG" and b"<svg" in svg.read_bytes()[:500]
