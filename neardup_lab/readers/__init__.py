"""Read documents from files a reader brings: folders of .txt, JSONL, CSV, Parquet.

Every input becomes a :class:`Document` with a stable id or a :class:`Problem` naming the file,
line and reason: nothing is dropped without a trace. One module reads each format
(:mod:`.text_files`, :mod:`.jsonl`, :mod:`.delimited`, :mod:`.parquet`) and reads chosen records
again to copy them; :mod:`.records` and :mod:`.files` hold what they share; :mod:`.inputs` reads
a list of inputs.

Ids come from the path as given, so a command run from the same folder gives the same ids on any
machine: a ``.txt`` file's is its path, a JSONL or CSV record's ``path:line`` (the line it starts
on), a Parquet row's ``path:row``; or the record's own (``id_field``, a dotted path into nested
objects; ``id_column``), which must be present (``missing-id``), a string or a whole number
(``bad-id``) and unique (``duplicate-id``).

Rules for every input: text decodes with ``encoding`` (a UTF-8 byte-order mark is accepted); a
NUL byte early on is ``binary``; a document over ``max_bytes`` is ``too-large``, with reads
bounded by the bytes actually read; only regular files are opened (``not-regular``: nothing can
make a run wait); a folder's links are not followed (``link``) unless ``follow_links``, and never
out of the folder (``link-escape``); each file is read once however named (``duplicate-input``,
``link-loop``); a path is never tidied as text, and a file is opened by the path that names it;
``.gz`` and ``.zst`` files are decompressed in bounded steps (``damaged`` names where reading
stopped); an unclosed CSV quote is ``bad-csv`` and the lines after it are read again; blank
lines are counted, not problems. An empty document is still a document.

>>> import json, os, tempfile
>>> with tempfile.TemporaryDirectory() as tmp:
...     path = os.path.join(tmp, "day1.jsonl")
...     with open(path, "w", encoding="utf-8") as f:
...         _ = f.write(json.dumps({"text": "heavy rain"}) + "\\n" + json.dumps({"body": "x"}) + "\\n")
...     report = read_inputs([path], field="text")
>>> [d.text for d in report.documents], [p.reason for p in report.problems]
(['heavy rain'], ['missing-field'])
"""

from ..support import limits
from .delimited import csv_delimiter, csv_rows
from .files import (
    COMPRESSIONS,
    FORMATS,
    check_inputs,
    compression_of,
    detect_format,
    display,
    open_input,
    optional_module,
)
from .inputs import iter_records, read_inputs, record_layout, records_again
from .jsonl import jsonl_lines, record_value
from .records import (
    REASONS,
    Document,
    InputChanged,
    InputError,
    InputFile,
    Problem,
    ReadOptions,
    ReadReport,
    check_encoding,
)

DEFAULT_MAX_BYTES = limits.DEFAULT_MAX_BYTES  # readers read limits' own when they run

__all__ = [
    # what reading gives
    "Document", "Problem", "ReadReport", "ReadOptions", "InputFile", "InputError", "REASONS",
    # reading inputs
    "read_inputs", "iter_records", "check_inputs", "check_encoding", "detect_format", "FORMATS",
    "DEFAULT_MAX_BYTES",
    # reading chosen records again (to copy them), checked against the first read
    "records_again", "record_layout", "InputChanged",
    # the pieces
    "display", "open_input", "compression_of", "COMPRESSIONS", "optional_module", "jsonl_lines",
    "record_value", "csv_rows", "csv_delimiter",
]
