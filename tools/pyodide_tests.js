// Runs pytest inside Pyodide under Node.js: the package's own tests on the browser's Python.
//
//   node tools/pyodide_tests.js PYODIDE_DIR CHECKOUT SITE_PACKAGES PYTEST_ARGS_JSON
//
// PYODIDE_DIR holds the site's Pyodide (pyodide.js, its lock file and wheels), CHECKOUT the
// project (mounted read-write at /repo, for the tests and the junit report), SITE_PACKAGES the
// unpacked test wheels (pytest, hypothesis, ...). The package itself is the wheel the site ships,
// installed from PYODIDE_DIR as the page installs it. Exits with pytest's exit code.
// tools/pyodide_tests.py prepares the arguments; run that instead.
"use strict";
const path = require("path");

async function main() {
  const [pyodideDir, checkout, sitePackages, argsJson] = process.argv.slice(2);
  const indexURL = path.resolve(pyodideDir) + path.sep;
  const { loadPyodide } = require(path.join(indexURL, "pyodide.js"));
  const pyodide = await loadPyodide({
    indexURL,
    // lab 7's checks read the checkout's licence corpus (the wheel does not carry it)
    env: { HOME: "/home/pyodide", CI: process.env.CI || "", NEARDUP_LAB_LICENCES: "/repo/book/data/licences" },
    stdout: (line) => process.stdout.write(line + "\n"),
    stderr: (line) => process.stderr.write(line + "\n"),
  });
  // What the page loads for the package and the labs, plus what pytest needs from Pyodide's own.
  await pyodide.loadPackage(["neardup-lab", "matplotlib", "pygments", "packaging"], { messageCallback: () => {} });
  const { NODEFS } = pyodide.FS.filesystems;
  for (const [host, mountPoint] of [[checkout, "/repo"], [sitePackages, "/test-site"]]) {
    pyodide.FS.mkdirTree(mountPoint);
    pyodide.FS.mount(NODEFS, { root: path.resolve(host) }, mountPoint);
  }
  pyodide.globals.set("pytest_args", pyodide.toPy(JSON.parse(argsJson)));
  const code = pyodide.runPython(`
import os, sys
sys.path += ["/test-site", "/repo/tests"]  # pytest and the like; conftest as a plugin
sys.dont_write_bytecode = True  # nothing written into the checkout but the report
os.chdir("/tmp")
import pytest
int(pytest.main(list(pytest_args)))
`);
  process.exit(code);
}

main().catch((error) => {
  process.stderr.write(`pyodide_tests: ${String(error && error.message ? error.message : error).slice(-4000)}\n`);
  process.exit(3);
});
