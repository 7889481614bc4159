"""Build hook: a wheel built from a source tree ships the TypeScript front end.

Everything else is declared in pyproject.toml. When the wheel is built (`pip install .`,
`pip install git+URL`, `pip wheel .`) and the bundled plugin (analyzer/typeorm/_plugin) is not
there yet, ts-plugin is built with npm (`npm ci`, `tsc`) and copied into the package by
scripts/bundle_ts_plugin.py. Without npm the wheel is built without it and says so; TypeORM scans
then fail with one line naming what is missing. Editable installs skip this (scripts/setup.sh
builds the plugin itself).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
BUNDLED = ROOT / "analyzer" / "typeorm" / "_plugin" / "dist" / "cli.js"


class BuildPyWithTypeScriptFrontEnd(build_py):
    def run(self) -> None:
        if not getattr(self, "editable_mode", False) and not BUNDLED.is_file() \
                and (ROOT / "ts-plugin" / "package.json").is_file():
            npm = shutil.which("npm")
            if npm is None:
                print("txscan: npm not found; this wheel has no TypeScript front end (Django scans work)",
                      file=sys.stderr)
            else:
                for command in ([npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"],
                                [npm, "run", "--silent", "build", "--workspace", "ts-plugin"],
                                [sys.executable, str(ROOT / "scripts" / "bundle_ts_plugin.py")]):
                    subprocess.run(command, cwd=ROOT, check=True)
                # The package data list is computed lazily; drop any copy made before the build.
                self.__dict__.pop("data_files", None)
        super().run()


setup(cmdclass={"build_py": BuildPyWithTypeScriptFrontEnd})
