"""The compiled play-out (pegwalk.c): setuptools builds the C extension; pyproject.toml has the rest."""

from setuptools import Extension, setup

setup(ext_modules=[Extension("pegwalk", ["pegwalk.c"], libraries=["m"], extra_compile_args=["-O2", "-std=c99", "-Wall"])])
