"""Declares the compiled extension; all metadata lives in pyproject.toml.

The build is portable by default. Environment variables:

- USI_MATE_NATIVE=1 adds -march=native (faster bit scans and popcounts on the build
  machine, not portable to others);
- USI_MATE_PORTABLE=1 builds the core without `unsigned __int128` (two 64-bit halves
  per bitboard, csrc/bitops.h), the code MSVC compiles on Windows: CI builds this
  variant on Linux so the Windows code path is tested on every run.

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

extension = Extension(
    "usi_mate._core",
    sources=["usi_mate/_core.pyx"] + sorted(glob.glob("csrc/*.cpp")),
    include_dirs=["csrc"],
    depends=sorted(glob.glob("csrc/*.h")),
    language="c++",
    extra_compile_args=compile_args,
    define_macros=define_macros,
)

setup(ext_modules=cythonize([extension], compiler_directives={"language_level": "3"}))
