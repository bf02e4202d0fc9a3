# The keyword arguments of the Python API that are flags of a `strand` command default to the
# flag's default (the command's key row, as `strand <command> --help` prints it). (A batch_size
# of 0 is refused by the flag's rule: test_model.py and test_explain.py.)
import inspect
import re
import subprocess

import pytest

import strand
from strand import explain, variants


def flag_defaults(strand_exe, command):
    """{flag name: its default as --help prints it}; a switch without one defaults to false."""
    text = subprocess.run([str(strand_exe), command, "--help"], capture_output=True, text=True,
                          check=True).stdout
    defaults = {}
    for entry in re.split(r"\n(?=\s+--)", text):
        named = re.match(r"\s+--([\w-]+)( \S+)?", entry)
        if not named:
            continue
        given = re.findall(r"\(default: ([^()]*)\)", entry)
        defaults[named.group(1)] = given[-1] if given else ("false" if not named.group(2) else "")
    return defaults


def as_flag_text(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def python_defaults(function):
    return {name: parameter.default
            for name, parameter in inspect.signature(function).parameters.items()
            if parameter.default is not inspect.Parameter.empty}


def model_predict_defaults():
    signature, _, values = strand.Model.predict.__nb_signature__[0]
    names = re.findall(r"(\w+): [^,]*? = \\(\d+)", signature)
    return {name: values[int(index)] for name, index in names}


# (command, the Python function's defaults, {Python argument: flag}); batch sizes that the CLI
# resolves from 0 ("the method's default") are checked below.
CASES = [
    ("predict", model_predict_defaults, {"batch_size": "batch-size", "rc_average": "rc-average"}),
    ("explain", lambda: python_defaults(explain.ism), {"path": "ism-path"}),
    ("explain", lambda: python_defaults(explain.deep_lift_shap),
     {"references": "references", "seed": "seed"}),
    ("marginalize", lambda: python_defaults(explain.marginalize), {"batch_size": "batch-size"}),
    ("marginalize", lambda: python_defaults(explain.marginalize_spacing),
     {"batch_size": "batch-size"}),
    ("variants", lambda: python_defaults(variants.score),
     {"rc_average": "rc-average", "ref_mismatch": "ref-mismatch", "contig_end": "contig-end",
      "null_shuffles": "null-shuffles", "seed": "seed"}),
]


@pytest.mark.parametrize("command, defaults_of, flags", CASES)
def test_python_defaults_are_the_flags_defaults(strand_exe, command, defaults_of, flags):
    if strand_exe is None:
        pytest.skip("no strand program (STRAND_EXE)")
    cli = flag_defaults(strand_exe, command)
    python = defaults_of()
    for argument, flag in flags.items():
        assert as_flag_text(python[argument]) == cli[flag], (command, argument, flag)


def test_batch_sizes_resolved_from_the_flags_zero_are_the_commands(strand_exe):
    # `strand explain --batch-size 0` and `strand variants --batch-size 0` mean "the method's
    # default": explain resolves it with app::default_explain_batch, the function that gives
    # strand.explain's defaults; variants' None is its 0 (64, on a GPU as many as fit).
    for function, method in [(explain.ism, "ism"), (explain.deep_lift_shap, "deeplift_shap"),
                             (explain.gradient, "gradient"),
                             (explain.input_x_gradient, "input_x_gradient")]:
        assert python_defaults(function)["batch_size"] == \
            strand._strand._default_explain_batch(method), method
    assert strand._strand._default_explain_batch("ism") == 256
    assert strand._strand._default_explain_batch("deeplift_shap") == 64
    assert python_defaults(variants.score)["batch_size"] is None
    if strand_exe is None:
        pytest.skip("no strand program (STRAND_EXE)")
    assert flag_defaults(strand_exe, "explain")["batch-size"] == "0"
    assert flag_defaults(strand_exe, "variants")["batch-size"] == "0"

