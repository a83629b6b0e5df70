"""Read documents from files a reader brings: folders of .txt, JSONL, CSV, Parquet.

Every input ends up as a :class:`Document` with a stable id or a :class:`Problem` that says which
file and line could not be used and why: nothing is dropped without a trace. One module reads each
format (:mod:`.text_files`, :mod:`.jsonl`, :mod:`.delimited`, :mod:`.parquet`), :mod:`.records` and
:mod:`.files` hold what they share, :mod:`.inputs` reads a list of inputs; the names below are here.

Ids are built from the path as given (never made absolute), so the same command run from the same
folder gives the same ids on any machine:

- a ``.txt`` file is one document, its id is its path: ``news/a.txt``;
- a JSONL line or a CSV record is one document, its id is ``path:line`` with the 1-based line
  on which the record starts: ``day1.jsonl:3``; a Parquet row's is ``path:row``;
- with ``id_field`` (JSONL; a dotted path such as ``meta.id`` reaches into nested objects) or
  ``id_column`` (CSV and Parquet), a record's own id is used instead. A record without one is
  ``missing-id``, one that is not a string or a whole number is ``bad-id``, and a record whose
  id was taken by an earlier record is ``duplicate-id``: records are never merged silently.

Files ending in ``.gz`` (standard library) or ``.zst`` (the ``zstandard`` package) are decompressed
as they are read, in bounded steps; compressed data cut off or damaged is ``damaged``, naming the
line where reading stopped, after the records before it. Parquet files (``pyarrow``) are read in
record batches, the text from ``column``; a file ``pyarrow`` cannot read is ``damaged``, one without
the column ``missing-parquet-column``. ``pip install 'neardup-lab[formats]'`` installs both packages.

Rules that apply to every kind of input:

- Text must decode with ``encoding`` (UTF-8 by default; a UTF-8 byte-order mark is accepted).
  Bytes that do not decode make an ``undecodable`` problem that names the line.
- A file with a NUL byte in its first :data:`~neardup_lab.limits.SNIFF_BYTES` is ``binary`` and
  skipped whole; one that starts with a UTF-16 or UTF-32 byte-order mark is ``undecodable``.
- A document larger than ``max_bytes`` (UTF-8 bytes of its text; a ``.txt`` file's size; 0: no
  limit) is ``too-large`` and refused, so one stray giant file cannot exhaust memory. Reads are
  bounded by the bytes actually read, not by the size the file system claims.
- Only regular files (or links to them) are opened. A named pipe, a device, a socket or a
  folder where a file was expected is ``not-regular``, so no input can make a run wait forever.
- A file is read once per run, however many names lead to it: later names are
  ``duplicate-input``. Folder links are followed once; a link back into its own folder is a
  ``link-loop``; a folder that cannot be listed is ``unreadable-folder``.
- A CSV quote that is never closed, which would swallow the rest of the file into one
  document, is ``bad-csv``; the lines after it are read again as rows of their own. A JSONL
  line that Python cannot parse safely (a number of thousands of digits, arrays nested
  thousands deep) is ``bad-json``, and the run goes on.
- An empty document (or one that is only spaces or punctuation) is still a document: after
  normalisation, it is an exact copy of every other empty document.
- Blank lines between JSONL records or CSV rows hold no record; they are counted in
  ``ReadReport.blank_lines``, not treated as problems.

>>> import json, os, tempfile
>>> with tempfile.TemporaryDirectory() as tmp:
...     path = os.path.join(tmp, "day1.jsonl")
...     with open(path, "w", encoding="utf-8") as f:
...         _ = f.write(json.dumps({"text": "heavy rain"}) + "\\n" + json.dumps({"body": "x"}) + "\\n")
...     report = read_inputs([path], field="text")
>>> [d.text for d in report.documents], [p.reason for p in report.problems]
(['heavy rain'], ['missing-field'])
"""

from .. import limits
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

#: The default of ``--max-bytes``; readers read :data:`neardup_lab.limits.DEFAULT_MAX_BYTES` when they run.
DEFAULT_MAX_BYTES = limits.DEFAULT_MAX_BYTES
#: :data:`neardup_lab.limits.PARQUET_BATCH_ROWS`, for code that imported it from here.
PARQUET_BATCH_ROWS = limits.PARQUET_BATCH_ROWS

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
    "record_value", "csv_rows", "csv_delimiter", "PARQUET_BATCH_ROWS",
]
