"""A domain enum paired with its proto enum by name, and the pairing read backwards."""

from __future__ import annotations

from enum import Enum

import pytest
from triad.v1 import common_pb2 as pb

from services.platform.enums import backwards, by_name


class Source(Enum):
    STARTER = "starter"
    BOOSTER = "booster"


class Misspelt(Enum):
    STARTERS = "starters"


def test_each_member_is_the_proto_value_of_its_name_and_reads_back() -> None:
    sources = by_name(Source, pb.CopySource)
    assert sources == {
        Source.STARTER: pb.COPY_SOURCE_STARTER,
        Source.BOOSTER: pb.COPY_SOURCE_BOOSTER,
    }
    assert backwards(sources) == {
        pb.COPY_SOURCE_STARTER: Source.STARTER,
        pb.COPY_SOURCE_BOOSTER: Source.BOOSTER,
    }


def test_a_member_the_proto_lacks_fails_where_the_table_is_built() -> None:
    with pytest.raises(ValueError, match="COPY_SOURCE_STARTERS"):
        by_name(Misspelt, pb.CopySource)
