"""strand._cpu: the check that keeps a wheel built for x86-64-v3 from dying of SIGILL on an
older CPU (it raises an ImportError naming the missing instructions instead)."""
import platform

import pytest

import strand
from strand import _build_target, _cpu

V3_FLAGS = ("fpu sse2 cx16 lahf_lm popcnt sse4_1 sse4_2 ssse3 avx avx2 bmi1 bmi2 f16c fma abm "
            "movbe xsave")

pytestmark = pytest.mark.skipif(platform.machine().lower() not in ("x86_64", "amd64"),
                                reason="the CPU levels checked are x86-64's")


def cpuinfo(tmp_path, flags):
    path = tmp_path / "cpuinfo"
    path.write_text(f"processor\t: 0\nvendor_id\t: AuthenticAMD\nflags\t\t: {flags}\n\n")
    return str(path)


def test_a_cpu_with_the_targets_flags_passes(tmp_path):
    assert _cpu.missing_flags("x86-64-v3", cpuinfo(tmp_path, V3_FLAGS)) == []
    assert _cpu.missing_flags("x86-64-v2", cpuinfo(tmp_path, V3_FLAGS)) == []


def test_missing_flags_are_named(tmp_path):
    without_avx2_fma = V3_FLAGS.replace(" avx2", "").replace(" fma", "")
    assert _cpu.missing_flags("x86-64-v3", cpuinfo(tmp_path, without_avx2_fma)) == ["avx2", "fma"]
    assert _cpu.missing_flags("x86-64-v4", cpuinfo(tmp_path, V3_FLAGS))[:2] == ["avx512f",
                                                                               "avx512bw"]


def test_unknown_targets_and_unreadable_cpuinfo_are_not_checked(tmp_path):
    assert _cpu.missing_flags("native", cpuinfo(tmp_path, "")) == []
    assert _cpu.missing_flags("", cpuinfo(tmp_path, "")) == []
    assert _cpu.missing_flags("x86-64-v3", str(tmp_path / "absent")) == []


def test_the_error_names_the_target_and_the_way_out(monkeypatch):
    monkeypatch.setattr(_cpu, "missing_flags", lambda target: ["avx2", "fma"])
    with pytest.raises(ImportError, match=r"compiled for x86-64-v3.*lacks avx2, fma.*pip install \."):
        _cpu.check("x86-64-v3")


def test_this_build_records_its_target_and_runs_here():
    assert isinstance(_build_target.CPU_ARCH, str)
    assert _cpu.missing_flags(_build_target.CPU_ARCH) == []  # it imported, so it runs here
    assert strand.Model is not None
