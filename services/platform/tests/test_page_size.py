"""The one rule for a request's page size (``pages.page_size``): a negative size is
INVALID_ARGUMENT naming the field, 0 means the default, more than the cap is the cap.
Pure."""

from __future__ import annotations

import pytest

from services.platform import pages
from services.platform.errors import InvalidArgument


@pytest.mark.parametrize(
    ("requested", "size"),
    [(0, 50), (1, 1), (49, 49), (50, 50), (200, 200), (201, 200), (10**9, 200)],
)
def test_0_is_the_default_and_a_size_above_the_cap_is_the_cap(requested: int, size: int) -> None:
    assert pages.page_size(requested, 50, 200) == size


def test_the_default_is_capped_too() -> None:
    assert pages.page_size(0, 500, 100) == 100


@pytest.mark.parametrize("requested", [-1, -2, -(2**31)])
def test_a_negative_size_is_refused_naming_the_field_and_the_value(requested: int) -> None:
    with pytest.raises(InvalidArgument) as refused:
        pages.page_size(requested, 50, 200)
    assert str(refused.value) == f"page_size must not be negative, got {requested}"


def test_a_caller_may_keep_its_own_words_for_the_refusal() -> None:
    with pytest.raises(InvalidArgument) as refused:
        pages.page_size(-1, 50, 200, refusal="page_size cannot be negative")
    assert str(refused.value) == "page_size cannot be negative"
