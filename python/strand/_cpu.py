"""The CPU check made before strand's extension is loaded: a build for a portable target (the
wheel of scripts/make_wheel.sh is compiled for x86-64-v3) run on a CPU without that target's
instructions would die of SIGILL with no message; this raises an ImportError that says why."""
import platform
from typing import List

# The /proc/cpuinfo flags of each x86-64 microarchitecture level (the x86-64 psABI's lists;
# LZCNT shows as "abm").
_X86_64_V2 = ("cx16", "lahf_lm", "popcnt", "sse4_1", "sse4_2", "ssse3")
_X86_64_V3 = _X86_64_V2 + ("avx", "avx2", "bmi1", "bmi2", "f16c", "fma", "abm", "movbe", "xsave")
_X86_64_V4 = _X86_64_V3 + ("avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl")
_LEVELS = {"x86-64-v2": _X86_64_V2, "x86-64-v3": _X86_64_V3, "x86-64-v4": _X86_64_V4}


def missing_flags(target: str, cpuinfo: str = "/proc/cpuinfo") -> List[str]:
    """The CPU flags that `target` (the build's -march value) needs and this CPU lacks. Empty for
    a target it does not know ("native", "", another -march) or where it cannot tell (not
    x86-64, no /proc/cpuinfo)."""
    required = _LEVELS.get(target)
    if required is None or platform.machine().lower() not in ("x86_64", "amd64"):
        return []
    try:
        with open(cpuinfo) as lines:
            for line in lines:
                if line.startswith("flags"):
                    flags = set(line.partition(":")[2].split())
                    return [flag for flag in required if flag not in flags]
    except OSError:
        pass
    return []


def check(target: str) -> None:
    """Raises ImportError when this CPU lacks an instruction set that `target` needs."""
    missing = missing_flags(target)
    if missing:
        raise ImportError(
            f"strand's extension was compiled for {target}, and this CPU lacks "
            f"{', '.join(missing)}: install strand from source (pip install . in its "
            "repository: docs/python.md), which builds for this CPU")
