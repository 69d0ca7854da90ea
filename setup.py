"""Declares the compiled extension; all metadata lives in pyproject.toml.

The build is portable by default. Environment variables:

- USI_MATE_NATIVE=1 adds -march=native (faster bit scans and popcounts on the build
  machine, not portable to others);
- USI_MATE_PORTABLE=1 builds the core without `unsigned __int128` (two 64-bit halves
  per bitboard, csrc/bitops.h), the code MSVC compiles on Windows: CI builds this
  variant on Linux so the Windows code path is tested on every run;
- USI_MATE_TSAN=1 builds with ThreadSanitizer (GCC/Clang; for checking the
  multi-threaded search, docs/THREADS.md says how to run the tests with it);
- USI_MATE_TEST_HOOKS=1 builds the tests' own extension instead of the package's:
  ``usi_mate_testing`` (tests/usi_mate_testing.pyx over csrc/testing.h), never part of
  the package or its wheel. tests/hooks.py runs ``setup.py build_ext`` so, into
  build/test-hooks/, on first use (the other variables apply to it as well).

The objects are not rebuilt when only a variable changes: switch with `--force`.
"""

import glob
import os
import sys

from Cython.Build import cythonize
from setuptools import Extension, setup

define_macros = []
if sys.platform == "win32":
    # /utf-8: the sources have Japanese terms in comments; without it MSVC reads them in
    # the machine's code page (cp932 on a Japanese Windows) and warns (C4819).
    # NOMINMAX: keep windows.h, if anything pulls it in, from defining min/max macros.
    compile_args = ["/std:c++17", "/O2", "/utf-8"]
    define_macros.append(("NOMINMAX", "1"))
else:
    compile_args = ["-std=c++17", "-O3", "-fno-strict-aliasing"]
    if os.environ.get("USI_MATE_NATIVE"):
        compile_args.append("-march=native")
if os.environ.get("USI_MATE_PORTABLE", "0") not in ("", "0"):
    define_macros.append(("USI_MATE_PORTABLE", "1"))
if os.environ.get("USI_MATE_TRACE_PATH", "0") not in ("", "0"):
    # A diagnostic build: the search prints its path to stderr every 2^28 nodes
    # (docs/BENCHMARKS.md, "Where the nodes go").
    define_macros.append(("USI_MATE_TRACE_PATH", "1"))
link_args = []
if os.environ.get("USI_MATE_TSAN", "0") not in ("", "0"):
    compile_args += ["-fsanitize=thread", "-g", "-O1"]
    link_args.append("-fsanitize=thread")

cython_options = {"compiler_directives": {"language_level": "3"}}
if os.environ.get("USI_MATE_TEST_HOOKS", "0") not in ("", "0"):
    name, source = "usi_mate_testing", "tests/usi_mate_testing.pyx"
    # It cimports the core's declarations (usi_mate/_core.pxd); its generated C++ stays
    # out of tests/.
    cython_options.update(include_path=["."], build_dir="build/test-hooks/src")
else:
    name, source = "usi_mate._core", "usi_mate/_core.pyx"
extension = Extension(
    name,
    sources=[source] + sorted(glob.glob("csrc/*.cpp")),
    include_dirs=["csrc"],
    depends=sorted(glob.glob("csrc/*.h")),
    language="c++",
    extra_compile_args=compile_args,
    extra_link_args=link_args,
    define_macros=define_macros,
)

setup(ext_modules=cythonize([extension], **cython_options))
