"""Input readers: every record becomes a document or a problem with its file and line."""

from __future__ import annotations

import csv
import io
import json
import os

import pytest
from hypothesis import given
from hypothesis import strategies as st

from neardup_lab.readers import (
    DEFAULT_MAX_BYTES,
    Document,
    InputError,
    Problem,
    csv_rows,
    detect_format,
    iter_records,
    read_inputs,
)
from neardup_lab.support import limits


def write(path, data: str | bytes) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        data = data.encode("utf-8")
    path.write_bytes(data)
    return str(path)


def problems_by_where(report) -> dict[str, str]:
    return {p.where: p.reason for p in report.problems}


@pytest.fixture
def cwd(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


# ----- folders of .txt -----------------------------------------------------------------


def test_txt_folder_ids_are_relative_sorted_and_recursive(cwd):
    write(cwd / "news" / "b.txt", "second")
    write(cwd / "news" / "a.txt", "first")
    write(cwd / "news" / "sub" / "c.TXT", "third")
    write(cwd / "news" / "readme.md", "not a document")
    report = read_inputs(["./news/"])
    assert [d.id for d in report.documents] == ["news/a.txt", "news/b.txt", "news/sub/c.TXT"]
    assert [d.text for d in report.documents] == ["first", "second", "third"]
    assert report.other_files == 1 and report.problems == []
    assert all(d.line is None for d in report.documents)


def test_txt_utf8_bom_is_dropped_and_empty_file_is_a_document(cwd):
    write(cwd / "d" / "bom.txt", b"\xef\xbb\xbfheavy rain")
    write(cwd / "d" / "empty.txt", b"")
    write(cwd / "d" / "punct.txt", "  !!! ... ")
    report = read_inputs(["d"])
    texts = {d.id: d.text for d in report.documents}
    assert texts == {"d/bom.txt": "heavy rain", "d/empty.txt": "", "d/punct.txt": "  !!! ... "}
    assert report.problems == []


def test_binary_and_utf16_files_are_skipped_with_reason(cwd):
    write(cwd / "d" / "image.txt", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    write(cwd / "d" / "wide.txt", "heavy rain".encode("utf-16"))
    write(cwd / "d" / "ok.txt", "fine")
    report = read_inputs(["d"])
    assert problems_by_where(report) == {"d/image.txt": "binary", "d/wide.txt": "undecodable"}
    wide = next(p for p in report.problems if p.where == "d/wide.txt")
    assert "UTF-16" in wide.message and "convert" in wide.message
    assert [d.id for d in report.documents] == ["d/ok.txt"]


def test_undecodable_txt_names_the_line(cwd):
    write(cwd / "d" / "latin.txt", "line one\nline two\ncaf\xe9 au lait\n".encode("latin-1"))
    report = read_inputs(["d"])
    (problem,) = report.problems
    assert (problem.where, problem.reason) == ("d/latin.txt:3", "undecodable")
    assert "0xe9" in problem.message and "--encoding" in problem.message
    # The same file reads fine when the encoding is named.
    assert read_inputs(["d"], encoding="latin-1").documents[0].text.endswith("café au lait\n")


def test_broken_symlink_is_unreadable_not_fatal(cwd):
    write(cwd / "d" / "ok.txt", "fine")
    os.symlink("nowhere.txt", cwd / "d" / "gone.txt")
    os.symlink(cwd / "nowhere.txt", cwd / "d" / "out.txt")
    report = read_inputs(["d"], follow_links=True)
    assert problems_by_where(report) == {"d/gone.txt": "unreadable", "d/out.txt": "link-escape"}
    assert len(report.documents) == 1
    assert problems_by_where(read_inputs(["d"])) == {"d/gone.txt": "link", "d/out.txt": "link"}


def test_size_limit_boundary_and_off_switch(cwd):
    write(cwd / "d" / "at.txt", "x" * 100)
    write(cwd / "d" / "over.txt", "x" * 101)
    report = read_inputs(["d"], max_bytes=100)
    assert [d.id for d in report.documents] == ["d/at.txt"]
    (problem,) = report.problems
    assert (problem.where, problem.reason) == ("d/over.txt", "too-large")
    assert "101 bytes" in problem.message and "--max-bytes" in problem.message
    assert len(read_inputs(["d"], max_bytes=0).documents) == 2
    assert DEFAULT_MAX_BYTES == limits.DEFAULT_MAX_BYTES == 10_000_000


def test_default_size_limit_is_read_when_reading(cwd, monkeypatch):
    write(cwd / "d" / "a.txt", "x" * 50)
    monkeypatch.setattr(limits, "DEFAULT_MAX_BYTES", 10)
    assert problems_by_where(read_inputs(["d"])) == {"d/a.txt": "too-large"}


def test_single_txt_file_is_one_document(cwd):
    write(cwd / "note.txt", "one note")
    assert read_inputs(["note.txt"]).documents == [Document("note.txt", "one note", "note.txt")]


# ----- JSONL ---------------------------------------------------------------------------


def test_jsonl_every_nonblank_line_is_a_document_or_a_problem(cwd):
    lines = [
        json.dumps({"text": "heavy rain", "id": 7}),  # 1 document
        "",  # 2 blank
        json.dumps({"body": "wrong field"}),  # 3 missing-field
        json.dumps({"text": None}),  # 4 not-text
        json.dumps({"text": 42}),  # 5 not-text
        '{"text": "unterminated',  # 6 bad-json
        json.dumps(["text", "x"]),  # 7 bad-json (not an object)
        json.dumps({"text": ""}),  # 8 document (empty)
        "   ",  # 9 blank
        json.dumps({"text": "naïve café ✓"}),  # 10 document
    ]
    write(cwd / "a.jsonl", "\r\n".join(lines) + "\r\n")
    write(cwd / "a.jsonl", (cwd / "a.jsonl").read_bytes() + b'{"text": "\xff"}\n')  # 11 undecodable
    report = read_inputs(["a.jsonl"])
    assert [(d.id, d.text) for d in report.documents] == [
        ("a.jsonl:1", "heavy rain"),
        ("a.jsonl:8", ""),
        ("a.jsonl:10", "naïve café ✓"),
    ]
    assert problems_by_where(report) == {
        "a.jsonl:3": "missing-field",
        "a.jsonl:4": "not-text",
        "a.jsonl:5": "not-text",
        "a.jsonl:6": "bad-json",
        "a.jsonl:7": "bad-json",
        "a.jsonl:11": "undecodable",
    }
    assert report.blank_lines == 2
    assert len(report.documents) + len(report.problems) + report.blank_lines == 11
    missing = next(p for p in report.problems if p.reason == "missing-field")
    assert "'text'" in missing.message and "body" in missing.message and "--field" in missing.message


def test_jsonl_field_option_and_bom(cwd):
    write(cwd / "b.jsonl", b"\xef\xbb\xbf" + json.dumps({"body": "x"}).encode() + b"\n")
    assert read_inputs(["b.jsonl"], field="body").documents[0].text == "x"


def test_jsonl_size_limit_is_per_record(cwd):
    write(cwd / "c.jsonl", json.dumps({"text": "é" * 60}) + "\n" + json.dumps({"text": "é" * 40}) + "\n")
    report = read_inputs(["c.jsonl"], max_bytes=100)  # é is 2 bytes in UTF-8
    assert [d.id for d in report.documents] == ["c.jsonl:2"]
    assert problems_by_where(report) == {"c.jsonl:1": "too-large"}
    assert "120 bytes" in report.problems[0].message


def test_jsonl_line_far_over_the_limit_is_passed_over_not_held(cwd):
    giant = json.dumps({"text": "w " * 600_000})  # 1.2 MB: over 6 * max_bytes + 1 MB
    write(cwd / "g.jsonl", giant + "\n" + json.dumps({"text": "small"}) + "\n")
    report = read_inputs(["g.jsonl"], max_bytes=10)
    assert problems_by_where(report) == {"g.jsonl:1": "too-large"}
    assert "longer than 1000060 bytes" in report.problems[0].message
    assert [(d.id, d.text) for d in report.documents] == [("g.jsonl:2", "small")]


def test_binary_jsonl_is_one_problem(cwd):
    write(cwd / "z.jsonl", b"PK\x03\x04\x00\x00garbage\n" * 10)
    report = read_inputs(["z.jsonl"])
    assert [(p.where, p.reason) for p in report.problems] == [("z.jsonl", "binary")]


# ----- CSV -----------------------------------------------------------------------------


def test_csv_ids_are_start_lines_and_bad_rows_are_reported(cwd):
    data = (
        "id,text,lang\n"  # 1 header
        '1,"heavy rain, again",en\n'  # 2
        '2,"a record\nover two lines",en\n'  # 3-4
        "\n"  # 5 blank
        "3,short\n"  # 6 bad-csv: 2 fields
        "4\n"  # 7 missing-column
        "5,too,many,fields\n"  # 8 bad-csv
        "6,,en\n"  # 9 empty document
    )
    write(cwd / "p.csv", data.encode() + b"7,caf\xe9,fr\n")  # 10 undecodable
    report = read_inputs(["p.csv"])
    assert [(d.id, d.text) for d in report.documents] == [
        ("p.csv:2", "heavy rain, again"),
        ("p.csv:3", "a record\nover two lines"),
        ("p.csv:9", ""),
    ]
    assert problems_by_where(report) == {
        "p.csv:6": "bad-csv",
        "p.csv:7": "missing-column",
        "p.csv:8": "bad-csv",
        "p.csv:10": "undecodable",
    }
    assert report.blank_lines == 1


def test_csv_without_the_column_is_one_problem_on_the_header_line(cwd):
    write(cwd / "q.csv", "id,body\n1,x\n2,y\n")
    report = read_inputs(["q.csv"], column="text")
    (problem,) = report.problems
    assert (problem.where, problem.reason) == ("q.csv:1", "missing-column")
    assert "body" in problem.message and "--column" in problem.message and "no row" in problem.message
    assert read_inputs(["q.csv"], column="body").documents[1].id == "q.csv:3"


def test_tsv_and_custom_delimiter(cwd):
    write(cwd / "t.tsv", "text\tid\nheavy, rain\t1\n")
    assert read_inputs(["t.tsv"]).documents[0].text == "heavy, rain"
    write(cwd / "s.csv", "text;id\nheavy, rain;1\n")
    assert read_inputs(["s.csv"], delimiter=";").documents[0].text == "heavy, rain"


def test_csv_large_field_is_refused_not_a_csv_error(cwd):
    big = "w " * 100_000  # 200 000 bytes: above csv's own default field limit
    write(cwd / "big.csv", f"text\n{big}\nsmall\n")
    report = read_inputs(["big.csv"], max_bytes=1000)
    assert problems_by_where(report) == {"big.csv:2": "too-large"}
    assert [d.text for d in report.documents] == ["small"]
    assert read_inputs(["big.csv"], max_bytes=0).documents[0].text == big


def test_csv_field_of_30_mb_is_read_and_the_csv_module_limit_is_left_alone(cwd):
    before = csv.field_size_limit()
    big = "heavy rain, " * 2_500_000  # 30 MB in one quoted field, far above csv's own limit
    write(cwd / "big.csv", f'id,text\n1,"{big}"\n2,sun\n')
    rows = csv_rows("big.csv", max_bytes=40_000_000)
    assert next(rows) == (1, ["id", "text"]) and next(rows) == (2, ["1", big])
    assert csv.field_size_limit() == before  # also while the reader is paused part way
    assert list(rows) == [(3, ["2", "sun"])] and csv.field_size_limit() == before
    report = read_inputs(["big.csv"], max_bytes=30_000_000)
    assert [len(d.text) for d in report.documents] == [len(big), 3]
    assert problems_by_where(read_inputs(["big.csv"], max_bytes=29_999_999)) == {"big.csv:2": "too-large"}
    assert csv.field_size_limit() == before


@given(st.text(alphabet='ab,;"\r\n ', max_size=40), st.sampled_from([",", ";"]))
def test_csv_records_split_as_the_csv_module_splits_them(tmp_path_factory, text, delimiter):
    path = tmp_path_factory.mktemp("csv") / "a.csv"
    path.write_bytes(text.encode("utf-8"))
    expected = [row or None for row in csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)]
    got = [
        item if item is None or isinstance(item, Problem) else item[1]
        for item in csv_rows(str(path), delimiter=delimiter)
    ]
    closed = next((i for i, item in enumerate(got) if isinstance(item, Problem)), len(got))
    assert got[:closed] == expected[:closed]
    if closed < len(got):  # a quote never closed: csv.reader's last row holds all it swallowed
        assert got[closed].reason == "bad-csv" and len(expected) == closed + 1
    else:
        assert len(expected) == closed


def test_csv_delimiter_must_be_one_character(cwd):
    write(cwd / "a.csv", "text\nx\n")
    with pytest.raises(InputError, match="one character"):
        read_inputs(["a.csv"], delimiter=";;")


def test_csv_unclosed_quote_rereads_the_lines_it_swallowed(cwd):
    write(cwd / "u.csv", 'id,text\n1,ok\n2,"open quote\n3,swallowed\n4,too\n')
    report = read_inputs(["u.csv"])
    assert [(d.id, d.text) for d in report.documents] == [
        ("u.csv:2", "ok"),
        ("u.csv:4", "swallowed"),
        ("u.csv:5", "too"),
    ]
    (problem,) = report.problems
    assert (problem.where, problem.reason) == ("u.csv:3", "bad-csv")
    assert "never closed" in problem.message and "lines 3-5" in problem.message


def test_csv_unclosed_quote_in_the_header_reads_no_row(cwd):
    write(cwd / "h.csv", 'id,"text\n1,ok\n')
    report = read_inputs(["h.csv"])
    assert report.documents == [] and problems_by_where(report) == {"h.csv:1": "bad-csv"}
    assert "no row of this file was read" in report.problems[0].message


def test_csv_record_far_over_the_limit_stops_reading_with_a_problem(cwd):
    swallowed = "".join(f"{i},row {i}\n" for i in range(3, 120_000))  # about 1.3 MB after the quote
    write(cwd / "big.csv", 'id,text\n1,ok\n2,"open quote\n' + swallowed)
    report = read_inputs(["big.csv"], max_bytes=10)
    assert [d.id for d in report.documents] == ["big.csv:2"]
    (problem,) = report.problems
    assert (problem.where, problem.reason) == ("big.csv:3", "too-large")
    assert "stopped here" in problem.message


def test_empty_files_hold_no_records(cwd):
    write(cwd / "e.csv", b"")
    write(cwd / "e.jsonl", b"")
    report = read_inputs(["e.csv", "e.jsonl"])
    assert report.documents == [] and report.problems == []


# ----- whole-run errors ----------------------------------------------------------------


def test_detect_format():
    assert detect_format("a.NDJSON") == "jsonl"
    assert detect_format("a.tsv") == "csv"
    with pytest.raises(InputError, match="--format"):
        detect_format("a.json")
    with pytest.raises(InputError, match="unknown format"):
        detect_format("a.csv", "xml")


def test_fatal_input_errors_raise_before_reading(cwd):
    write(cwd / "a.txt", "x")
    with pytest.raises(InputError, match="no such file or folder: missing.jsonl"):
        read_inputs(["a.txt", "missing.jsonl"])
    with pytest.raises(InputError, match="given twice"):
        read_inputs(["a.txt", "./a.txt"])
    with pytest.raises(InputError, match="no inputs"):
        read_inputs([])
    with pytest.raises(InputError, match="list of paths"):
        read_inputs("a.txt")
    with pytest.raises(InputError, match="ASCII-compatible"):
        read_inputs(["a.txt"], encoding="utf-16")
    with pytest.raises(InputError, match="unknown encoding"):
        read_inputs(["a.txt"], encoding="no-such-codec")


def test_a_folder_and_a_file_inside_it_read_the_file_once(cwd):
    write(cwd / "d" / "a.txt", "x")
    report = read_inputs(["d", "d/a.txt"])
    assert [d.id for d in report.documents] == ["d/a.txt"]
    (again,) = report.problems
    assert (again.where, again.reason) == ("d/a.txt", "duplicate-input")
    assert "the same file as d/a.txt" in again.message


def test_iter_records_and_problem_helpers(cwd):
    write(cwd / "a.jsonl", '{"text": "x"}\n{"nope": 1}\n')
    items = list(iter_records("a.jsonl"))
    assert isinstance(items[0], Document) and isinstance(items[1], Problem)
    assert str(items[1]).startswith("a.jsonl:2: missing JSON field: no field 'text'")
    assert items[1].to_dict() == {
        "source": "a.jsonl",
        "line": 2,
        "reason": "missing-field",
        "message": items[1].message,
    }


def test_progress_wrapper_sees_every_record(cwd):
    write(cwd / "a.jsonl", '{"text": "x"}\n\n{"nope": 1}\n')
    seen = []

    def progress(items):
        for item in items:
            seen.append(item)
            yield item

    report = read_inputs(["a.jsonl"], progress=progress)
    assert len(seen) == 3 and len(report.documents) == 1 and report.blank_lines == 1


@pytest.mark.skipif(not hasattr(os, "symlink") or os.name == "nt", reason="needs symbolic links")
@pytest.mark.native("the page's file system resolves '..' after a link as text, not as the kernel does")
def test_a_path_is_named_as_given_never_tidied_past_a_link(cwd):
    write(cwd / "other" / "sub" / "x.txt", "")
    write(cwd / "other" / "a.jsonl", json.dumps({"text": "heavy rain"}) + "\n")
    write(cwd / "data" / "a.jsonl", json.dumps({"text": "another file"}) + "\n")
    os.symlink("../other/sub", cwd / "data" / "link")
    (doc,) = read_inputs(["./data/link/../a.jsonl"]).documents  # the system reads other/a.jsonl
    assert (doc.text, doc.source, doc.id) == ("heavy rain", "data/link/../a.jsonl", "data/link/../a.jsonl:1")
