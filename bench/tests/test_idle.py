"""The idle-session benchmark's pure parts: reading /proc, summing process trees, and a
size's cost per session against the baseline of the same run (bench/cpu.py and
bench/idle_figures.py). The timings themselves are the benchmark's business, not a
test's."""

from __future__ import annotations

import os

import pytest

from bench.cpu import ProcStat, parse_stat, read_stats, tree, tree_cpu_seconds
from bench.idle import parse_sizes
from bench.idle_figures import (
    Memory,
    PerSession,
    Sample,
    Window,
    checks,
    drained,
    parse_memory,
    steady,
    tree_rss_kb,
)
from bench.idle_report import Found, format_idle, report

# A real line's shape, with a command holding a space and a parenthesis.
STAT = (
    "4242 (postgres: idle) x) S 4100 4100 4100 0 -1 4194560 1200 300 0 0 "
    "150 37 12 5 20 0 1 0 9000 180000000 3000 18446744073709551615 0 0 0 0 0 0 0 0 0"
)


def test_a_stat_line_is_read_after_the_commands_last_parenthesis() -> None:
    stat = parse_stat(STAT)
    assert stat == ProcStat(pid=4242, ppid=4100, utime=150, stime=37, cutime=12, cstime=5)
    assert stat.ticks == 204


def test_memory_is_vmrss_and_rssanon_and_a_zombie_holds_none() -> None:
    status = "Name:\tpython\nVmPeak:\t  900 kB\nVmRSS:\t   51234 kB\nRssAnon:\t 40000 kB\n"
    assert parse_memory(status) == Memory(rss_kb=51234, private_kb=40000)
    assert parse_memory("Name:\tpython\nState:\tZ (zombie)\n") == Memory(0, 0)


def test_a_trees_memory_counts_shared_pages_once_in_the_root() -> None:
    # Each backend maps the postmaster's shared buffers (its VmRSS holds them too).
    memory = {
        100: Memory(900_000, 10_000),
        101: Memory(850_000, 3_000),
        102: Memory(840_000, 2_000),
    }
    assert tree_rss_kb(memory, [100, 101, 102]) == 905_000
    assert tree_rss_kb(memory, []) == 0


def _stat(pid: int, ppid: int, ticks: int, reaped: int = 0) -> ProcStat:
    return ProcStat(pid, ppid, ticks, 0, reaped, 0)


def test_a_tree_is_the_root_and_its_live_descendants_only() -> None:
    stats = {s.pid: s for s in (_stat(1, 0, 1), _stat(10, 1, 1), _stat(11, 10, 1), _stat(20, 1, 1))}
    assert sorted(tree(stats, 10)) == [10, 11]
    assert sorted(tree(stats, 1)) == [1, 10, 11, 20]
    assert tree(stats, 99) == []


def test_a_trees_cpu_counts_reaped_children_through_the_parent_once() -> None:
    # The postmaster (100) has spent 50 ticks and reaped backends that spent 30;
    # two live backends spent 7 and 3; a process outside the tree is not counted.
    stats = {
        s.pid: s
        for s in (
            _stat(100, 1, 50, reaped=30),
            _stat(101, 100, 7),
            _stat(102, 100, 3),
            _stat(7, 1, 999),
        )
    }
    assert tree_cpu_seconds(stats, 100, ticks_per_second=100) == pytest.approx(0.9)


def test_this_process_is_in_a_snapshot_of_proc_with_its_parent() -> None:
    stats = read_stats()
    assert stats[os.getpid()].ppid == os.getppid()


def _sample(at: float, cpu: dict[str, float], rss: dict[str, int], xacts: int, n: int) -> Sample:
    return Sample(at, cpu, rss, xacts, n)


def test_a_window_gives_cpu_per_second_transactions_per_second_and_memory_at_its_end() -> None:
    start = _sample(
        100.0, {"gateway": 1.0, "postgres": 2.0}, {"gateway": 50_000, "postgres": 9}, 1000, 10
    )
    end = _sample(
        120.0, {"gateway": 1.5, "postgres": 2.2}, {"gateway": 51_000, "postgres": 9}, 1400, 8
    )
    window = Window.between(start, end)
    assert window.seconds == 20.0
    assert window.cpu_ms_per_second == pytest.approx({"gateway": 25.0, "postgres": 10.0})
    assert window.cpu_ms_total == pytest.approx(35.0)
    assert window.transactions_per_second == 20.0
    assert window.rss_kb == {"gateway": 51_000, "postgres": 9}
    assert (window.sessions, window.sessions_lost) == (10, 2)
    with pytest.raises(ValueError):
        Window.between(end, start)


def _window(
    sessions: int, gateway_ms: float, match_ms: float, tps: float, gw_kb: int, match_kb: int
) -> Window:
    return Window(
        sessions=sessions,
        seconds=20.0,
        cpu_ms_per_second={"gateway": gateway_ms, "match": match_ms},
        rss_kb={"gateway": gw_kb, "match": match_kb},
        transactions_per_second=tps,
        sessions_lost=0,
    )


def test_per_session_figures_are_the_excess_over_the_baseline_over_the_sessions() -> None:
    baseline = _window(0, 10.0, 5.0, 2.0, 60_000, 80_000)
    loaded = _window(1000, 60.0, 25.0, 2.5, 100_000, 80_500)
    per = PerSession.against(loaded, baseline)
    assert (per.sessions, per.added) == (1000, 1000)
    assert per.cpu_ms_per_second == pytest.approx({"gateway": 0.05, "match": 0.02})
    assert per.cpu_ms_total == pytest.approx(0.07)
    assert per.transactions_per_second == pytest.approx(0.0005)
    assert per.rss_kb == pytest.approx({"gateway": 40.0, "match": 0.5})
    with pytest.raises(ValueError):
        PerSession.against(baseline, baseline)


def test_the_marginal_cost_is_per_session_added_between_two_sizes() -> None:
    # The first 1,000 sessions grew match by 4 MB once (pools, caches); the next 4,000
    # by 400 kB: 0.1 kB each, where the figure against the baseline says 0.88.
    smaller = _window(1000, 60.0, 25.0, 2.5, 100_000, 84_000)
    larger = _window(5000, 260.0, 25.0, 2.5, 260_000, 84_400)
    marginal = PerSession.against(larger, smaller)
    assert (marginal.sessions, marginal.added) == (5000, 4000)
    assert marginal.cpu_ms_per_second == pytest.approx({"gateway": 0.05, "match": 0.0})
    assert marginal.rss_kb == pytest.approx({"gateway": 40.0, "match": 0.1})
    baseline = _window(0, 10.0, 5.0, 2.0, 60_000, 80_000)
    assert PerSession.against(larger, baseline).rss_kb["match"] == pytest.approx(0.88)


def test_a_target_is_judged_at_the_largest_size_where_noise_weighs_least() -> None:
    baseline = _window(0, 10.0, 5.0, 2.0, 60_000, 80_000)
    small_window = _window(200, 30.0, 15.0, 3.0, 70_000, 80_400)
    dear_window = _window(5000, 400.0, 15.0, 2.5, 300_000, 80_500)
    small = PerSession.against(small_window, baseline)
    dear = PerSession.against(dear_window, baseline)
    windows = {0: baseline, 200: small_window, 5000: dear_window}
    found = {c.name: c for c in checks([small, dear], windows)}
    assert found["cpu_per_session"].measured == pytest.approx({200: 0.15, 5000: 0.08})
    assert not found["cpu_per_session"].met
    assert found["transactions_per_session"].measured == pytest.approx({200: 0.005, 5000: 0.0001})
    assert found["transactions_per_session"].met  # 1 a second over 200 sessions: noise
    assert found["gateway_rss_per_session"].measured == pytest.approx({200: 50.0, 5000: 48.0})
    assert not found["gateway_rss_per_session"].met
    assert found["services_rss_per_session"].met  # 2 kB at 200, 0.1 kB at 5,000, in match
    assert found["cpu_in_all_at_5000"].measured == pytest.approx({5000: 415.0})
    assert not found["cpu_in_all_at_5000"].met  # a quarter of a core is 250 ms/s
    cheap_window = _window(1000, 30.0, 15.0, 2.5, 90_000, 80_500)
    cheap = PerSession.against(cheap_window, baseline)
    judged = {c.name: c.met for c in checks([dear, cheap], windows | {1000: cheap_window})}
    assert judged == {  # at the largest size, not the last given
        "cpu_per_session": False,
        "transactions_per_session": True,
        "gateway_rss_per_session": False,
        "services_rss_per_session": True,
        "cpu_in_all_at_5000": False,
    }
    only_cheap = checks([cheap], {0: baseline, 1000: cheap_window})
    assert [c.name for c in only_cheap if c.met] == [
        "cpu_per_session",
        "transactions_per_session",
        "gateway_rss_per_session",
        "services_rss_per_session",
    ]  # and no figure at 5,000 without 5,000 sessions
    assert not checks([], {0: baseline})[0].met  # nothing measured meets nothing


def test_the_services_memory_is_judged_on_what_one_more_session_adds() -> None:
    # match grew 5 MB at the first 1,000 sessions (a one-off: 5 kB "each" against the
    # baseline, 1 kB at 5,000) and 0.4 MB over the next 4,000: 0.1 kB each, met.
    baseline = _window(0, 10.0, 5.0, 2.0, 60_000, 80_000)
    smaller = _window(1000, 60.0, 25.0, 2.5, 100_000, 85_000)
    larger = _window(5000, 260.0, 25.0, 2.5, 260_000, 85_400)
    against = [PerSession.against(w, baseline) for w in (smaller, larger)]
    windows = {0: baseline, 1000: smaller, 5000: larger}
    assert not {c.name: c for c in checks(against, windows)}["services_rss_per_session"].met
    judged = {c.name: c for c in checks(against, windows, [PerSession.against(larger, smaller)])}
    services = judged["services_rss_per_session"]
    assert services.measured == pytest.approx({5000: 0.1})
    assert services.met
    assert "one more session" in services.what
    grown = _window(5000, 260.0, 25.0, 2.5, 260_000, 93_000)  # 2 kB each held: not met
    held = checks(against, windows | {5000: grown}, [PerSession.against(grown, smaller)])
    assert not {c.name: c.met for c in held}["services_rss_per_session"]
    assert judged["gateway_rss_per_session"].measured == pytest.approx({1000: 40.0, 5000: 40.0})


def test_sizes_are_sorted_distinct_and_always_hold_the_baseline() -> None:
    assert parse_sizes("5000,1000,1000") == (0, 1000, 5000)
    assert parse_sizes("0, 200") == (0, 200)
    for bad in ("a,1", "-5"):
        with pytest.raises(Exception, match="sizes"):
            parse_sizes(bad)


def test_the_machine_is_steady_when_its_last_readings_agree() -> None:
    assert not steady([100.0, 101.0])  # too few readings to say
    assert steady([400.0, 100.0, 105.0, 95.0])  # within 15 % of their mean
    assert steady([3.0, 9.0, 12.0])  # within 10 ms/s of each other
    assert not steady([100.0, 140.0, 100.0])


def test_a_backlog_is_drained_only_when_every_process_is_back_to_its_baseline() -> None:
    baseline = {"collection": 30.0, "nats": 5.0}
    draining = {"collection": 400.0, "nats": 40.0}  # steady, and still busy
    quiet = {"collection": 40.0, "nats": 12.0}
    assert not drained([draining, draining, draining], baseline)
    assert not drained([draining, quiet], baseline)
    assert drained([draining, quiet, quiet], baseline)
    assert not drained([quiet], baseline)  # one reading is not yet a trend


def test_the_report_holds_each_sizes_figures_and_the_table_says_the_targets() -> None:
    windows = {
        0: _window(0, 10.0, 5.0, 100.0, 60_000, 80_000),
        1000: _window(1000, 40.0, 5.0, 100.0, 100_000, 80_500),
        5000: _window(5000, 110.0, 5.0, 100.0, 280_000, 80_900),
    }
    found = Found(windows, dict.fromkeys(windows, 1.0), {}, {}, {}, {}, {}, 0.0)
    result = report(found, {"cores": [0, 1]})
    assert set(result.measurements) == {
        f"{figure}_{n}" for figure in ("cpu", "transactions", "gateway_rss") for n in windows
    }
    assert result.measurements["cpu_5000"].best == pytest.approx(115.0)
    extra = result.extra
    assert set(extra["per_session"]) == {"1000", "5000"}
    assert extra["marginal"]["1000-5000"]["added"] == 4000
    assert extra["marginal"]["1000-5000"]["rss_kb"]["gateway"] == pytest.approx(45.0)
    assert extra["targets"]["gateway_rss_per_session"]["met"] is False  # 44 kB at 5,000
    assert extra["targets"]["cpu_in_all_at_5000"]["met"] is True
    table = format_idle(extra)
    assert "target gateway_rss_per_session <= 40.0 kB at 5000: NOT MET" in table
    assert "target cpu_per_session <= 0.05 ms/s at 5000: MET" in table
    assert "/session 1000-5000" in table
