"""Read documents from folders of .txt files, JSONL, CSV and Parquet files.

Every input becomes a :class:`Document` or a :class:`Problem` naming the file, line and reason:
nothing is dropped without a trace. Only regular files are opened, reads are bounded by
``max_bytes``, and each file is read once however named.

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

DEFAULT_MAX_BYTES = limits.DEFAULT_MAX_BYTES  # readers read limits' own at run time

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
