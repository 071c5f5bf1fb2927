"""The gateway benchmark's CPU budget arithmetic (bench/gateway_cost.py): what was spent
between readings, summed over phases, divided per placement and per match start."""

from __future__ import annotations

import pytest

from bench.gateway_cost import LevelCost, Reading, Spent, format_costs, quiet_json


def _reading(at: float, gateway: float, match: float, xacts: int, messages: int) -> Reading:
    return Reading(at, {"gateway": gateway, "match": match}, at / 10, xacts, xacts // 2, messages)


def test_what_was_spent_between_two_readings_is_their_difference() -> None:
    spent = Spent.between(_reading(10.0, 1.0, 2.0, 100, 7), _reading(12.5, 1.4, 2.1, 160, 27))
    assert spent.seconds == pytest.approx(2.5)
    assert spent.cpu_seconds == pytest.approx({"gateway": 0.4, "match": 0.1})
    assert spent.client_seconds == pytest.approx(0.25)
    assert (spent.transactions, spent.events, spent.messages) == (60, 30, 20)


def test_a_stretch_cannot_end_before_it_starts() -> None:
    with pytest.raises(ValueError, match="ends after"):
        Spent.between(_reading(12.0, 1, 1, 0, 0), _reading(11.0, 1, 1, 0, 0))


def test_phases_add_up_process_by_process_and_from_nothing() -> None:
    a = Spent(1.0, {"gateway": 0.2, "match": 0.3}, 0.1, 10, 3, 4)
    b = Spent(2.0, {"gateway": 0.1, "postgres": 0.5}, 0.2, 5, 2, 6)
    total = Spent() + a + b
    assert total.seconds == pytest.approx(3.0)
    assert total.cpu_seconds == pytest.approx({"gateway": 0.3, "match": 0.3, "postgres": 0.5})
    assert (total.transactions, total.events, total.messages) == (15, 5, 10)


def test_cpu_per_placement_is_each_process_in_ms_over_the_placements() -> None:
    placing = Spent(4.0, {"gateway": 0.9, "match": 0.45, "postgres": 0.15}, 0.6, 1200, 990, 1800)
    starting = Spent(1.0, {"gateway": 0.2, "match": 0.3, "postgres": 0.1}, 0.1, 320, 150, 64)
    cost = LevelCost(level=64, placements=900, starts=100, placing=placing, starting=starting)
    assert cost.cpu_ms_per_placement() == pytest.approx(
        {"gateway": 1.0, "match": 0.5, "postgres": 1 / 6}
    )
    assert cost.cpu_ms_per_placement_total == pytest.approx(1.0 + 0.5 + 1 / 6)
    found = cost.to_json()
    assert found["transactions_per_placement"] == pytest.approx(1.333, abs=1e-3)
    assert found["session_messages_per_placement"] == 2.0
    assert found["events_per_placement"] == 1.1
    assert found["client_cpu_ms_per_placement"] == pytest.approx(0.6667, abs=1e-4)
    assert found["cpu_ms_per_match_start"] == pytest.approx(
        {"gateway": 2.0, "match": 3.0, "postgres": 1.0}
    )
    assert found["cpu_ms_per_match_start_total"] == pytest.approx(6.0)
    assert found["transactions_per_match_start"] == pytest.approx(3.2)
    assert found["events_per_match_start"] == pytest.approx(1.5)


def test_the_quiet_backends_share_is_its_rate_over_the_placing_time_per_placement() -> None:
    quiet = Spent(2.0, {"gateway": 0.02, "match": 0.16}, 0.0, 200, 0, 0)  # 90 ms/s, 100 xacts/s
    cost = LevelCost(
        1, placements=300, starts=0, placing=Spent(10.0, {"match": 1.0}), starting=Spent()
    )
    assert cost.background_ms_per_placement(quiet) == pytest.approx(90 * 10 / 300)
    assert cost.to_json(quiet)["background_cpu_ms_per_placement"] == pytest.approx(3.0)
    assert "match_starts" not in cost.to_json(quiet)
    started = LevelCost(1, 300, 30, Spent(10.0, {"match": 1.0}), Spent(4.0, {"match": 0.3}))
    assert started.to_json(quiet)["background_cpu_ms_per_match_start"] == pytest.approx(12.0)
    assert started.to_json(quiet)["starting_seconds"] == 4.0
    assert quiet_json(quiet) == {
        "seconds": 2.0,
        "cpu_ms_per_second": {"gateway": 10.0, "match": 80.0},
        "cpu_ms_per_second_total": 90.0,
        "transactions_per_second": 100.0,
    }


def test_nothing_placed_has_no_cost_per_placement() -> None:
    with pytest.raises(ValueError, match="things done"):
        LevelCost(1, 0, 0, Spent(1.0, {"match": 0.1}), Spent()).cpu_ms_per_placement()


def test_the_terminal_table_has_a_row_per_level_with_its_total() -> None:
    levels = [
        LevelCost(
            n, 100, 0, Spent(1.0, {"match": 0.1 * n, "gateway": 0.05}, 0, 120, 100, 200), Spent()
        )
        for n in (1, 16)
    ]
    text = format_costs(levels)
    assert "gateway" in text.splitlines()[1] and "total" in text.splitlines()[1]
    assert text.splitlines()[2].split() == ["1", "0.500", "1.000", "1.500", "1.20", "2.00"]
    assert text.splitlines()[3].split()[0] == "16"
