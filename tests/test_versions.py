"""Version ranges as npm and cargo users write them (node-semver's README examples)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from metapkg.packages.semver import Range, RangeError, SemVer

CASES = [
    # range, matches, does not match
    ("^1.2.3", ["1.2.3", "1.9.0"], ["2.0.0", "1.2.2", "1.3.0-beta.1", "2.0.0-alpha"]),
    ("^1.2", ["1.2.0", "1.99.99"], ["1.1.9", "2.0.0"]),
    ("^0.2.3", ["0.2.3", "0.2.9"], ["0.3.0", "0.2.2"]),
    ("^0.0.3", ["0.0.3"], ["0.0.4"]),
    ("^0.0", ["0.0.0", "0.0.9"], ["0.1.0"]),
    ("^1.x", ["1.0.0", "1.9.9"], ["2.0.0"]),
    ("^1.2.3-beta.2", ["1.2.3-beta.2", "1.2.3-beta.4", "1.2.3", "1.9.0"], ["1.2.4-beta.2"]),
    ("~1.2.3", ["1.2.3", "1.2.9"], ["1.3.0"]),
    ("~1.4", ["1.4.0", "1.4.7"], ["1.5.0", "1.3.9"]),
    ("~1", ["1.0.0", "1.9.0"], ["2.0.0"]),
    ("~0.2.3", ["0.2.3", "0.2.8"], ["0.3.0"]),
    ("1.x", ["1.0.0", "1.5.2"], ["2.0.0", "0.9.9"]),
    ("1.2.*", ["1.2.0", "1.2.7"], ["1.3.0"]),
    ("*", ["0.0.1", "5.0.0"], ["1.0.0-rc.1"]),
    ("", None, None),
    (">=1.2,<2", ["1.2.0", "1.9.9"], ["2.0.0", "1.1.0", "2.0.0-rc.1"]),
    (">=1.2 <2", ["1.5.0"], ["2.0.0"]),
    (">= 1.2, < 2", ["1.5.0"], ["2.0.0"]),
    (">1.2", ["1.3.0"], ["1.2.9", "1.3.0-beta"]),
    ("<1.2", ["1.1.9"], ["1.2.0", "1.2.0-beta"]),
    ("<=1.2", ["1.2.9"], ["1.3.0"]),
    ("=1.2.3", ["1.2.3"], ["1.2.4"]),
    ("1.2.3", ["1.2.3"], ["1.2.4"]),
    ("v1.2.3", ["1.2.3"], []),
    ("1.2.3 - 2.3.4", ["1.2.3", "2.3.4"], ["2.3.5", "1.2.2"]),
    ("1.2 - 2.3", ["1.2.0", "2.3.9"], ["2.4.0"]),
    ("^1.2 || ^3.0", ["1.5.0", "3.1.0"], ["2.0.0"]),
    (">=1.3.0-beta.0 <2", ["1.3.0-beta.1", "1.4.0"], ["1.4.0-beta.1"]),
]


@pytest.mark.parametrize(("text", "good", "bad"), [c for c in CASES if c[1] is not None])
def test_ranges_match_as_npm_does(text: str, good: list[str], bad: list[str]) -> None:
    spec = Range.parse(text)
    for version in good:
        assert spec.contains(version), (text, version)
    for version in bad:
        assert not spec.contains(version), (text, version)


@pytest.mark.parametrize("text", ["", "  ", "foo", "^1.5.x.2", ">=2.0,,", "1.2.3 ||", "01.2"])
def test_not_a_range(text: str) -> None:
    with pytest.raises(RangeError):
        Range.parse(text)


def test_the_text_is_kept_as_written_not_reordered() -> None:
    assert str(Range.parse(">=2.0,<3")) == ">=2.0,<3"
    assert str(Range.parse("  ^1.2   ||  ~2 ")) == "^1.2 || ~2"


def test_prereleases_sort_below_their_release() -> None:
    order = ["1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2",
             "1.0.0-beta.11", "1.0.0-rc.1", "1.0.0"]  # fmt: skip
    parsed = [SemVer.parse(v) for v in order]
    assert all(p is not None for p in parsed)
    assert sorted(parsed, key=lambda v: v.sort_key()) == parsed  # type: ignore[union-attr]


def test_a_prerelease_semver_satisfies_a_plain_lower_bound_only_when_named() -> None:
    # packaging answered False for this (its PEP 440 reading), though is_semver accepts it.
    assert not Range.parse(">=1.0").contains("1.2.0-alpha.beta")
    assert Range.parse(">=1.2.0-alpha").contains("1.2.0-alpha.beta")


versions = st.builds(
    SemVer,
    st.integers(0, 3),
    st.integers(0, 3),
    st.integers(0, 3),
    st.lists(st.sampled_from(["alpha", "beta", "1", "rc"]), max_size=2).map(tuple),
)


@given(versions, versions)
def test_caret_is_the_same_major_at_or_above(low: SemVer, candidate: SemVer) -> None:
    spec = Range.parse(f"^{low}")
    expected = candidate >= low and (
        (candidate.major == low.major and low.major > 0)
        or (low.major == 0 and low.minor > 0 and candidate.core[:2] == low.core[:2])
        or (low.major == 0 and low.minor == 0 and candidate.core == low.core)
    )
    if candidate.prerelease and not (low.prerelease and low.core == candidate.core):
        expected = False
    assert spec.contains(candidate) == expected
