# cffi has no pyproject-only route: setuptools learns about the extension here. The extension is
# built against the limited API (cffi's default: `_native_ext.abi3.so`), so one wheel serves every
# CPython from 3.9 on: the wheel is tagged cp39-abi3 accordingly.
from setuptools import setup

setup(cffi_modules=["build_ffi.py:ffibuilder"], options={"bdist_wheel": {"py_limited_api": "cp39"}})
