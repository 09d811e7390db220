# cffi has no pyproject-only route: setuptools learns about the extension here.
from setuptools import setup

setup(cffi_modules=["build_ffi.py:ffibuilder"])
