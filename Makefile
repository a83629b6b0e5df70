# The two commands: `make book` and `make test`. Each sets up .venv itself.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
NBVAL  := --nbval --nbval-sanitize-with tests/sanitize.cfg

.PHONY: book test lint unit unit-all pyodide execute notebooks notebooks-simd build-book browser labs labs-bundle bench-peers bench-numba clean

$(STAMP): requirements.txt pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet -r requirements.txt
	$(BIN)/python -m pip install --quiet --no-deps --no-build-isolation -e .
	touch $(STAMP)

# tools/lite_site.py stages the pinned, checked Pyodide for the live parts (JupyterLite under
# _build/html/lite); when it cannot fetch them it says so in one line and the book is built
# without them, except under CI=true, where that fails.
book: $(STAMP)
	$(BIN)/python tools/lite_site.py prepare
	$(BIN)/jupyter-book build . -W -n --keep-going

# The Pyodide run (tools/pyodide_tests.py) goes side by side with the book build and the browser
# pass: each keeps about one core busy (Node.js; Sphinx, then Chromium running the page's Pyodide).
# It runs on its own copy of the staged files, since build-book stages them anew; its output is
# printed when both are done, and either failing fails the target.
test: $(STAMP) lint unit-all notebooks notebooks-simd
	$(BIN)/python tools/lite_site.py prepare
	$(BIN)/python tools/pyodide_tests.py --stage
	@mkdir -p _build; \
	$(BIN)/python tools/pyodide_tests.py --staged > _build/pyodide-tests.log 2>&1 & run=$$!; \
	$(MAKE) --no-print-directory browser; browser=$$?; \
	wait $$run; pyodide=$$?; \
	echo "--- the package's tests in Pyodide (make pyodide):"; cat _build/pyodide-tests.log; \
	[ $$browser -eq 0 ] && [ $$pyodide -eq 0 ]

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy

# The quick loop: everything but the slow and browser tests.
unit: $(STAMP)
	$(BIN)/python -m pytest -q -m "not browser and not slow" tests --doctest-modules neardup_lab

# Every test but the browser pass (that needs the built book), on two processes (a test
# module stays in one process: --dist loadfile).
unit-all: $(STAMP)
	$(BIN)/python -m pytest -q -n 2 --dist loadfile -m "not browser" tests --doctest-modules neardup_lab

# The same tests in the browser's Python: the site's Pyodide and package wheel under Node.js, with
# pinned pytest and hypothesis; what needs a computer (processes, Dask, files) is skipped with a reason.
pyodide: $(STAMP)
	$(BIN)/python tools/lite_site.py prepare
	$(BIN)/python tools/pyodide_tests.py

notebooks: $(STAMP)
	rm -f _build/costs.json
	$(BIN)/python -m pytest -q -n 2 --dist loadfile $(NBVAL) book labs/solutions

# The notebooks again, with numpy's SIMD dispatch switched off (tools/simd_features.py
# picks the features this CPU has), so that no stored output depends on the CPU's float bits.
notebooks-simd: $(STAMP)
	@features="$$($(BIN)/python tools/simd_features.py)" || exit 1; \
	if [ -z "$$features" ]; then \
		echo "notebooks-simd: SKIPPED, this CPU offers numpy no second SIMD dispatch (see above)"; \
		exit 0; \
	fi; \
	echo "notebooks-simd: NPY_DISABLE_CPU_FEATURES=\"$$features\""; \
	NPY_DISABLE_CPU_FEATURES="$$features" \
		$(BIN)/python -m pytest -q -n 2 --dist loadfile $(NBVAL) book labs/solutions

build-book: $(STAMP)
	rm -rf _build/html _build/.doctrees
	$(BIN)/python tools/lite_site.py prepare
	$(BIN)/jupyter-book build . -W -n --keep-going

browser: $(STAMP) build-book
	$(BIN)/python -m pytest -q -m browser tests

labs: $(STAMP)
	$(BIN)/python tools/make_labs.py

# The zip to hand students (student notebooks, lab data, the package's wheel, a minimal
# requirements file, a README); no solutions. Written to _build/neardup-lab-labs.zip.
labs-bundle: $(STAMP)
	$(BIN)/python tools/make_labs.py --bundle

# Re-execute every chapter and lab solution in place (their outputs are committed), then
# regenerate the student notebooks. Run before committing a change that moves outputs.
execute: $(STAMP)
	rm -f _build/costs.json
	$(BIN)/python tools/execute_notebooks.py book/*.ipynb labs/solutions/*.ipynb
	$(BIN)/python tools/make_labs.py

# The peers (datatrove, text-dedup) side by side with the package and datasketch/rensa, end to
# end; they get an environment of their own under benchmarks/ and the table lands in its README.
PEERS := benchmarks/.peers
$(PEERS)/.installed: benchmarks/peers-requirements.txt
	test -x $(PEERS)/bin/python || $(PYTHON) -m venv $(PEERS)
	$(PEERS)/bin/python -m pip install --quiet -r benchmarks/peers-requirements.txt
	touch $@

# Every system ROUNDS times (interleaved), the table giving medians: one cold run each is at the
# mercy of a busy host. `make bench-peers ROUNDS=1` for a quick look.
ROUNDS ?= 3
bench-peers: $(STAMP) $(PEERS)/.installed
	$(BIN)/python benchmarks/bench_peers.py --peers-python $(PEERS)/bin/python --rounds $(ROUNDS) --update-readme

# What a compiled kernel would give (issue 15): signing in numba beside the numpy path and the
# peers, in an environment of its own so numba stays out of the project's requirements.
NUMBA := benchmarks/.numba
$(NUMBA)/.installed: benchmarks/numba-requirements.txt
	test -x $(NUMBA)/bin/python || $(PYTHON) -m venv $(NUMBA)
	$(NUMBA)/bin/python -m pip install --quiet -r benchmarks/numba-requirements.txt
	touch $@

bench-numba: $(NUMBA)/.installed
	PYTHONPATH=. $(NUMBA)/bin/python benchmarks/prototype_numba.py

clean:
	rm -rf _build .jupyter_cache
