"""docs/writing-a-hook-module.md works as written: its module and its test, copied into a
package of their own with no pytest configuration, pass under pytest with the kernel's
plugin."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "writing-a-hook-module.md"


def test_the_documented_module_and_test_pass(tmp_path: Path) -> None:
    module, test = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    package = tmp_path / "src" / "my_hooks"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(module, encoding="utf-8")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_my_hooks.py").write_text(test, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
        cwd=tmp_path,
        env={"PYTHONPATH": str(tmp_path / "src"), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed" in done.stdout
