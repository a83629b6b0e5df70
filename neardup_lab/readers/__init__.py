"""Input files by format: text folders, JSONL, CSV, Parquet, compressed or not."""
