"""Declares the compiled extension; all metadata lives in pyproject.toml.

The build is portable by default. Set USI_MATE_NATIVE=1 to add -march=native
(faster bit scans and popcounts on the build machine, not portable to others).
"""

import glob
import os
import sys

from Cython.Build import cythonize
from setuptools import Extension, setup

if sys.platform == "win32":
    compile_args = ["/std:c++17", "/O2"]
else:
    compile_args = ["-std=c++17", "-O3", "-fno-strict-aliasing"]
    if os.environ.get("USI_MATE_NATIVE"):
        compile_args.append("-march=native")

extension = Extension(
    "usi_mate._core",
    sources=["usi_mate/_core.pyx"] + sorted(glob.glob("csrc/*.cpp")),
    include_dirs=["csrc"],
    depends=sorted(glob.glob("csrc/*.h")),
    language="c++",
    extra_compile_args=compile_args,
)

setup(ext_modules=cythonize([extension], compiler_directives={"language_level": "3"}))
