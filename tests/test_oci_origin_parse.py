"""``oci://`` origins: the forms accepted, the canonical text, ranges, refusals."""

from __future__ import annotations

import pytest

from metapkg.origins import OciOrigin, OriginSyntaxError, join_range, parse_origin, split_range

DIGEST = "sha256:" + "a" * 64


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "oci://reg.example.com/team/hello:1.2.0",
            OciOrigin("reg.example.com", "team/hello", "1.2.0"),
        ),
        ("oci://Reg.Example.com:5000/a/b/c:v1", OciOrigin("reg.example.com:5000", "a/b/c", "v1")),
        (
            f"oci://127.0.0.1:5000/team/hello@{DIGEST}",
            OciOrigin("127.0.0.1:5000", "team/hello", None, DIGEST),
        ),
        ("oci://reg.example.com/team/hello", OciOrigin("reg.example.com", "team/hello")),
    ],
)
def test_forms_parse_and_round_trip(text: str, expected: OciOrigin) -> None:
    origin = parse_origin(text)
    assert origin == expected
    assert parse_origin(str(origin)) == origin
    assert origin.scheme == "oci" and origin.host == expected.registry


def test_a_tag_is_pinned_a_digest_is_not() -> None:
    assert parse_origin("oci://r.io/t/h:1.0.0").ref_keys() == [("r.io/t/h", "1.0.0")]
    assert parse_origin(f"oci://r.io/t/h@{DIGEST}").ref_keys() == []


def test_a_range_rides_after_the_hash() -> None:
    assert split_range("oci://r.io/t/h#^1.2") == ("oci://r.io/t/h", "^1.2")
    assert join_range("oci://r.io/t/h", "^1.2") == "oci://r.io/t/h#^1.2"


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("oci://r.io/hello:1.0", "no namespace"),
        ("oci://r.io/Team/hello:1.0", "lowercase"),
        ("oci://user:pw@r.io/t/h:1.0", "credentials"),
        ("oci://r.io/t/h@sha256:abc", "64 lowercase hex"),
        ("oci://r.io/t/h:bad/tag", "lowercase"),
        ("oci://not a host/t/h", "registry host"),
    ],
)
def test_bad_forms_say_why(text: str, why: str) -> None:
    with pytest.raises(OriginSyntaxError, match=why) as raised:
        parse_origin(text)
    assert "pw" not in str(raised.value)
