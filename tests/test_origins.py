from pathlib import Path

import pytest

from metapkg.origins import FileOrigin, GitHubOrigin, OriginSyntaxError, parse_origin


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "https://github.com/acme/catalog/tree/main/skills/git-pr",
            GitHubOrigin("acme", "catalog", "main/skills/git-pr"),
        ),
        (
            "https://github.com/Acme/Catalog.git/tree/v1.0.0/skills/git-pr/",
            GitHubOrigin("acme", "catalog", "v1.0.0/skills/git-pr"),
        ),
        (
            "https://github.com/acme/catalog/tree/release/1.x/mcps/io.x_y.json",
            GitHubOrigin("acme", "catalog", "release/1.x/mcps/io.x_y.json"),
        ),
        ("https://github.com/acme/catalog/tree/main", GitHubOrigin("acme", "catalog", "main")),
        ("file:/srv/catalog/skills/x/", FileOrigin("/srv/catalog/skills/x")),
        ("file:///srv/catalog/a%20b", FileOrigin("/srv/catalog/a b")),
        ("file:/srv/catalog/skills/../mcps/x.json", FileOrigin("/srv/catalog/mcps/x.json")),
        ("file:C:\\work\\skills\\x", FileOrigin("C:/work/skills/x")),
        ("file:///c:/work/skills/x", FileOrigin("C:/work/skills/x")),
    ],
)
def test_parse_and_normalize(text: str, expected: object) -> None:
    assert parse_origin(text) == expected


def test_round_trip_is_the_normal_form() -> None:
    origin = parse_origin("https://github.com/ACME/repo.git/tree/main/skills/x/")
    assert str(origin) == "https://github.com/acme/repo/tree/main/skills/x"
    assert parse_origin(str(origin)) == origin


def test_splits_try_the_shortest_ref_first() -> None:
    origin = GitHubOrigin("acme", "catalog", "release/1.x/skills/x")
    assert list(origin.splits()) == [
        ("release", "1.x/skills/x"),
        ("release/1.x", "skills/x"),
        ("release/1.x/skills", "x"),
        ("release/1.x/skills/x", ""),
    ]


@pytest.mark.parametrize(
    "text",
    [
        "http://github.com/acme/catalog/tree/main/x",
        "https://gitlab.com/acme/catalog/tree/main/x",
        "https://github.com/acme/catalog/blob/main/x",
        "https://github.com/acme/catalog",
        "https://github.com/acme/catalog/tree/main/../x",
        "https://github.com/acme/catalog/tree/main/x?raw=1",
        "git@github.com:acme/catalog.git",
        "acme/catalog",
        "file:relative/path",
        "file://server/share/x",
    ],
)
def test_rejected_forms_explain_the_accepted_ones(text: str) -> None:
    with pytest.raises(OriginSyntaxError) as info:
        parse_origin(text)
    assert "file:" in str(info.value)


def test_relative_file_origins_only_with_a_base(tmp_path: Path) -> None:
    origin = parse_origin("file:./local-skills/house-style", base_dir=tmp_path)
    assert origin == FileOrigin((tmp_path / "local-skills/house-style").as_posix())
    with pytest.raises(OriginSyntaxError, match=r"metapkg\.yaml only"):
        parse_origin("file:./local-skills/house-style")


def test_non_string_origin() -> None:
    with pytest.raises(OriginSyntaxError, match="must be a string"):
        parse_origin(42)
